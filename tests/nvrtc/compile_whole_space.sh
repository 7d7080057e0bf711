#!/usr/bin/env bash
# Compiles every valid config of the kernel families (for the 4096³ benchmark shape, layouts
# rotating) with NVRTC for one arch, printing registers/spills per config and counts per family.
#   tests/nvrtc/compile_whole_space.sh [BUILD_DIR] [ARCH] [FAMILIES]
# e.g. tests/nvrtc/compile_whole_space.sh build sm_90 warptile
set -euo pipefail
build_dir=${1:-build}
arch=${2:-sm_90}
families=${3:-all}
binary=$(find "$build_dir" -type f -name test_family_compile -perm -u+x | head -n 1)
if [[ -z "$binary" ]]; then
  echo "test_family_compile not found under '$build_dir' (build the target test_family_compile first)" >&2
  exit 1
fi
GEMMTUNE_SPACE_ARCH=$arch GEMMTUNE_SPACE_FAMILY=$families \
  "$binary" --gtest_also_run_disabled_tests --gtest_filter='FamilyCompileWholeSpace.*'
