#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A PopTorch inference benchmark on an IPU, for benchgate (README,
"Bridges: Graphcore"). Needs the Poplar SDK with PopTorch; untested here.

It asks Poplar for its PopVision reports in the run's directory, which
extract_popvision.py reads after the run, prints the lines
parse_poplar_log.py reads, and records per-batch latency through
python/benchgate.py.
"""
import argparse
import json
import os
import time

RUN_DIR = os.environ.get("BENCHGATE_RUN_DIR", ".")
# Before poptorch is imported: Poplar reads its options at start-up.
os.environ["POPLAR_ENGINE_OPTIONS"] = json.dumps({
    "autoReport.all": "true",
    "autoReport.directory": os.path.join(RUN_DIR, "popvision"),
})

import benchgate  # noqa: E402  (python/ on PYTHONPATH, see suite.json)
import poptorch  # noqa: E402
import torch  # noqa: E402


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 32, 3)
        self.fc = torch.nn.Linear(32 * 13 * 13, 10)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.conv(x)), 2)
        return self.fc(x.flatten(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--precision", choices=["fp32", "fp16"],
                        default="fp32")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--batches", type=int, default=50)
    args = parser.parse_args()

    model = Net().eval()
    data = torch.randn(args.batch, 1, 28, 28)
    if args.precision == "fp16":
        model, data = model.half(), data.half()
    ipu = poptorch.inferenceModel(model, poptorch.Options())
    start = time.perf_counter()
    ipu.compile(data)
    print("Compiled/Loaded model in %.3f secs" % (time.perf_counter() - start))

    latencies = []
    for _ in range(args.batches):
        start = time.perf_counter()
        ipu(data)
        latencies.append((time.perf_counter() - start) * 1000)
    mean_ms = sum(latencies) / len(latencies)
    print("Throughput: %.1f samples/sec" % (args.batch * 1000 / mean_ms))
    print("Latency: %.3f ms" % mean_ms)
    with benchgate.metrics() as m:
        m.record("latency_ms", latencies, unit="ms")


if __name__ == "__main__":
    main()
