# SPDX-License-Identifier: Apache-2.0
"""Benchmark of one variant of the torch-variants suite on one device.

    bench.py --models DIR --variant fp32 --device cpu|gpu [--batch 64] [--passes 1]

Serves the test records in batches: preprocessing (preprocess.py), tensor,
forward pass, predicted class. Reports through benchgate.py: per-batch
latency of the whole (samples, from which benchgate takes p50/p90/p99) and
this run's p90 and p99, preprocessing time, throughput, accuracy, model
file size, parameter and non-zero parameter counts and, on CUDA, the
allocator's peak (torch.cuda.max_memory_allocated).
"""

import argparse
import os
import statistics
import sys
import time

import torch

import benchgate
import model
from preprocess import Preprocessor


def percentile(values, q):
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def load(path, device):
    net = torch.load(path, map_location="cpu")
    net.eval()
    params = list(net.parameters())
    dtype = params[0].dtype if params else torch.float32  # int8: no floats
    return net.to(device), dtype


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", required=True)
    parser.add_argument("--variant", required=True)
    parser.add_argument("--device", default="cpu", choices=("cpu", "gpu", "cuda"))
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--warmup-batches", type=int, default=4)
    parser.add_argument("--passes", type=int, default=1,
                        help="timed passes over the test records")
    args = parser.parse_args()

    device = torch.device("cuda" if args.device in ("gpu", "cuda") else "cpu")
    if device.type == "cuda" and not torch.cuda.is_available():
        # Debian's torch is built without CUDA: a GPU machine needs a CUDA
        # build of torch to run the gpu cases.
        sys.exit("bench.py: device %s: this torch %s has no usable CUDA "
                 "(built for CUDA %s)" % (args.device, torch.__version__,
                                         torch.version.cuda))
    model.use_quantized_engine()
    path = os.path.join(args.models, args.variant + ".pt")
    net, dtype = load(path, device)
    preprocess = Preprocessor(os.path.join(args.models, "stats.json"))
    with open(os.path.join(args.models, "test.records"), encoding="ascii") as f:
        records = f.read().splitlines()
    batches = [records[i:i + args.batch]
               for i in range(0, len(records), args.batch)]
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)

    def serve(batch):
        started = time.perf_counter()
        rows, labels = preprocess(batch)
        x = torch.tensor(rows).to(device, dtype)
        prepared = time.perf_counter()
        with torch.inference_mode():
            predicted = net(x).argmax(1).cpu()  # waits for the GPU
        finished = time.perf_counter()
        correct = int((predicted == torch.tensor(labels)).sum())
        return finished - started, prepared - started, correct

    for batch in batches[:args.warmup_batches]:
        serve(batch)
    latency_ms, preprocess_ms, correct = [], [], 0
    for batch in batches * args.passes:
        seconds, preparing, right = serve(batch)
        latency_ms.append(seconds * 1e3)
        preprocess_ms.append(preparing * 1e3)
        correct += right

    with benchgate.metrics() as m:
        # the architecture, with params and nonzero_params (quantized
        # weights as stored), run on one batch of the served input
        rows, _ = preprocess(batches[0])
        summary = benchgate.model_summary(
            net, torch.tensor(rows).to(device, dtype), m)
        m.record("latency_ms", latency_ms, unit="ms")
        m.record("latency_p90_ms", percentile(latency_ms, 90), unit="ms")
        m.record("latency_p99_ms", percentile(latency_ms, 99), unit="ms")
        m.record("preprocess_ms", preprocess_ms, unit="ms")
        m.record("throughput", len(records) * args.passes
                 / (sum(latency_ms) / 1e3), unit="samples/s")
        m.record("accuracy", correct / (len(records) * args.passes))
        m.record("model_size_bytes", os.path.getsize(path), unit="B")
        if device.type == "cuda":
            m.record("gpu_memory_bytes",
                     torch.cuda.max_memory_allocated(device), unit="B")
    print("%s/%s: latency p50 %.3f ms p99 %.3f ms (preprocessing %.3f ms), "
          "accuracy %.4f, "
          "%d parameters (%d non-zero)"
          % (args.variant, device.type, statistics.median(latency_ms),
             percentile(latency_ms, 99), statistics.median(preprocess_ms),
             correct / (len(records) * args.passes), summary["params"],
             summary["nonzero"]))


if __name__ == "__main__":
    main()
