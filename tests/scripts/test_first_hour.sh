#!/usr/bin/env bash
# A new user's first hour without a GPU, in the order docs/commands.md shows the commands: each
# documented command that needs no GPU runs as printed (or with a bounded budget where the
# printed one takes minutes), exits with the documented code, and its --json output parses as
# JSON and its --csv output as CSV with a header row.
#   tests/scripts/test_first_hour.sh GEMMTUNE_BINARY
set -uo pipefail
G=$(realpath "${1:?usage: test_first_hour.sh GEMMTUNE_BINARY}")
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GEMMTUNE_DB=$work/cache.db GEMMTUNE_CUBIN_CACHE=$work/cubins XDG_CACHE_HOME=$work/xdg
cd "$work"
failures=0

# expect RC COMMAND...: runs it, stdout to out.txt, stderr to err.txt; a wrong exit code fails.
expect() {
  local want=$1
  shift
  "$@" > out.txt 2> err.txt
  local got=$?
  if [[ $got -ne $want ]]; then
    echo "FAIL: '$*' exited $got, expected $want: $(head -c 300 err.txt)" >&2
    failures=$((failures + 1))
    return 1
  fi
  echo "ok ($got): $*"
}
# json_ok WHAT...: out.txt parses as JSON (JSON_FILE=F json_ok ...: F does); csv_ok WHAT...:
# out.txt parses as CSV of a header and at least one row, all of the header's width.
json_ok() {
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "${JSON_FILE:-out.txt}" 2> parse.txt ||
    { echo "FAIL: '$*' printed no valid JSON: $(head -c 300 parse.txt)" >&2; failures=$((failures + 1)); }
}
csv_ok() {
  python3 - <<'PY' 2> parse.txt || { echo "FAIL: '$*' printed no valid CSV: $(head -c 300 parse.txt)" >&2; failures=$((failures + 1)); }
import csv, sys
rows = list(csv.reader(open("out.txt", newline="")))
assert len(rows) >= 2, f"{len(rows)} rows"
assert all(len(r) == len(rows[0]) for r in rows), "ragged rows"
PY
}

expect 0 "$G" --version
expect 0 "$G" --help
# Before anything is tuned: "no result" (3) with a line that says what to do.
expect 3 "$G" query --shape 4096x4096x4096 --precision fp32
grep -q "run gemmtune search first" err.txt || { echo "FAIL: no hint on an empty cache" >&2; failures=$((failures + 1)); }
expect 1 "$G" devices  # no GPU here: an error, with the driver's reason
# Strategies against a stored search, no GPU.
replay=(replay --from "$root/tests/data/replay/h200-fp32-ladder-1024-4096.jsonl" --strategy random,evolution --budget 20,50,30s --seeds 20)
expect 0 "$G" "${replay[@]}"
expect 0 "$G" --json "${replay[@]}" && json_ok replay --json
expect 0 "$G" "${replay[@]}" --csv && csv_ok replay --csv
# The dry run, bounded (the whole space of the printed example takes minutes on two cores).
dry=(search --dry-run --arch sm_86 --shape 4096x4096x4096 --precision fp32 --max-configs 8 -q)
expect 0 "$G" "${dry[@]}"
expect 0 "$G" "${dry[@]}" --json && json_ok search --dry-run --json
expect 0 "$G" "${dry[@]}" --csv && csv_ok search --dry-run --csv
expect 0 "$G" search --dry-run --list --arch sm_86 --shape 4096x4096x4096 --precision fp16 --family mma --max-configs 4 -q --csv &&
  csv_ok search --dry-run --list --csv
# A table from elsewhere: import it, then what the cache holds.
table=$root/bench/results/2026-12-02-h200-bf16-f-a.table.json
expect 0 "$G" import "$table"
expect 0 "$G" list gpus
expect 0 "$G" list shapes --json && json_ok list shapes --json
expect 0 "$G" list shapes --csv && csv_ok list shapes --csv
expect 0 "$G" list trials --shape 4096x4096x4096 --precision bf16 --csv && csv_ok list trials --csv
expect 0 "$G" list searches
# The default precision is fp32: the empty answer names the precision the cache has.
expect 3 "$G" list trials --shape 4096x4096x4096
grep -q "in bf16 NN" err.txt || { echo "FAIL: no other-precision hint" >&2; failures=$((failures + 1)); }
expect 0 "$G" query --shape 4096x4096x4096 --precision bf16
expect 0 "$G" query --shape 4096x4096x4096 --precision bf16 --json && json_ok query --json
expect 0 "$G" query --shape 4096x4096x4096 --precision bf16 --csv && csv_ok query --csv
expect 0 "$G" query --table "$table" --shape 4096x4096x4096 --precision bf16 --gpu "NVIDIA H200"
expect 0 "$G" export --out table.json && JSON_FILE=table.json json_ok export
expect 0 "$G" import table.json
expect 0 "$G" check
expect 0 "$G" cache-mode shared
expect 0 "$G" show "warptile:BM=128,BN=128,BK=16,WM=64,WN=64,WNITER=4,TM=8,TN=4,NUM_THREADS=128"
expect 0 "$G" emit "warptile:BM=128,BN=128,BK=16,WM=64,WN=64,WNITER=4,TM=8,TN=4,NUM_THREADS=128" --shape 4096x4096x4096 --out k.cu
[[ -s k.cu ]] || { echo "FAIL: emit wrote no k.cu" >&2; failures=$((failures + 1)); }
expect 0 "$G" space --family warptile --precision fp32 --shape 4096x4096x4096 --arch sm_90
expect 0 "$G" space --family warptile --precision fp32 --shape 4096x4096x4096 --arch sm_90 --csv &&
  csv_ok space --csv
expect 0 "$G" space --family mma --precision fp16 --arch sm_86 --list --rejected --json && json_ok space --json
# Usage errors are 2.
expect 2 "$G" query --shape 4096x4096 --precision fp32
expect 2 "$G" list trials --json --csv

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "first hour: every command as documented"
