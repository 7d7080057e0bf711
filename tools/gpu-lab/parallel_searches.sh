#!/usr/bin/env bash
# On a GPU machine with several GPUs, after tools/gpu-lab/stage_gpu.sh: one bench/run.sh search
# per GPU at the same time, each in its own worker, cache and cubin cache, so every ratio still
# comes from one GPU timing gemmtune, cuBLAS and cuBLASLt in one process. Output under $OUT.
#   tools/gpu-lab/parallel_searches.sh WHAT:PRECISION [WHAT:PRECISION ...]   (GPU i runs the i-th)
# e.g. tools/gpu-lab/parallel_searches.sh fp32:fp32 bf16:bf16
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
out=${OUT:-$root/gpu-out}
mkdir -p "$out"
OUT=$out bash "$here/gpu_check.sh" devices > "$out/devices.txt" 2>&1  # stages the binaries
G=$root/build/cli/gemmtune
gpu=0
for spec in "$@"; do
  what=${spec%%:*}
  precision=${spec##*:}
  CUDA_VISIBLE_DEVICES=$gpu GEMMTUNE_DB="$out/$what.db" GEMMTUNE_CUBIN_CACHE="${TMPDIR:-/tmp}/cubins-$gpu" \
    RESULTS="$out" SHAPES="$root/bench/shapes_core.txt" \
    bench/run.sh "$G" "$what" --precision "$precision" > "$out/$what.log" 2>&1 &
  gpu=$((gpu + 1))
done
wait
for spec in "$@"; do
  what=${spec%%:*}
  echo "=== $what"
  tail -18 "$out/$what.log"
done
