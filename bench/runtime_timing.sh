#!/usr/bin/env bash
# Runs gemmtune_runtime_timing on a GPU machine: Runtime::gemm against the tuner's timing of the
# same kernel for every entry of a tuning table for this GPU (issue 7: within 2 %). Writes
# bench/results/<date>-<gpu>-runtime-timing.json and .md.
#   bench/runtime_timing.sh TIMING_BIN SOURCE [options of gemmtune_runtime_timing...]
# SOURCE is a tuning table (*.json) or a tuning cache (*.db), which is exported with GEMMTUNE
# (default: gemmtune next to TIMING_BIN, else on PATH) first.
#   e.g. bench/runtime_timing.sh .gpu/gemmtune_runtime_timing gpu-out/cache.db --precision fp16
# Environment: RESULTS (default bench/results), GPU_TAG (default: the device's model, see
# bench/gpu_tag.sh), GEMMTUNE.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/gpu_tag.sh
source "$here/gpu_tag.sh"
if [[ $# -lt 2 ]]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 3
fi
bin=$1; source=$2; shift 2
bin_dir=$(cd "$(dirname "$bin")" && pwd)
# A staged binary finds libgemmtune_runtime.so.0 beside it.
export LD_LIBRARY_PATH="$bin_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
results=${RESULTS:-$here/results}
mkdir -p "$results"
stem="$results/$(date -u +%Y-%m-%d)-$(gpu_tag)-runtime-timing"

case "$source" in
  *.db)
    g=${GEMMTUNE:-}
    if [[ -z "$g" ]]; then
      if [[ -x "$bin_dir/gemmtune" ]]; then
        g="$bin_dir/gemmtune"
      else
        g=$(command -v gemmtune) || { echo "runtime_timing.sh: no gemmtune to export $source; set GEMMTUNE" >&2; exit 3; }
      fi
    fi
    table="$stem.table.json"
    # Export from a copy: opening a cache may upgrade its schema, and results files stay as kept.
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    cp "$source" "$scratch/cache.db"
    "$g" --db "$scratch/cache.db" export --out "$table"
    ;;
  *) table=$source ;;
esac

status=0
"$bin" "$table" --json-out "$stem.json" --markdown "$stem.md" "$@" || status=$?
# 1 means some entry did not compare cleanly: the files still hold every row.
if [[ $status -ne 0 && $status -ne 1 ]]; then
  echo "runtime_timing.sh: gemmtune_runtime_timing exited with $status" >&2
  exit $status
fi
[[ " $* " == *" --dry-run "* ]] || echo "wrote $stem.json and $stem.md"
exit $status
