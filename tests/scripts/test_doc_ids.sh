#!/usr/bin/env bash
# Every kernel id a reader can copy from the documentation is one gemmtune accepts: each id in
# `gemmtune --help`, in every subcommand's --help, in the example of the bad-id error, in
# README.md, docs/*.md and examples/ is shown by `gemmtune show ID` (exit 0; our families' ids
# canonicalised, vendor ids validated).
#   tests/scripts/test_doc_ids.sh GEMMTUNE_BINARY
set -uo pipefail
G=$(realpath "${1:?usage: test_doc_ids.sh GEMMTUNE_BINARY}")
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GEMMTUNE_DB=$work/cache.db GEMMTUNE_CUBIN_CACHE=$work/cubins XDG_CACHE_HOME=$work/xdg

# The subcommands, from the top-level help's list (an alias after a comma is the same command).
"$G" --help > "$work/help.txt" || { echo "FAIL: gemmtune --help exited $?" >&2; exit 1; }
mapfile -t subcommands < <(sed -n '/^Subcommands:/,$p' "$work/help.txt" | tail -n +2 |
                           awk 'NF { sub(/,$/, "", $1); print $1 }')
[[ ${#subcommands[@]} -ge 10 ]] || { echo "FAIL: found only ${#subcommands[@]} subcommands" >&2; exit 1; }
for c in "${subcommands[@]}"; do
  "$G" "$c" --help >> "$work/help.txt" || { echo "FAIL: gemmtune $c --help exited $?" >&2; exit 1; }
done
# The error for a malformed id shows an example id too.
"$G" show 'naive' >> "$work/help.txt" 2>&1
families=$("$G" --json space --shape 64x64x64 --precision fp32 | python3 -c '
import json, sys
print("|".join(f["family"] for f in json.load(sys.stdin)["families"]))')
families="$families|mma|wgmma|cublaslt|cublas"
cat "$work/help.txt" "$root/README.md" "$root"/docs/*.md "$root"/examples/* 2> /dev/null |
  grep -o -E "\\b($families):[A-Za-z0-9_=,]+" | sed 's/,$//' | sort -u > "$work/ids.txt"
count=$(wc -l < "$work/ids.txt")
[[ $count -ge 10 ]] || { echo "FAIL: found only $count ids in the documentation" >&2; exit 1; }
failures=0
while read -r id; do
  if ! "$G" show "$id" > "$work/out.txt" 2> "$work/err.txt"; then
    echo "FAIL: a documented id is refused: $id: $(head -c 300 "$work/err.txt")" >&2
    failures=$((failures + 1))
  fi
done < "$work/ids.txt"
echo "$count documented ids checked, $failures refused"
[[ $failures -eq 0 ]]
