#!/usr/bin/env bash
# bench/gpu_tag.sh: the results stem's GPU part comes from GPU_TAG, else from the device's name
# (a fake nvidia-smi on PATH stands in for each board), else "gpu" without nvidia-smi.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=bench/gpu_tag.sh
source "$root/bench/gpu_tag.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
expect() {  # expect NAME WANT: the tag of a board nvidia-smi names NAME
  printf '#!/bin/sh\necho "%s"\n' "$1" > "$tmp/nvidia-smi"
  chmod +x "$tmp/nvidia-smi"
  local got
  got=$(PATH="$tmp:$PATH" gpu_tag)
  if [[ "$got" != "$2" ]]; then
    echo "FAIL: '$1' -> '$got', expected '$2'"
    fails=$((fails + 1))
  fi
}
unset GPU_TAG
expect "NVIDIA H200" h200
expect "NVIDIA H100 80GB HBM3" h100
expect "NVIDIA A100-SXM4-80GB" a100
expect "NVIDIA L40S" l40s
expect "NVIDIA GeForce RTX 4090" nvidia-geforce-rtx-4090
# GPU_TAG wins over the device.
got=$(GPU_TAG=mybox PATH="$tmp:$PATH" gpu_tag)
[[ "$got" == mybox ]] || { echo "FAIL: GPU_TAG ignored: '$got'"; fails=$((fails + 1)); }
# No nvidia-smi at all: a PATH of the tools gpu_tag uses and nothing else.
mkdir "$tmp/bare"
for tool in head grep tr sed; do ln -s "$(command -v "$tool")" "$tmp/bare/$tool"; done
got=$(PATH="$tmp/bare" gpu_tag)
[[ "$got" == gpu ]] || { echo "FAIL: without nvidia-smi: '$got'"; fails=$((fails + 1)); }
if ((fails > 0)); then
  exit 1
fi
echo "gpu_tag: all cases passed"
