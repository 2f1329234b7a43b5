#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# Makes the dashboard's screenshots in docs/images/ (dashboard-index.png,
# dashboard-series.png) from a demo repository: a suite of three variants
# measured at 30 commits with `benchgate run`, a slowdown of the original
# variant at one commit and its fix later, then `benchgate publish`, and
# headless Chromium driven by tests/e2e/browse_page.py (the series page
# shot with the pointer on the slow commit).
#
# usage: docs/images/dashboard-screenshots.sh BENCHGATE [CHROMIUM]
set -eu

benchgate=$(realpath "$1")
chromium=${2:-${BENCHGATE_CHROMIUM:-chromium}}
images=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$images/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

cd "$work"
git init -q -b main
git config user.email ci@example.com
git config user.name "Nightly CI"

cat >suite.json <<'EOF'
{ "benchgate": 1, "suite": "cnn",
  "defaults": { "warmup": 0, "runs": 5 },
  "variants": { "original": { "vars": { "v": "original" } },
                "fp16": { "vars": { "v": "fp16" } },
                "int8": { "vars": { "v": "int8" } } },
  "benchmarks": [{ "name": "resnet18-batch8",
    "command": ["python3", "bench.py", "${v}"],
    "metrics": [
      { "name": "latency", "from": "metrics", "key": "latency_ms",
        "unit": "ms", "better": "lower" },
      { "name": "throughput", "from": "metrics", "key": "throughput",
        "unit": "images/s", "better": "higher" } ] }] }
EOF
# The level of each variant comes from the commit's slow.txt: the slowdown
# of the preprocessing, which only the original variant runs in Python.
cat >bench.py <<'EOF'
import json, os, random, sys
variant = sys.argv[1]
slow = float(open("slow.txt").read())
base = {"original": 41.0, "fp16": 23.5, "int8": 14.2}[variant]
latency = base * (slow if variant == "original" else 1.0)
latency *= random.gauss(1.0, 0.004)
with open(os.environ["BENCHGATE_METRICS_FILE"], "w") as f:
    json.dump({"latency_ms": latency, "throughput": 8000.0 / latency}, f)
EOF

i=0
while [ $i -lt 30 ]; do
	slow=1.0
	subject="Nightly: model code tidy-up $i"
	if [ $i -ge 14 ] && [ $i -lt 23 ]; then slow=1.18; fi
	if [ $i -eq 14 ]; then subject="Preprocessing: resize with PIL in Python"; fi
	if [ $i -eq 23 ]; then subject="Preprocessing: back to torchvision resize"; fi
	echo "$slow" >slow.txt
	git add -A
	git commit -q -m "$subject"
	"$benchgate" run suite.json --quiet >/dev/null
	i=$((i + 1))
done
"$benchgate" publish --out site

page=$(ls site/series/*_resnet18-batch8_original_cpu_latency-*.html)
python3 "$root/tests/e2e/browse_page.py" "$chromium" "$work/profile" \
	site/index.html screenshot "$images/dashboard-index.png"
python3 "$root/tests/e2e/browse_page.py" "$chromium" "$work/profile" \
	"$page" hover "#points g.pt:nth-child(15) circle" \
	screenshot "$images/dashboard-series.png"
echo "wrote $images/dashboard-index.png and $images/dashboard-series.png"
