#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""benchgate extractor: PopVision profile -> metrics (README, "Bridges").

Run by benchgate after each measured run ("from": "command"). bench.py
asks Poplar to write its reports into $BENCHGATE_RUN_DIR/popvision; this
opens the profile.pop found there with libpva, the Poplar SDK's PopVision
analysis module, and prints the metrics-file protocol on stdout:

    total_cycles          cycles of the last execution, the busiest tile's
    tile_memory_bytes     memory of all tiles, gaps excluded
    max_tile_memory_bytes the fullest tile, gaps excluded
    exchange_bytes        bytes moved by the exchange programs executed

The libpva attributes used are those of Graphcore's public libpva
documentation and examples; they were exercised here against a stand-in
module only (tests/fixtures/pva), not on IPU hardware.
"""
import glob
import os
import sys


def find_profile(run_dir):
    found = sorted(glob.glob(os.path.join(run_dir, "**", "profile.pop"),
                             recursive=True))
    if not found:
        sys.exit("extract_popvision: no profile.pop under %s (did the run "
                 "set POPLAR_ENGINE_OPTIONS autoReport.directory there?)"
                 % run_dir)
    return found[-1]


def busiest_tile_cycles(run):
    """Cycles of one execution: the busiest tile's sum over the steps."""
    per_tile = None
    for step in run.steps:
        cycles = list(step.cyclesByTile)
        per_tile = cycles if per_tile is None else [
            a + b for a, b in zip(per_tile, cycles)]
    return max(per_tile) if per_tile else 0


def exchange_bytes(run):
    total = 0
    for step in run.steps:
        program = step.program
        if program.type == pva.Program.Type.DoExchange:
            total += program.totalData
    return total


def main():
    report = pva.openReport(find_profile(os.environ["BENCHGATE_RUN_DIR"]))
    tiles = [tile.memory.total.excludingGaps
             for tile in report.compilation.tiles]
    runs = report.execution.runs
    if not runs:
        sys.exit("extract_popvision: the profile has no execution (enable "
                 "autoReport.outputExecutionProfile)")
    print("total_cycles %d cycles" % busiest_tile_cycles(runs[-1]))
    print("tile_memory_bytes %d B" % sum(tiles))
    print("max_tile_memory_bytes %d B" % max(tiles))
    print("exchange_bytes %d B" % exchange_bytes(runs[-1]))


if __name__ == "__main__":
    try:
        import pva
    except ImportError:
        sys.exit("extract_popvision: cannot import pva; source the Poplar "
                 "SDK's enable.sh (it puts libpva on PYTHONPATH)")
    main()
