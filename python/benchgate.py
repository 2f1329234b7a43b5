# SPDX-License-Identifier: Apache-2.0
"""Report metrics to benchgate from a Python benchmark (standard library only).

    import benchgate

    with benchgate.metrics() as m:
        m.record("latency_ms", per_batch_latencies, unit="ms")
        m.record("accuracy", 0.943)

benchgate gives every run a fresh file in $BENCHGATE_METRICS_FILE and reads
it when the run ends (docs/reference/metrics-protocol.md). The values are
written there when the `with` block ends without an exception, as lines
"name value [unit]": a list becomes one line per value, which benchgate
reads as that run's samples of the metric. Outside benchgate (no such
variable) nothing is written, so the same script runs by hand unchanged;
`m.values` holds what was recorded either way.
"""

import math
import numbers
import os
import tempfile

__all__ = ["metrics", "Metrics", "active", "warmup"]


def active():
    """True when this process runs under benchgate."""
    return bool(os.environ.get("BENCHGATE_METRICS_FILE"))


def warmup():
    """True during benchgate's warmup runs, whose values are discarded."""
    return os.environ.get("BENCHGATE_WARMUP") == "1"


def _check_word(what, text):
    # A name or unit is one field of a "name value [unit]" line.
    if not isinstance(text, str) or not text or any(c.isspace() for c in text):
        raise ValueError("%s must be a non-empty string without spaces, not %r"
                         % (what, text))


def _check_number(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("metric %r: %r is not a number" % (name, value))
    value = float(value)
    if not math.isfinite(value):
        raise ValueError("metric %r: %r is not finite; benchgate takes "
                         "finite numbers only" % (name, value))
    return value


class Metrics:
    """The metrics of one run; use metrics() to make one."""

    def __init__(self, path):
        self.path = path  # None outside benchgate
        self.values = {}  # name -> list of float, in recording order
        self.units = {}   # name -> unit, for names recorded with one

    def record(self, name, values, unit=None):
        """Adds one value, or an iterable of values (samples), to `name`.

        Recording a name again appends to its samples. Raises ValueError
        or TypeError at once for what benchgate would refuse later."""
        _check_word("metric name", name)
        if unit is not None:
            _check_word("unit", unit)
            if self.units.setdefault(name, unit) != unit:
                raise ValueError("metric %r: unit %r after %r"
                                 % (name, unit, self.units[name]))
        if isinstance(values, numbers.Real):
            values = [values]
        checked = [_check_number(name, value) for value in values]
        self.values.setdefault(name, []).extend(checked)

    def text(self):
        """The metrics file's content: one "name value [unit]" line per value."""
        lines = []
        for name, values in self.values.items():
            suffix = " " + self.units[name] if name in self.units else ""
            lines.extend("%s %r%s" % (name, value, suffix) for value in values)
        return "".join(line + "\n" for line in lines)

    def write(self):
        """Writes the file now (all at once: never half a file); outside
        benchgate, does nothing."""
        if not self.path:
            return
        directory = os.path.dirname(os.path.abspath(self.path))
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".benchgate-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(self.text())
            os.replace(tmp, self.path)
        except BaseException:
            os.unlink(tmp)
            raise

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, traceback):
        # A failed run reports nothing rather than a partial truth: its
        # non-zero exit already fails the case.
        if exc_type is None:
            self.write()
        return False


def metrics(path=None):
    """A Metrics for this run: path defaults to $BENCHGATE_METRICS_FILE."""
    return Metrics(path if path is not None
                   else os.environ.get("BENCHGATE_METRICS_FILE") or None)
