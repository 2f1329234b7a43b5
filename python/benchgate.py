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

A PyTorch model's architecture goes with its metrics:

    with benchgate.metrics() as m:
        benchgate.model_summary(net, example_batch, m)

records each layer's name, type, output shape and parameters (the case's
"model" in the result, shown per variant in the HTML report) and the metrics
params, trainable_params and nonzero_params.
"""

import json
import math
import numbers
import os
import tempfile

__all__ = ["metrics", "Metrics", "active", "warmup", "model_summary"]


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
        self.model = None  # model_summary()'s, when recorded

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
        if self.model is not None:
            # one line: JSON escapes every newline inside its strings
            lines.append("@model " + json.dumps(self.model,
                                                separators=(",", ":")))
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


def _shape(output):
    """"[64, 10]" for a tensor, "[64, 10], [64]" for a tuple of them."""
    if hasattr(output, "shape"):
        return "[" + ", ".join(str(int(d)) for d in output.shape) + "]"
    if isinstance(output, (tuple, list)):
        return ", ".join(s for s in (_shape(o) for o in output) if s)
    return ""


def _text(name):
    """A name as benchgate stores it: printable, one line."""
    return "".join(c if c.isprintable() else "?" for c in str(name))


def _own_tensors(module):
    """(tensors, trainable count) a module holds itself: its parameters, or
    a quantized module's packed weight and bias, counted as stored."""
    own = list(module.parameters(recurse=False))
    if own or not callable(getattr(module, "weight", None)):
        return own, sum(int(p.numel()) for p in own if p.requires_grad)
    weight = module.weight()
    bias = module.bias() if callable(getattr(module, "bias", None)) else None
    if getattr(weight, "is_quantized", False):
        weight = weight.int_repr()
    return [t for t in (weight, bias) if t is not None], 0


def model_summary(model, example_input, metrics=None):
    """The layers of a PyTorch module, found by running example_input
    through it once (without gradients) with a forward hook on each leaf
    module: a dict {"params", "trainable", "nonzero", "layers": [{"name",
    "type", "output_shape", "params", "trainable"}]}.

    With a Metrics, also records it there, with the metrics params,
    trainable_params and nonzero_params. A quantized module's packed
    weights count as stored. Needs torch, imported here so that the helper
    stays importable without it.
    """
    import torch

    layers, hooks = [], []

    def hook_for(name, module):
        def hook(_module, _inputs, output):
            own, trainable = _own_tensors(module)
            layers.append({
                "name": _text(name),
                "type": _text(type(module).__name__),
                "output_shape": _shape(output),
                "params": sum(int(t.numel()) for t in own),
                "trainable": trainable,
            })
        return hook

    # a layer is a leaf module, or one whose weights are packed in a child
    # (a quantized Linear): its children are part of it
    inside = ()
    for name, module in model.named_modules():
        if not name or name.startswith(inside):
            continue
        if not list(module.children()) or callable(getattr(module, "weight",
                                                           None)):
            hooks.append(module.register_forward_hook(hook_for(name, module)))
            inside = tuple(list(inside) + [name + "."])
    try:
        with torch.no_grad():
            if isinstance(example_input, (tuple, list)):
                model(*example_input)
            else:
                model(example_input)
    finally:
        for handle in hooks:
            handle.remove()
    summary = {"params": 0, "trainable": 0, "nonzero": 0, "layers": layers}
    for module in model.modules():
        own, trainable = _own_tensors(module)
        summary["params"] += sum(int(t.numel()) for t in own)
        summary["trainable"] += trainable
        summary["nonzero"] += sum(int(torch.count_nonzero(t)) for t in own)
    if metrics is not None:
        metrics.model = summary
        metrics.record("params", summary["params"])
        metrics.record("trainable_params", summary["trainable"])
        metrics.record("nonzero_params", summary["nonzero"])
    return summary
