#!/usr/bin/env bash
# tools/gpu-lab/feed_metrics.py on hand-made ncu raw pages: ncu's unit prefixes scaled to the
# row's unit, a metric a page lacks shown as '-', the JSON form, and a page that cannot be read
# named on stderr while the others still print.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tool="$root/tools/gpu-lab/feed_metrics.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# ncu --page raw --csv: a header row, a units row, one row per kernel (values may carry commas).
cat > "$tmp/a.csv" <<'CSV'
"ID","Kernel Name","gpu__time_duration.sum","l1tex__m_xbar2l1tex_read_bytes.sum","lrc__lts2lrc_sectors_op_read.sum","launch__shared_mem_per_block_dynamic","smsp__inst_executed_op_tma_ld.sum"
"","","usecond","Gbyte","sector","Kbyte/block","inst"
"0","k","57.15","0.545","7,450,000","164.94","49,152"
CSV
cat > "$tmp/b.csv" <<'CSV'
"ID","Kernel Name","gpu__time_duration.sum","l1tex__m_xbar2l1tex_read_bytes.sum"
"","","msecond","Mbyte"
"0","v","0.0464","537"
CSV
out=$(python3 "$tool" a="$tmp/a.csv" b="$tmp/b.csv")
row() { grep -E "^$1" <<< "$out" | tr -s ' '; }
[[ "$(row 'duration')" == "duration (us) 57.1 46.4" ]] || fail "duration: $(row duration)"
[[ "$(row 'SM <- xbar')" == "SM <- xbar bytes (MB) 545 537" ]] || fail "xbar: $(row 'SM <- xbar')"
[[ "$(row 'L2 -> coalescer sectors')" == "L2 -> coalescer sectors (M) 7.45 -" ]] ||
  fail "sectors: $(row 'L2 -> coalescer sectors')"
[[ "$(row 'shared KB')" == "shared KB per block (KB) 165 -" ]] || fail "smem: $(row 'shared KB')"
[[ "$(row 'TMA loads')" == "TMA loads issued 49152 -" ]] || fail "tma: $(row 'TMA loads')"

json=$(python3 "$tool" --json a="$tmp/a.csv" b="$tmp/b.csv")
python3 - "$json" <<'PY' || fail "json"
import json, sys
d = json.loads(sys.argv[1])
k = d["kernels"]
assert abs(k["a"]["duration"] - 57.15) < 1e-9, k["a"]["duration"]
assert abs(k["b"]["duration"] - 46.4) < 1e-9, k["b"]["duration"]
assert k["b"]["L2 -> coalescer sectors"] is None
assert abs(k["a"]["L2 -> coalescer sectors"] - 7.45) < 1e-9
assert d["units"]["duration"] == "us"
PY

err=$(python3 "$tool" a="$tmp/a.csv" gone="$tmp/none.csv" 2>&1 > /dev/null) || true
[[ "$err" == *"gone: cannot read"* ]] || fail "unreadable page not named: $err"
if python3 "$tool" gone="$tmp/none.csv" > /dev/null 2>&1; then
  fail "no readable page still exited 0"
fi

if ((fails > 0)); then
  exit 1
fi
echo "feed_metrics: all cases passed"
