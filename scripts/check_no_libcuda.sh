#!/usr/bin/env bash
# Fails when a built binary links libcuda directly: gemmtune must start on machines without a
# driver and say plainly that no GPU is present.
set -euo pipefail
build_dir=${1:-build}
status=0
while IFS= read -r -d '' bin; do
  if readelf -d "$bin" 2>/dev/null | grep -q 'libcuda\.so'; then
    echo "check_no_libcuda: $bin links libcuda directly" >&2
    status=1
  fi
done < <(find "$build_dir" -type f -perm -u+x -name 'gemmtune*' -print0; find "$build_dir/tests" -type f -perm -u+x -name 'test_*' -print0)
exit $status
