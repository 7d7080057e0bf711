#!/usr/bin/env bash
# Stages stripped binaries for a GPU machine that lacks the build's libraries' headers:
# .gpu/ (in the checkout) holds gemmtune, the gpu-labelled test binaries and
# gemmtune_runtime_timing. The test binaries find the checkout and the binary relative to
# themselves, so the checkout may sit anywhere there. Carry .gpu/ with the checkout to that
# machine and run tools/gpu-lab/gpu_check.sh (or bench/runtime_timing.sh) there.
set -euo pipefail
cd "$(dirname "$0")/../.."
build_dir=${BUILD_DIR:-build}
rm -rf .gpu && mkdir -p .gpu
for bin in cli/gemmtune tests/gpu/test_gpu_session tests/cli/test_cli_gpu \
    tests/runtime/test_runtime_gpu tests/reliability/test_reliability_faults_gpu \
    bench/gemmtune_runtime_timing; do
  strip -o ".gpu/$(basename "$bin")" "$build_dir/$bin"
done
strip -o .gpu/libgemmtune_runtime.so.0 "$build_dir/src/runtime/libgemmtune_runtime.so.0"
cp scripts/kill_resume_check.sh .gpu/
# GPU_PYTHON: an interpreter of the GPU machine's Python version; the package's wheel for it,
# and pytest's, go to .gpu/wheels (that machine reaches no package index).
if [[ -n "${GPU_PYTHON:-}" ]]; then
  "$GPU_PYTHON" -m pip wheel -q -w .gpu/wheels ./python pytest
fi
du -sh .gpu
