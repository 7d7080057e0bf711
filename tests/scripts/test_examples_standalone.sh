#!/usr/bin/env bash
# examples/ builds on its own against the installed package, as an application's project would:
# the runtime component installed into a fresh prefix, then examples/ configured and built with
# only that prefix on CMAKE_PREFIX_PATH.
#   tests/scripts/test_examples_standalone.sh BUILD_DIR
set -euo pipefail
build=$(realpath "${1:?usage: test_examples_standalone.sh BUILD_DIR}")
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" --component runtime > "$work/install.log"
cmake -S "$root/examples" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/configure.log" ||
  { cat "$work/configure.log" >&2; exit 1; }
cmake --build "$work/build" > "$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
[[ -x "$work/build/runtime_gemm" ]] || { echo "no runtime_gemm built" >&2; exit 1; }
# The example links the installed library, not the build tree's.
# (ldd's output is read whole first: grep -q stops at the first match, and under pipefail the
# writer's SIGPIPE would fail the pipeline.)
libs=$(ldd "$work/build/runtime_gemm")
[[ $libs == *"$work/prefix/"* ]] ||
  { echo "runtime_gemm does not link the installed library:" >&2; echo "$libs" >&2; exit 1; }
echo "examples/ built against $work/prefix"
