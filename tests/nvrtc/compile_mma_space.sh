#!/usr/bin/env bash
# Compiles every distinct kernel of the mma family's valid spaces (fp16, bf16, tf32; every
# layout; 4096³ and a ragged unaligned shape) with NVRTC for each arch given, printing registers
# and spills per kernel; fails if any kernel spills or fails to compile. GEMMTUNE_SPACE_FILTER
# keeps only ids containing that text, GEMMTUNE_SPACE_PRECISION only one precision (fp16, bf16, tf32).
#   [GEMMTUNE_SPACE_FILTER=WM=64,WN=64] tests/nvrtc/compile_mma_space.sh [BUILD_DIR] [ARCH...]
# e.g. tests/nvrtc/compile_mma_space.sh build sm_80 sm_86 sm_89 sm_90
set -euo pipefail
build_dir=${1:-build}
shift || true
archs=("$@")
if [[ ${#archs[@]} -eq 0 ]]; then archs=(sm_80 sm_86 sm_89 sm_90); fi
binary=$(find "$build_dir" -type f -name test_mma_compile -perm -u+x | head -n 1)
if [[ -z "$binary" ]]; then
  echo "test_mma_compile not found under '$build_dir' (build the target test_mma_compile first)" >&2
  exit 1
fi
for arch in "${archs[@]}"; do
  GEMMTUNE_SPACE_ARCH=$arch "$binary" --gtest_also_run_disabled_tests \
    --gtest_filter='MmaCompileWholeSpace.*'
done
