#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""benchgate extractor: a PopTorch / Poplar run's log -> metrics.

Reads the run's output ($BENCHGATE_RUN_LOG, stdout then stderr) and
prints, in the metrics-file protocol:

    compile_time     "Compiled/Loaded model in 97.9 secs", else the
                     elapsed time of PopTorch's last "Graph compilation:
                     100%|...| 100/100 [00:21<00:00]" progress bar
    throughput       each "Throughput: 1234.5 samples/sec" line
    latency          each "Latency: 1.23 ms" (or "s") line, in ms

A value that is absent is not printed; benchgate then fails the case
naming the metric, as for any missing metric.
"""
import os
import re

COMPILED = re.compile(r"Compiled/Loaded model in ([0-9.]+) secs")
PROGRESS = re.compile(r"Graph compilation: 100%.*?\[((?:\d+:)?\d+:\d+)<")
THROUGHPUT = re.compile(r"[Tt]hroughput:\s*([0-9.eE+-]+)\s*samples/s")
LATENCY = re.compile(r"[Ll]atency:\s*([0-9.eE+-]+)\s*(ms|s)\b")


def seconds(clock):
    total = 0
    for part in clock.split(":"):
        total = total * 60 + int(part)
    return total


def main():
    with open(os.environ["BENCHGATE_RUN_LOG"], errors="replace") as log:
        text = log.read()
    # A progress bar redraws in place: its lines end with '\r'.
    lines = re.split(r"[\r\n]", text)
    compiled = [float(m.group(1)) for m in map(COMPILED.search, lines) if m]
    bars = [seconds(m.group(1)) for m in map(PROGRESS.search, lines) if m]
    if compiled or bars:
        print("compile_time %g s" % (compiled[-1] if compiled else bars[-1]))
    for line in lines:
        m = THROUGHPUT.search(line)
        if m:
            print("throughput %s samples/s" % m.group(1))
        m = LATENCY.search(line)
        if m:
            value = float(m.group(1)) * (1000 if m.group(2) == "s" else 1)
            print("latency %g ms" % value)


if __name__ == "__main__":
    main()
