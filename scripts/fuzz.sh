#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ with clang++-14 (ASan + UBSan) outside the CMake
# build, and runs each for a set time on a copy of its seed corpus (tests/fuzz/corpus/<target>/).
#   scripts/fuzz.sh [seconds per target, default 60] [target ...]   targets: tuning_table kernel_id shape frame
# Crashing inputs land in $FUZZ_DIR/artifacts/<target>/; keep each one as a regression case in
# tests/fuzz/regressions/<target>/ (replayed by the unit test test_fuzz_replay) once it is fixed.
# Needs clang-14 and libclang-rt-14-dev; CI does not (the replay test builds with g++).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(tuning_table kernel_id shape frame)
FUZZ_DIR="${FUZZ_DIR:-build-fuzz}"
CXX="${FUZZ_CXX:-clang++-14}"
command -v "$CXX" >/dev/null || { echo "fuzz.sh: $CXX not found (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 1; }

mkdir -p "$FUZZ_DIR/obj"
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=undefined -I.)
core=(precision problem kernel_config disposition gpu_identity tuning_table file_output vendor_kernel
      json_structure)
objs=()
for c in "${core[@]}"; do
  obj="$FUZZ_DIR/obj/$c.o"
  if [ ! -f "$obj" ] || [ "src/core/$c.cpp" -nt "$obj" ]; then
    "$CXX" "${flags[@]}" -c "src/core/$c.cpp" -o "$obj"
  fi
  objs+=("$obj")
done
# The worker frame reader (the frame target) lives in the worker's protocol file.
obj="$FUZZ_DIR/obj/worker_protocol.o"
if [ ! -f "$obj" ] || [ tuner/worker/worker_protocol.cpp -nt "$obj" ]; then
  "$CXX" "${flags[@]}" -c tuner/worker/worker_protocol.cpp -o "$obj"
fi
objs+=("$obj")

declare -A max_len=([tuning_table]=65536 [kernel_id]=2048 [shape]=256 [frame]=65536)
summary=()
status=0
for t in "${targets[@]}"; do
  [ -f "tests/fuzz/fuzz_$t.cpp" ] || { echo "fuzz.sh: unknown target '$t' (expected tuning_table, kernel_id, shape or frame)" >&2; exit 2; }
  bin="$FUZZ_DIR/fuzz_$t"
  "$CXX" "${flags[@]/fuzzer-no-link/fuzzer}" "tests/fuzz/fuzz_$t.cpp" "${objs[@]}" -o "$bin"
  work="$FUZZ_DIR/corpus/$t"
  art="$FUZZ_DIR/artifacts/$t/"
  mkdir -p "$work" "$art"
  log="$FUZZ_DIR/fuzz_$t.log"
  set +e
  "$bin" -max_total_time="$seconds" -max_len="${max_len[$t]}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$art" "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  crashes=$(find "$art" -type f | wc -l)
  summary+=("$t: ${seconds} s, ${runs} inputs, exit $rc, ${crashes} crashing input(s) in $art")
  [ "$rc" -ne 0 ] && status=1
done
printf '%s\n' "${summary[@]}"
exit $status
