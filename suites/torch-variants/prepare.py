# SPDX-License-Identifier: Apache-2.0
"""Trains the models of the torch-variants suite and makes their variants.

    /usr/bin/python3 suites/torch-variants/prepare.py --out build/suites/torch-variants

Writes into --out: one file per variant (fp32, quantized, fp16, pruned,
distilled; torch.save of the whole module), stats.json (the feature
normalisation), test.records (the test set as text records), info.json,
and `python`, a wrapper that runs the interpreter that ran this script
(the one that has torch), for the suite's command.

Training takes some 30 s on 2 cores, so its outputs are cached, keyed by
the SHA-256 of this script, data.py and model.py and the torch version:
in $BENCHGATE_TORCH_CACHE, else $XDG_CACHE_HOME/benchgate/torch-variants,
else ~/.cache/benchgate/torch-variants (--cache overrides all). A second
build, or a work tree of another commit with the same training code, copies
from there instead of training.
"""

import argparse
import copy
import hashlib
import json
import os
import shlex
import shutil
import sys
import tempfile
import time

import torch
from torch import nn
import torch.nn.functional as F
from torch.nn.utils import prune

import data
import model

HERE = os.path.dirname(os.path.abspath(__file__))
KEYED_SOURCES = ("prepare.py", "data.py", "model.py")
VARIANTS = ("fp32", "quantized", "fp16", "pruned", "distilled")
OUTPUTS = tuple(v + ".pt" for v in VARIANTS) + (
    "stats.json", "test.records", "info.json")


def cache_key():
    digest = hashlib.sha256()
    for name in KEYED_SOURCES:
        with open(os.path.join(HERE, name), "rb") as source:
            digest.update(name.encode() + b"\0" + source.read() + b"\0")
    digest.update(torch.__version__.encode())
    return digest.hexdigest()[:16]


