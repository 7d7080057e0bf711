#!/usr/bin/env bash
# Builds and installs the Python package (python/) into a fresh virtual environment, as its
# README says, and runs its tests there; the CLI tests use the build's gemmtune binary.
# The GPU tests skip themselves on a machine without a GPU or torch.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
venv="$build_dir/python-venv"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q "./python[test]"
# From outside the checkout, so the tests import the installed package, not python/src.
(cd "$build_dir" && GEMMTUNE_BIN="$PWD/cli/gemmtune" "$PWD/python-venv/bin/python" -m pytest -q \
  "$OLDPWD/python/tests")
