# SPDX-License-Identifier: Apache-2.0
"""Tests of python/benchgate.py, the helper for Python benchmark authors.

Run by ctest (tests/CMakeLists.txt) with BENCHGATE_BIN naming the built
benchgate, which the end-to-end test drives: what the helper writes must be
what `benchgate run` reads.
"""

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import benchgate

HELPER_DIR = os.path.dirname(os.path.abspath(benchgate.__file__))


class Outside(unittest.TestCase):
    def test_writes_nothing_without_benchgate(self):
        with mock.patch.dict(os.environ, clear=True):
            self.assertFalse(benchgate.active())
            with benchgate.metrics() as m:
                m.record("latency_ms", [1.5, 2.5], unit="ms")
            self.assertIsNone(m.path)
            self.assertEqual(m.values, {"latency_ms": [1.5, 2.5]})


class Recording(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.path = os.path.join(self.dir, "metrics")
        self.addCleanup(shutil.rmtree, self.dir)

    def read(self):
        with open(self.path) as f:
            return f.read()

    def test_lines_per_value_with_units(self):
        with mock.patch.dict(os.environ, {"BENCHGATE_METRICS_FILE": self.path}):
            with benchgate.metrics() as m:
                m.record("latency_ms", [1.25, 0.1], unit="ms")
                m.record("accuracy", 0.9375)
                m.record("latency_ms", 3, unit="ms")
        self.assertEqual(self.read(), "latency_ms 1.25 ms\nlatency_ms 0.1 ms\n"
                         "latency_ms 3.0 ms\naccuracy 0.9375\n")
        self.assertEqual(os.listdir(self.dir), ["metrics"])  # no temp file left

    def test_nothing_written_when_the_block_fails(self):
        with self.assertRaises(RuntimeError):
            with benchgate.metrics(self.path) as m:
                m.record("x", 1)
                raise RuntimeError("benchmark failed")
        self.assertFalse(os.path.exists(self.path))

    def test_refuses_what_benchgate_would(self):
        m = benchgate.metrics(self.path)
        for name, value, unit, error in [
                ("two words", 1, None, ValueError),
                ("", 1, None, ValueError),
                ("x", math.nan, None, ValueError),
                ("x", [1, math.inf], None, ValueError),
                ("x", "1.5", None, TypeError),
                ("x", True, None, TypeError),
                ("x", 1, "m s", ValueError)]:
            with self.subTest(name=name, value=value, unit=unit):
                self.assertRaises(error, m.record, name, value, unit)
        m.record("y", 1, unit="ms")
        self.assertRaises(ValueError, m.record, "y", 2, unit="s")
        self.assertEqual(m.values, {"y": [1.0]})


def run_in(work):
    """`benchgate run suite.json` in work: the process and its one case."""
    out = os.path.join(work, "result.json")
    run = subprocess.run(
        [os.environ["BENCHGATE_BIN"], "run", "suite.json", "--store",
         os.path.join(work, "store"), "--json", out, "--quiet"],
        cwd=work, capture_output=True, text=True, timeout=300)
    with open(out) as f:
        (case,) = json.load(f)["cases"]
    return run, case


BENCH = """
import benchgate
with benchgate.metrics() as m:
    m.record("latency_ms", [1.5, 2.5, 1e-05], unit="ms")
    m.record("accuracy", 0.9375)
    m.record("runs_seen", 1)
"""

SUITE = {
    "benchgate": 1, "suite": "pyhelper",
    "defaults": {"warmup": 1, "runs": 2, "env": {"PYTHONPATH": HELPER_DIR}},
    "benchmarks": [{
        "name": "bench", "command": [sys.executable, "bench.py"],
        "metrics": [
            {"name": "latency", "from": "metrics", "key": "latency_ms"},
            {"name": "accuracy", "from": "metrics", "better": "higher"},
            {"name": "runs_seen", "from": "metrics"}]}]}


@unittest.skipUnless(os.environ.get("BENCHGATE_BIN"), "BENCHGATE_BIN not set")
class ReadByBenchgate(unittest.TestCase):
    def test_run_reads_the_file(self):
        work = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, work)
        with open(os.path.join(work, "bench.py"), "w") as f:
            f.write(BENCH)
        with open(os.path.join(work, "suite.json"), "w") as f:
            json.dump(SUITE, f)
        out = os.path.join(work, "result.json")
        run = subprocess.run(
            [os.environ["BENCHGATE_BIN"], "run", "suite.json", "--store",
             os.path.join(work, "store"), "--json", out, "--quiet"],
            cwd=work, capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        with open(out) as f:
            (case,) = json.load(f)["cases"]
        self.assertEqual(case["status"], "ok")
        metrics = case["metrics"]
        self.assertEqual(metrics["latency"]["samples"], [1.5, 2.5, 1e-05] * 2)
        self.assertEqual(metrics["latency"]["unit"], "ms")
        self.assertEqual(metrics["accuracy"]["samples"], [0.9375] * 2)
        self.assertEqual(metrics["runs_seen"]["samples"], [1, 1])

    def run_suite(self, bench):
        work = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, work)
        with open(os.path.join(work, "bench.py"), "w") as f:
            f.write(bench)
        with open(os.path.join(work, "suite.json"), "w") as f:
            json.dump(SUITE, f)
        return run_in(work)

    def test_a_model_summary_reaches_the_result_as_written(self):
        # what model_summary() records, without torch: the names are the
        # model's own, so any text; JSON keeps it on the one @model line
        run, case = self.run_suite(BENCH + MODEL)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(case["status"], "ok")
        self.assertEqual(case["model"], json.loads(MODEL_JSON))

    def test_a_broken_model_line_fails_the_case_naming_it(self):
        run, case = self.run_suite(BENCH + BROKEN_MODEL)
        self.assertNotEqual(run.returncode, 0)
        self.assertEqual(case["status"], "failed")
        self.assertIn("@model line", case["reason"])
        self.assertIn("layers[0]", case["reason"])
        self.assertIn("params", case["reason"])