def cache_root(option):
    if option:
        return option
    if os.environ.get("BENCHGATE_TORCH_CACHE"):
        return os.environ["BENCHGATE_TORCH_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(base, "benchgate", "torch-variants")


def normalise(x, mean, std):
    """What preprocess.py does to each record, on a whole tensor."""
    x = x.clone()
    x[:, data.COUNTS_FROM:] = torch.log1p(x[:, data.COUNTS_FROM:])
    return ((x - mean) / std).clamp(-5, 5)


def batches(tensors, size, gen):
    order = torch.randperm(tensors[0].shape[0], generator=gen)
    for i in range(0, len(order), size):
        yield [t[order[i:i + size]] for t in tensors]


def fit(net, tensors, epochs, lr, gen, loss_of=None):
    """Adam on batches of (x, y, extra...); loss_of(out, y, extra...)
    defaults to the cross entropy."""
    optimiser = torch.optim.Adam(net.parameters(), lr=lr)
    net.train()
    for _ in range(epochs):
        for xb, *rest in batches(tensors, 256, gen):
            optimiser.zero_grad()
            out = net(xb)
            loss = (loss_of or F.cross_entropy)(out, *rest)
            loss.backward()
            optimiser.step()
    net.eval()
    return net


def accuracy(net, x, y):
    with torch.no_grad():
        return float((net(x).argmax(1) == y).float().mean())


def prune_and_finetune(teacher, x, y, gen):
    """80 % of the Linear weights with the smallest magnitude, over the
    whole network, set to zero; a short fine-tune with the mask held."""
    net = copy.deepcopy(teacher)
    weights = [(m, "weight") for m in net.modules() if isinstance(m, nn.Linear)]
    prune.global_unstructured(weights, pruning_method=prune.L1Unstructured,
                              amount=0.8)
    fit(net, (x, y), epochs=2, lr=3e-4, gen=gen)
    for module, name in weights:
        prune.remove(module, name)  # the mask becomes the weights' zeros
    return net


def distil(teacher, x, y, gen, temperature=4.0, alpha=0.7):
    """A small student trained on the teacher's softened outputs."""
    with torch.no_grad():  # once, not per batch and epoch
        soft = F.softmax(teacher(x) / temperature, dim=1)

    def loss_of(out, yb, softb):
        kd = F.kl_div(F.log_softmax(out / temperature, dim=1), softb,
                      reduction="batchmean") * temperature ** 2
        return alpha * kd + (1 - alpha) * F.cross_entropy(out, yb)
    return fit(model.student(), (x, y, soft), epochs=6, lr=3e-3, gen=gen,
               loss_of=loss_of)


def train(into):
    torch.manual_seed(0)
    torch.set_num_threads(min(2, os.cpu_count() or 1))
    gen = torch.Generator().manual_seed(1)
    started = time.monotonic()
    train_x, train_y, test_x, test_y = data.make()
    logged = train_x.clone()
    logged[:, data.COUNTS_FROM:] = torch.log1p(logged[:, data.COUNTS_FROM:])
    mean, std = logged.mean(0), logged.std(0)
    x, tx = normalise(train_x, mean, std), normalise(test_x, mean, std)

    teacher = fit(model.teacher(), (x, train_y), epochs=3, lr=2e-3,
                  gen=gen)
    model.use_quantized_engine()
    variants = {
        "fp32": teacher,
        "quantized": torch.ao.quantization.quantize_dynamic(
            copy.deepcopy(teacher), {nn.Linear}, dtype=torch.qint8),
        "fp16": copy.deepcopy(teacher).half(),
        "pruned": prune_and_finetune(teacher, x, train_y, gen),
        "distilled": distil(teacher, x, train_y, gen),
    }
    info = {"torch": torch.__version__, "seconds": 0, "test_accuracy": {}}
    for name, net in variants.items():
        torch.save(net, os.path.join(into, name + ".pt"))
        if name != "fp16":  # half matmuls are a CUDA thing here
            info["test_accuracy"][name] = accuracy(net, tx, test_y)
    with open(os.path.join(into, "stats.json"), "w") as out:
        json.dump({"mean": mean.tolist(), "std": std.tolist()}, out)
    data.write_records(os.path.join(into, "test.records"), test_x, test_y)
    info["seconds"] = round(time.monotonic() - started, 1)
    check_accuracy(info["test_accuracy"])
    with open(os.path.join(into, "info.json"), "w") as out:
        json.dump(info, out, indent=1)
    return info


def check_accuracy(accuracies):
    """A model that learnt nothing would make every figure meaningless."""
    reference = accuracies["fp32"]
    if reference < 0.85:
        sys.exit("torch-variants: fp32 test accuracy %.3f, below 0.85"
                 % reference)
    for name, value in accuracies.items():
        if value < reference - 0.04:
            sys.exit("torch-variants: %s test accuracy %.3f, more than 4 "
                     "points below fp32's %.3f" % (name, value, reference))


def cached(root, key, quiet):
    """The cache entry for key, trained into it first when missing."""
    entry = os.path.join(root, key)
    if os.path.isfile(os.path.join(entry, "info.json")):
        return entry
    os.makedirs(root, exist_ok=True)
    work = tempfile.mkdtemp(dir=root, prefix=".training-")
    try:
        info = train(work)
        if not quiet:
            print("torch-variants: trained in %.1f s; test accuracy %s"
                  % (info["seconds"], info["test_accuracy"]))
        try:
            os.rename(work, entry)  # whole entries only
        except OSError:  # another build finished first: keep its entry
            if not os.path.isfile(os.path.join(entry, "info.json")):
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return entry


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--cache", help="cache directory (see above)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()

    key = cache_key()
    os.makedirs(args.out, exist_ok=True)
    stamp = os.path.join(args.out, "KEY")
    current = open(stamp).read().strip() if os.path.isfile(stamp) else None
    if current != key or not all(
            os.path.isfile(os.path.join(args.out, f)) for f in OUTPUTS):
        entry = cached(cache_root(args.cache), key, args.quiet)
        for name in OUTPUTS:
            shutil.copyfile(os.path.join(entry, name),
                            os.path.join(args.out, name))
        with open(stamp, "w") as out:
            out.write(key + "\n")
    wrapper = os.path.join(args.out, "python")
    with open(wrapper, "w") as out:
        out.write("#!/bin/sh\nexec %s \"$@\"\n" % shlex.quote(sys.executable))
    os.chmod(wrapper, 0o755)
    if not args.quiet:
        print("torch-variants: models in %s (cache key %s)" % (args.out, key))


if __name__ == "__main__":
    main()
