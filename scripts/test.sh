#!/usr/bin/env bash
# Sets up, builds and runs the tests that need no GPU (labels unit and nvrtc).
# On a GPU machine, `ctest --test-dir build -L gpu` runs the GPU tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" -L "unit|nvrtc" --no-tests=error --output-on-failure \
  -j "$(nproc)" --timeout 900
scripts/check_no_libcuda.sh "${BUILD_DIR:-build}"
scripts/test_python.sh
scripts/check_layers.sh . "${BUILD_DIR:-build}"
