#!/usr/bin/env bash
# Builds gemmtune at a revision (default HEAD) in a worktree and stages its stripped binary in
# .gpu-old/, for an A/B of kernel changes against the working tree's build on the GPU machine:
# carry .gpu and .gpu-old, then `tools/gpu-lab/gpu_check.sh ab-list=FILE`.
#   tools/gpu-lab/stage_old.sh [REV]
set -euo pipefail
cd "$(dirname "$0")/../.."
rev=${1:-HEAD}
wt=${WORKTREE:-${TMPDIR:-/tmp}/gemmtune-old}
if [[ -e "$wt" ]]; then
  git worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
fi
git worktree prune
git worktree add -q --detach "$wt" "$rev"
cmake -S "$wt" -B "$wt/build" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$wt/build" -j"$(nproc)" --target gemmtune > /dev/null
rm -rf .gpu-old && mkdir -p .gpu-old
strip -o .gpu-old/gemmtune "$wt/build/cli/gemmtune"
git -C "$wt" rev-parse --short HEAD > .gpu-old/REVISION
echo "staged gemmtune at $(cat .gpu-old/REVISION) in .gpu-old/"
