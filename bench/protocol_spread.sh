#!/usr/bin/env bash
# Times each kernel of a list against cuBLAS and cuBLASLt-autotuned in both timing protocols
# (CUDA-graph replay, the figure of record, and the back-to-back stream loop), over interleaved
# rounds, with `gemmtune bench --protocol both --rounds N --json`, one JSON file per line.
# bench/protocol_spread.py turns the files into the dated Markdown and summary JSON.
#   bench/protocol_spread.sh [LIST] [OUT_DIR]     (default bench/lists/protocol_spread.txt, ./gpu-out)
# ROUNDS (default 6), GEMMTUNE (default build/cli/gemmtune).
set -uo pipefail
cd "$(dirname "$0")/.."
list=${1:-bench/lists/protocol_spread.txt}
out=${2:-gpu-out}
rounds=${ROUNDS:-6}
g=${GEMMTUNE:-build/cli/gemmtune}
mkdir -p "$out"
n=0
grep -v '^#' "$list" | while read -r shape precision kernel; do
  [[ -n "$shape" ]] || continue
  n=$((n + 1))
  file="$out/spread-$(printf '%02d' "$n")-$precision-$shape.json"
  echo "protocol_spread: $shape $precision $kernel" >&2
  "$g" --json bench --shape "$shape" --precision "$precision" --kernel "$kernel" \
    --protocol both --rounds "$rounds" > "$file" 2> "${file%.json}.log"
  echo "  exit $? -> $file" >&2
done
