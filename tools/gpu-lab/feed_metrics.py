"""How profiled GEMM kernels were fed, side by side, from ncu raw pages:

   feed_metrics.py [--json] TAG=RAW_CSV [TAG=RAW_CSV ...]

RAW_CSV is `ncu -i REPORT --page raw --csv` (the details= step of gpu_check.sh writes
$OUT/prof/TAG-raw.csv). Prints one column per kernel: time and clock, tensor-pipe activity, the
bytes the SMs received from the crossbar against the sectors the L2 slices sent (their ratio is
what the L2 request coalescer merged: requests of several SMs for one sector served once), the
L2 and DRAM load, and the launch shape (--json: the same as one object per kernel). Tells apart
a kernel bound by the L2's read bandwidth from one that waits on its copies for another reason.
The CSV and its units are read by bench/diagnose_losses.py's parser."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from diagnose_losses import parse_ncu_csv  # noqa: E402  ncu's CSV and its units, read once

# (label, metric, scale, unit): the value printed is the metric, as parse_ncu_csv normalises it
# (microseconds, bytes, GHz), divided by scale.
ROWS = [
    ("duration", "gpu__time_duration.sum", 1.0, "us"),
    ("SM clock", "gpc__cycles_elapsed.avg.per_second", 1.0, "GHz"),
    ("tensor pipe active",
     "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed", 1.0, "%"),
    ("SM <- xbar bytes", "l1tex__m_xbar2l1tex_read_bytes.sum", 1e6, "MB"),
    ("coalescer -> SMs sectors", "lrc__xbar2gpc_sectors_op_read.sum", 1e6, "M"),
    ("L2 -> coalescer sectors", "lrc__lts2lrc_sectors_op_read.sum", 1e6, "M"),
    ("L2 -> coalescer % peak", "lrc__lts2lrc_sectors_op_read.sum.pct_of_peak_sustained_elapsed",
     1.0, "%"),
    ("L2 throughput", "lts__throughput.avg.pct_of_peak_sustained_elapsed", 1.0, "%"),
    ("L2 read hit rate", "lts__t_sector_op_read_hit_rate.pct", 1.0, "%"),
    ("L2 fabric sectors", "lts__t_sectors_srcunit_ltcfabric.sum", 1e6, "M"),
    ("DRAM read", "dram__bytes_read.sum", 1e6, "MB"),
    ("shared wavefronts % peak",
     "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed", 1.0, "%"),
    ("TMA loads issued", "smsp__inst_executed_op_tma_ld.sum", 1.0, ""),
    ("grid", "launch__grid_size", 1.0, ""),
    ("cluster", "launch__cluster_size", 1.0, ""),
    ("shared KB per block", "launch__shared_mem_per_block_dynamic", 1e3, "KB"),
]


def figures(path):
    """{label: value in the row's unit, or None} of the first kernel of an ncu raw page."""
    with open(path, encoding="utf-8") as f:
        launches = parse_ncu_csv(f.read(), [metric for _, metric, _, _ in ROWS])
    if not launches:
        raise ValueError("no kernel in it")
    first = launches[0]
    return {label: None if first.get(metric) is None else first[metric] / scale
            for label, metric, scale, _ in ROWS}


def main():
    args = sys.argv[1:]
    as_json = "--json" in args
    runs = []
    for arg in (a for a in args if a != "--json"):
        tag, _, path = arg.partition("=")
        try:
            runs.append((tag, figures(path)))
        except (OSError, ValueError) as e:
            print(f"{tag}: cannot read {path}: {e}", file=sys.stderr)
    if not runs:
        sys.exit("usage: feed_metrics.py [--json] TAG=RAW_CSV [TAG=RAW_CSV ...]")
    if as_json:
        units = {label: unit for label, _, _, unit in ROWS}
        print(json.dumps({"units": units, "kernels": dict(runs)}, indent=1))
        return
    width = max(12, *(len(t) for t, _ in runs))
    print(f"{'':28}" + "".join(f"{t:>{width}}" for t, _ in runs))
    for label, _, _, unit in ROWS:
        cells = []
        for _, values in runs:
            value = values[label]
            if value is None:
                cells.append(f"{'-':>{width}}")
            elif abs(value) < 1e4:
                cells.append(f"{value:>{width}.3g}")
            else:
                cells.append(f"{value:>{width}.0f}")
        print(f"{label + (' (' + unit + ')' if unit else ''):28}" + "".join(cells))


if __name__ == "__main__":
    main()
