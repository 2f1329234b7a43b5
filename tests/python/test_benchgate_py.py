# SPDX-License-Identifier: Apache-2.0
"""Tests of python/benchgate.py, the helper for Python benchmark authors,
and of python/benchgate_profile.py, the sampler of profiling runs.

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


class ProfileBase(unittest.TestCase):
    """python/benchgate_profile.py as a profiling run installs it: the
    sitecustomize of a directory first on PYTHONPATH."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.site = os.path.join(self.dir, "site")
        self.out = os.path.join(self.dir, "out")
        os.makedirs(self.site)
        os.makedirs(self.out)
        shutil.copy(os.path.join(HELPER_DIR, "benchgate_profile.py"),
                    os.path.join(self.site, "sitecustomize.py"))
        # the sitecustomize it shadows, which must still run
        self.other = os.path.join(self.dir, "other")
        os.makedirs(self.other)
        with open(os.path.join(self.other, "sitecustomize.py"), "w") as f:
            f.write("import os\nos.environ['OTHER_SITE'] = 'ran'\n")

    def run_script(self, script, profile=True):
        path = os.path.join(self.dir, "script.py")
        with open(path, "w") as f:
            f.write(script)
        env = dict(os.environ, PYTHONPATH=self.site + os.pathsep + self.other)
        env.pop("BENCHGATE_PROFILE_DIR", None)
        if profile:
            env["BENCHGATE_PROFILE_DIR"] = self.out
        return subprocess.run([sys.executable, path], env=env,
                              cwd=self.dir, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE,
                              universal_newlines=True)

    def folded(self):
        return sorted(name for name in os.listdir(self.out)
                      if name.endswith(".folded"))

    BUSY = ("import os, sys, time\n"
            "def busy(seconds):\n"
            "    end = time.time() + seconds\n"
            "    while time.time() < end:\n"
            "        sum(range(100))\n")



class ProfileSampler(ProfileBase):
    def test_samples_and_keeps_the_exit_status(self):
        done = self.run_script(self.BUSY + "busy(0.3)\n"
                               "print(os.environ.get('OTHER_SITE'))\n"
                               "sys.exit(3)\n")
        self.assertEqual(done.returncode, 3, done.stderr)
        self.assertEqual(done.stdout.strip(), "ran")
        self.assertNotIn("benchgate: python profile:", done.stderr)
        files = self.folded()
        self.assertEqual(len(files), 1)
        with open(os.path.join(self.out, files[0])) as f:
            text = f.read()
        self.assertIn(";<module> (script.py:1);busy (script.py:2)", text)
        for line in text.splitlines():
            frames, count = line.rsplit(" ", 1)
            self.assertGreater(int(count), 0)
            self.assertTrue(frames.startswith(
                os.path.basename(sys.executable) + " script.py"), line)

    def test_does_nothing_outside_a_profiling_run(self):
        done = self.run_script(self.BUSY + "busy(0.1)\n", profile=False)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(self.folded(), [])

    @unittest.skipUnless(hasattr(os, "fork"), "no fork here")
    def test_a_forked_child_samples_on_its_own(self):
        done = self.run_script(self.BUSY +
                               "def child_work(seconds):\n"
                               "    busy(seconds)\n"
                               "pid = os.fork()\n"
                               "if pid:\n"
                               "    busy(0.3)\n"
                               "    os.waitpid(pid, 0)\n"
                               "else:\n"
                               "    child_work(0.3)\n"
                               "    sys.exit(0)\n")
        self.assertEqual(done.returncode, 0, done.stderr)
        files = self.folded()
        self.assertEqual(len(files), 2, files)
        texts = []
        for name in files:
            with open(os.path.join(self.out, name)) as f:
                texts.append(f.read())
        # the child's own sampler saw the child's work, in its own file
        self.assertEqual(sum("child_work (script.py:6)" in text
                             for text in texts), 1, texts)


# A stand-in for torch with what benchgate_profile.py calls, so the CUDA
# path runs without a GPU: FAKE_CUDA=1 makes CUDA present, FAKE_OLD=1
# takes away _dump_snapshot as torch 1.13 has none.
FAKE_TORCH = {
    "torch/__init__.py": "from . import autograd, cuda, profiler\n",
    "torch/autograd/__init__.py": "from . import profiler\n",
    "torch/autograd/profiler.py":
        "class profile:\n"
        "    def _start_trace(self):\n"
        "        pass\n",
    "torch/cuda/__init__.py":
        "import os\n"
        "from . import memory\n"
        "def is_available():\n"
        "    return os.environ.get('FAKE_CUDA') == '1'\n",
    "torch/cuda/memory.py":
        "import os\n"
        "recording = []\n"
        "def _record_memory_history(enabled):\n"
        "    recording.append(enabled)\n"
        "def _dump_snapshot(path):\n"
        "    with open(path, 'w') as f:\n"
        "        f.write('recorded %r' % recording)\n"
        "if os.environ.get('FAKE_OLD') == '1':\n"
        "    del _dump_snapshot\n",
    "torch/profiler/__init__.py":
        "from torch.autograd import profiler as _autograd\n"
        "class ProfilerActivity:\n"
        "    CPU, CUDA = 'cpu', 'cuda'\n"
        "class _Averages:\n"
        "    def __init__(self, activities):\n"
        "        self.activities = activities\n"
        "    def table(self, sort_by, row_limit):\n"
        "        return 'ops of %s by %s' % ('+'.join(self.activities),\n"
        "                                    sort_by)\n"
        "class profile:\n"
        "    def __init__(self, activities):\n"
        "        self.activities = activities\n"
        "        self.profiler = _autograd.profile()\n"
        "    def start(self):\n"
        "        self.profiler._start_trace()\n"
        "    def stop(self):\n"
        "        pass\n"
        "    def key_averages(self):\n"
        "        return _Averages(self.activities)\n",
}


class ProfileTorch(ProfileBase):
    def setUp(self):
        super().setUp()
        for name, text in FAKE_TORCH.items():
            path = os.path.join(self.other, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)

    def run_torch(self, **env):
        with mock.patch.dict(os.environ, env):
            done = self.run_script("import torch\n")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertNotIn("benchgate: python profile:", done.stderr)
        with open(os.path.join(self.out, "torch-ops.txt")) as f:
            return f.read()

    def test_cuda_gets_a_memory_snapshot(self):
        table = self.run_torch(FAKE_CUDA="1", FAKE_OLD="0")
        self.assertIn("ops of cpu+cuda by self_cuda_time_total", table)
        with open(os.path.join(self.out, "cuda-memory.pickle")) as f:
            self.assertEqual(f.read(), "recorded [True]")

    def test_cpu_gets_no_snapshot(self):
        table = self.run_torch(FAKE_CUDA="0", FAKE_OLD="0")
        self.assertIn("ops of cpu by self_cpu_time_total", table)
        self.assertFalse(os.path.exists(os.path.join(self.out,
                                                     "cuda-memory.pickle")))

    def test_cuda_without_dump_snapshot_is_no_failure(self):
        self.run_torch(FAKE_CUDA="1", FAKE_OLD="1")
        self.assertFalse(os.path.exists(os.path.join(self.out,
                                                     "cuda-memory.pickle")))