MODEL_JSON = json.dumps({
    "params": 46, "trainable": 36, "nonzero": 40,
    "layers": [
        {"name": "enc.<b>0</b> & 'next'", "type": "Linear",
         "output_shape": "[3, 4]", "params": 36, "trainable": 36},
        {"name": "héad", "type": "Linear", "output_shape": "[3, 2]",
         "params": 10, "trainable": 0}]})

MODEL = """
import json
m.model = json.loads(%r)
m.write()
""" % MODEL_JSON

BROKEN_MODEL = """
m.model = {"params": 1, "trainable": 1, "nonzero": 1,
           "layers": [{"name": "x", "type": "Linear", "params": -1,
                       "trainable": 0}]}
m.write()
"""


def python_with_pytest():
    """An interpreter that has pytest (Debian's python3-pytest, which CI
    installs with python3-pytest-benchmark), or None."""
    for candidate in (sys.executable, "/usr/bin/python3"):
        if candidate and subprocess.run(
                [candidate, "-c", "import pytest"],
                capture_output=True).returncode == 0:
            return candidate
    return None


PYTEST_BENCH = """
import time

def test_preprocess(benchgate):
    with benchgate.timer("preprocess_ms"):
        time.sleep(0.002)
    benchgate.record("accuracy", 0.9375)

def test_batches(benchgate):
    benchgate.record("batch_ms", [1.0, 2.0], unit="ms")

def test_plain():
    assert True
"""


@unittest.skipUnless(os.environ.get("BENCHGATE_BIN"), "BENCHGATE_BIN not set")
class PytestPlugin(unittest.TestCase):
    def run_suite(self, tests):
        python = python_with_pytest()
        if python is None:
            self.fail("no interpreter with pytest: apt-get install "
                      "python3-pytest")
        work = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, work)
        with open(os.path.join(work, "test_bench.py"), "w") as f:
            f.write(tests)
        suite = {
            "benchgate": 1, "suite": "pytests",
            "defaults": {"warmup": 0, "runs": 2,
                         "env": {"PYTHONPATH": HELPER_DIR,
                                 "PYTHONDONTWRITEBYTECODE": "1"}},
            "benchmarks": [{
                "name": "pytests",
                "command": [python, "-m", "pytest", "-q", "-p",
                            "benchgate_pytest", "-p", "no:cacheprovider",
                            "test_bench.py"],
                "metrics": [
                    {"name": "preprocess", "from": "metrics",
                     "key": "preprocess_ms"},
                    {"name": "accuracy", "from": "metrics",
                     "better": "higher"},
                    {"name": "batch", "from": "metrics", "key": "batch_ms"}]}]}
        with open(os.path.join(work, "suite.json"), "w") as f:
            json.dump(suite, f)
        return run_in(work)

    def test_a_pytest_session_is_a_run_of_the_case(self):
        run, case = self.run_suite(PYTEST_BENCH)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(case["status"], "ok", case.get("reason"))
        metrics = case["metrics"]
        self.assertEqual(len(metrics["preprocess"]["samples"]), 2)
        self.assertTrue(all(s >= 2.0 for s in
                            metrics["preprocess"]["samples"]))
        self.assertEqual(metrics["preprocess"]["unit"], "ms")
        self.assertEqual(metrics["accuracy"]["samples"], [0.9375] * 2)
        self.assertEqual(metrics["batch"]["samples"], [1.0, 2.0] * 2)

    def test_a_failing_test_fails_the_case_and_records_nothing(self):
        run, case = self.run_suite(PYTEST_BENCH +
                                   "\ndef test_broken(benchgate):\n"
                                   "    assert 1 == 2\n")
        self.assertNotEqual(run.returncode, 0)
        self.assertEqual(case["status"], "failed")
        self.assertNotIn("accuracy", case.get("metrics", {}))


if __name__ == "__main__":
    unittest.main()
