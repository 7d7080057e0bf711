#!/usr/bin/env bash
# One precision of a shape suite end to end on a GPU machine, inside a time limit: the search
# (vendor algorithms as candidates), its record (bench/run.sh), the exported table, and the
# runtime's timing of every table entry against the table (bench/runtime_timing.sh).
#   bench/vendor_suite.sh GEMMTUNE TIMING_BIN WHAT PRECISION BUDGET SEARCH_LIMIT_S [search options...]
#   e.g. bench/vendor_suite.sh .gpu/gemmtune .gpu/gemmtune_runtime_timing bf16-core bf16 4s 215
# The search gets SIGINT at SEARCH_LIMIT_S (it stops cleanly and reports the shapes it finished).
# Environment: SHAPES, RESULTS, GPU_TAG as bench/run.sh; GEMMTUNE_DB is the cache (one per
# precision keeps the tables apart; default $RESULTS/WHAT.db).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/gpu_tag.sh
source "$here/gpu_tag.sh"
if [[ $# -lt 6 ]]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 3
fi
G=$1; timing=$2; what=$3; precision=$4; budget=$5; limit=$6; shift 6
results=${RESULTS:-$here/results}
mkdir -p "$results"
export GEMMTUNE_DB=${GEMMTUNE_DB:-$results/$what.db}
gpu=$(gpu_tag)
stem="$results/$(date -u +%Y-%m-%d)-$gpu-$what"
rc=0
timeout -s INT "$limit" "$here/run.sh" "$G" "$what" --precision "$precision" --budget "$budget" "$@" \
  > /dev/null || rc=$?
[[ $rc -eq 0 || $rc -eq 130 || $rc -eq 124 ]] || { echo "vendor_suite.sh: search exited $rc" >&2; exit $rc; }
"$G" export --precision "$precision" --out "$stem.table.json" || exit $?
RESULTS=$results GPU_TAG="$gpu-$what" "$here/runtime_timing.sh" "$timing" "$stem.table.json"
