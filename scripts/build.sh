#!/usr/bin/env bash
# Configures and builds gemmtune into ./build (or $BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
cuda_home=${CUDA_HOME:-/usr/local/cuda}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} \
  -DCUDAToolkit_ROOT="$cuda_home" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
