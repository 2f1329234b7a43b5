#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Superseded by bench-overhead.sh, which measures the same against
# hyperfine and a bare spawn loop, and more (start-up, a 10 ms benchmark,
# a peak-memory metric's effect); kept so that old instructions still work.
#
#   tests/perf/overhead.sh [BUILD_DIR] [ROUNDS]
exec "$(dirname "$0")/bench-overhead.sh" "$@"
