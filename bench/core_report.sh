#!/usr/bin/env bash
# The core-suite report's data on a GPU machine, into one cache that can be carried from one
# run to the next (steps that fit several shorter runs).
# Each STEP in turn: `ceilings` (the device's measured ceilings, stored in the cache), `ladder`
# (the seed ladder, as Markdown and the JSON the report draws), or a precision: the core suite,
# its search cut at LIMIT_S seconds (it stops cleanly and keeps the shapes it finished), and its
# exported table. FP8 precisions run the suite's shapes FP8 can take (K a multiple of 16), NT.
#   bench/core_report.sh GEMMTUNE TAG BUDGET LIMIT_S STEP...
#   e.g. bench/core_report.sh .gpu/gemmtune core 3s 240 ceilings ladder bf16 fp16
# Then, anywhere (no GPU needed), the report itself and its screenshot:
#   gemmtune --db CACHE report --ladder STEM-ladder.json --out STEM-report.html
#   chromium --headless --no-sandbox --hide-scrollbars --window-size=1280,4000 \
#     --screenshot=STEM-report.png file://$PWD/STEM-report.html
# Environment: RESULTS (default bench/results), GPU_TAG (default: the device's model, see
# bench/gpu_tag.sh), GEMMTUNE_DB (default RESULTS/TAG.db: keep it out of git), SHAPES (default
# bench/shapes_core.txt).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/gpu_tag.sh
source "$here/gpu_tag.sh"
if [[ $# -lt 5 ]]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 3
fi
G=$1; tag=$2; budget=$3; limit=$4; shift 4
results=${RESULTS:-$here/results}
mkdir -p "$results"
export GEMMTUNE_DB=${GEMMTUNE_DB:-$results/$tag.db}
stem="$results/$(date -u +%Y-%m-%d)-$(gpu_tag)-$tag"
shapes=${SHAPES:-$here/shapes_core.txt}
for precision in "$@"; do
  case $precision in
    ceilings)
      "$G" devices --ceilings > "$stem-ceilings.txt" || echo "core_report.sh: ceilings failed" >&2
      continue ;;
    ladder)
      "$G" ladder --markdown "$stem-ladder.md" --json-out "$stem-ladder.json" > /dev/null ||
        echo "core_report.sh: ladder failed" >&2
      continue ;;
  esac
  suite=$shapes layout=NN
  if [[ $precision == e4m3* ]]; then
    suite=$(mktemp)
    python3 "$here/fp8_shapes.py" "$shapes" > "$suite"
    layout=NT
  fi
  rc=0
  SHAPES=$suite timeout -s INT "$limit" "$here/run.sh" "$G" "$tag-$precision" \
    --precision "$precision" --layout "$layout" --budget "$budget" > /dev/null || rc=$?
  [[ $rc -eq 0 || $rc -eq 130 || $rc -eq 124 ]] || echo "core_report.sh: $precision search exited $rc" >&2
  "$G" export --precision "$precision" --out "$stem-$precision.table.json" ||
    echo "core_report.sh: $precision export failed" >&2
done
