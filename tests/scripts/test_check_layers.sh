#!/usr/bin/env bash
# scripts/check_layers.sh accepts this checkout and rejects each kind of violation it names,
# planted one at a time in a small tree of its own.
set -uo pipefail
check=$(cd "$(dirname "$0")/../.." && pwd)/scripts/check_layers.sh
repo=$(cd "$(dirname "$0")/../.." && pwd)
failures=0
base=$(mktemp -d)
trap 'rm -rf "$base"' EXIT
expect() {  # expect <want-rc> <pattern> <tree>
  local want=$1 pattern=$2 tree=$3 out rc
  out=$("$check" "$tree" "$tree/no-build" 2>&1)
  rc=$?
  if [[ $rc -ne $want ]] || ! grep -q -- "$pattern" <<<"$out"; then
    echo "FAIL: want rc $want and '$pattern', got rc $rc:" >&2
    echo "$out" >&2
    failures=$((failures + 1))
  fi
}
plant() {  # plant <file> <line>: a fresh minimal tree with one extra line in <file>
  local tree
  tree=$(mktemp -d -p "$base")
  mkdir -p "$tree"/src/core "$tree"/src/gpu "$tree"/src/runtime "$tree"/tuner/search "$tree"/db "$tree"/cli
  touch "$tree"/src/core/a.hpp "$tree"/src/gpu/g.hpp "$tree"/tuner/search/s.hpp "$tree"/db/d.hpp
  echo '#include "src/core/a.hpp"' > "$tree"/src/core/a.cpp
  [[ -n $1 ]] && echo "$2" >> "$tree/$1"
  echo "$tree"
}
expect 0 "check_layers: ok" "$repo"
expect 0 "check_layers: ok" "$(plant "" "")"
expect 1 "src/ includes tuner/" "$(plant src/core/a.cpp '#include "tuner/search/s.hpp"')"
expect 1 "src/ includes db/" "$(plant src/runtime/r.cpp '#include "db/d.hpp"')"
expect 1 "tuner/ includes db/" "$(plant tuner/search/s.cpp '#include "db/d.hpp"')"
expect 1 "db/ includes tuner/" "$(plant db/d.cpp '#include "tuner/search/s.hpp"')"
expect 1 "does not name its owner" "$(plant tuner/search/s.cpp '#include "s.hpp"')"
expect 1 "is not a file of the tree" "$(plant cli/c.cpp '#include "src/core/missing.hpp"')"
expect 1 "worker-only src/gpu/" "$(plant src/runtime/r.cpp '#include "src/gpu/g.hpp"')"
expect 1 "src/core includes <cuda_runtime_api.h>" "$(plant src/core/a.cpp '#include <cuda_runtime_api.h>')"
expect 1 "<sqlite3.h> outside db/" "$(plant tuner/search/s.cpp '#include <sqlite3.h>')"
expect 1 "CLI11 outside cli/" "$(plant src/core/a.cpp '#include <CLI/CLI.hpp>')"
if ((failures)); then
  echo "test_check_layers: $failures case(s) failed" >&2
  exit 1
fi
echo "test_check_layers: all cases passed"
