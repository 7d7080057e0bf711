#!/usr/bin/env bash
# Installs what gemmtune needs on Debian 12 (the CUDA 13 toolkit is expected under
# /usr/local/cuda or $CUDA_HOME). Installs only what is missing; needs root or sudo for apt.
set -euo pipefail

packages=(cmake g++ make libcli11-dev nlohmann-json3-dev libsqlite3-dev libgtest-dev libxxhash-dev help2man chromium
          python3-dev python3-venv)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  echo "setup: installing ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cuda_home=${CUDA_HOME:-/usr/local/cuda}
if [[ ! -f "$cuda_home/include/nvrtc.h" ]]; then
  echo "setup: the CUDA toolkit (12.0 or newer, with NVRTC and cuBLAS) was not found in $cuda_home;" \
       "install it or set CUDA_HOME" >&2
  exit 1
fi
