#!/usr/bin/env bash
# Sets up, builds, and tunes the given problems on the local GPU:
#   scripts/tune.sh --shape 4096x4096x4096 --precision fp32
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
exec "${BUILD_DIR:-build}/cli/gemmtune" search "$@"
