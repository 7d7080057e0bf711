#!/usr/bin/env bash
# Tunes a shape suite with gemmtune and writes bench/results/<date>-<gpu>-<what>.json plus a
# Markdown table: best kernel, TFLOP/s, % of peak (or GB/s for memory-bound shapes), ratio to
# cuBLAS and cuBLASLt-autotuned timed in the same worker, tuning wall time.
#   bench/run.sh GEMMTUNE WHAT [search options...]
#   e.g. bench/run.sh build/cli/gemmtune fp32 --precision fp32 --family simt
# Environment: SHAPES (a shapes file; default bench/shapes_core.txt),
# RESULTS (default bench/results), GPU_TAG (default: the device's model, bench/gpu_tag.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/gpu_tag.sh
source "$here/gpu_tag.sh"
G=$1; what=$2; shift 2
shapes=${SHAPES:-$here/shapes_core.txt}
[[ -f "$shapes" ]] || { echo "bench/run.sh: no shapes file $shapes" >&2; exit 2; }
# The search records its command line with the results (the report's provenance): a shapes file
# inside the current directory is named relative to it, so the record reads the same on any
# machine.
shapes=$(realpath --relative-base=. "$shapes")
results=${RESULTS:-$here/results}
mkdir -p "$results"
stem="$results/$(date -u +%Y-%m-%d)-$(gpu_tag)-$what"
start=$(date +%s)
# Exit 3 (a problem without a verified result) and 130 (interrupted: the search stops cleanly and
# reports what it finished) still leave a report worth summarising.
rc=0
"$G" --json search --shapes-file "$shapes" "$@" > "$stem.search.json" || rc=$?
[[ $rc -eq 0 || $rc -eq 3 || $rc -eq 130 ]] || exit $rc
end=$(date +%s)
"$G" --json devices > "$stem.device.json"
python3 "$here/summarize.py" "$stem.search.json" "$stem.device.json" "$((end - start))" \
  "$stem.json" "$stem.md" "$*"
cat "$stem.md"
[[ $rc -ne 130 ]] || echo "bench/run.sh: the search was interrupted; the record holds the shapes it finished" >&2
exit $(( rc == 130 ? 130 : 0 ))
