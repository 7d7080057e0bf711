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

# cuobjdump and nvdisasm, for the SASS checks of the nvrtc tests (which instructions a kernel
# issues, that it spills nothing): the toolkit's where it has them, else NVIDIA's wheels of
# them from PyPI, unpacked into .tools/sass of the checkout. Without either the checks are
# skipped, and the tests say so.
sass_dir=$(cd "$(dirname "$0")/.." && pwd)/.tools/sass
sass_version=13.5.37
if [[ ! -x "$cuda_home/bin/cuobjdump" || ! -x "$cuda_home/bin/nvdisasm" ]] &&
   [[ ! -x "$sass_dir/cuobjdump" || ! -x "$sass_dir/nvdisasm" ]]; then
  echo "setup: fetching cuobjdump and nvdisasm $sass_version into $sass_dir" >&2
  tmp=$(mktemp -d)
  if python3 -m venv "$tmp/venv" &&
     "$tmp/venv/bin/python" -m pip download -q --no-deps -d "$tmp/wheels" \
       "nvidia-cuda-cuobjdump==$sass_version" "nvidia-cuda-nvdisasm==$sass_version"; then
    mkdir -p "$sass_dir"
    for wheel in "$tmp"/wheels/*.whl; do
      python3 -m zipfile -e "$wheel" "$tmp/unpacked"
    done
    for tool in cuobjdump nvdisasm; do
      install -m 755 "$(find "$tmp/unpacked" -path "*/bin/$tool" -type f | head -1)" "$sass_dir/$tool"
    done
  else
    echo "setup: could not fetch them; the nvrtc tests will skip their SASS checks" >&2
  fi
  rm -rf "$tmp"
fi
