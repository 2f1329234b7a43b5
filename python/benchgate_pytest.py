# SPDX-License-Identifier: Apache-2.0
"""A pytest plugin: a team's pytest tests as a benchgate benchmark.

    # suite.json: "command": ["python3", "-m", "pytest", "-q",
    #                         "-p", "benchgate_pytest", "tests/bench"]

    def test_preprocess(benchgate):
        with benchgate.timer("preprocess_ms"):
            preprocess(batch)
        benchgate.record("accuracy", evaluate(model))

The `benchgate` fixture records metrics for the case benchgate is running
(one pytest session is one run of the case): every test of the session
records into the same Metrics (benchgate.py), written to
$BENCHGATE_METRICS_FILE when the session ends with every test passed. A
failing session writes nothing: its exit status already fails the case.
Outside benchgate the fixture records and writes nothing, so the tests run
as plain tests. Recording a name in several tests appends samples.
"""

import time

import pytest

import benchgate as _benchgate

_session_metrics = None


class Recorder:
    """What a test records into the session's metrics."""

    def __init__(self, metrics):
        self._metrics = metrics

    def record(self, name, values, unit=None):
        """As Metrics.record: a value, or an iterable of samples."""
        self._metrics.record(name, values, unit)

    def timer(self, name, unit="ms"):
        """A context manager that records the wall time of its block, in
        milliseconds (unit "ms") or seconds (unit "s")."""
        return _Timer(self, name, unit)

    def model_summary(self, model, example_input):
        """benchgate.model_summary() into the session's metrics."""
        return _benchgate.model_summary(model, example_input, self._metrics)

    @property
    def values(self):
        return self._metrics.values


class _Timer:
    def __init__(self, recorder, name, unit):
        if unit not in ("ms", "s"):
            raise ValueError("timer unit must be 'ms' or 's', not %r" % unit)
        self._recorder, self._name, self._unit = recorder, name, unit

    def __enter__(self):
        self._started = time.perf_counter()
        return self

    def __exit__(self, exc_type, exc, traceback):
        if exc_type is None:
            seconds = time.perf_counter() - self._started
            self._recorder.record(self._name, seconds * 1e3
                                  if self._unit == "ms" else seconds,
                                  unit=self._unit)
        return False


def _metrics():
    global _session_metrics
    if _session_metrics is None:
        _session_metrics = _benchgate.metrics()
    return _session_metrics


@pytest.fixture
def benchgate():
    """Records metrics for the benchgate case this pytest session runs."""
    return Recorder(_metrics())


def pytest_sessionfinish(session, exitstatus):
    if _session_metrics is not None and exitstatus == 0:
        _session_metrics.write()
