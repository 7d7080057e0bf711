"""How profiled GEMM kernels were fed, side by side, from ncu raw pages:

   feed_metrics.py [--json] TAG=RAW_CSV [TAG=RAW_CSV ...]

RAW_CSV is `ncu -i REPORT --page raw --csv` (the details= step of gpu_check.sh writes
$OUT/prof/TAG-raw.csv). Prints one column per kernel: time and clock, tensor-pipe activity, the
bytes the SMs received from the crossbar against the sectors the L2 slices sent (their ratio is
what the L2 request coalescer merged: requests of several SMs for one sector served once), the
L2 and DRAM load, and the launch shape (--json: the same as one object per kernel). Tells apart a kernel bound by the L2's read bandwidth
from one that waits on its copies for another reason."""
import csv
import json
import sys

# (label, metric, scale, unit): the value printed is metric / scale.
ROWS = [
    ("duration", "gpu__time_duration.sum", 1.0, "us"),
    ("SM clock", "gpc__cycles_elapsed.avg.per_second", 1.0, "GHz"),
    ("tensor pipe active", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
     1.0, "%"),
    ("SM <- xbar bytes", "l1tex__m_xbar2l1tex_read_bytes.sum", 1.0, "MB"),
    ("coalescer -> SMs sectors", "lrc__xbar2gpc_sectors_op_read.sum", 1e6, "M"),
    ("L2 -> coalescer sectors", "lrc__lts2lrc_sectors_op_read.sum", 1e6, "M"),
    ("L2 -> coalescer % peak", "lrc__lts2lrc_sectors_op_read.sum.pct_of_peak_sustained_elapsed",
     1.0, "%"),
    ("L2 throughput", "lts__throughput.avg.pct_of_peak_sustained_elapsed", 1.0, "%"),
    ("L2 read hit rate", "lts__t_sector_op_read_hit_rate.pct", 1.0, "%"),
    ("L2 fabric sectors", "lts__t_sectors_srcunit_ltcfabric.sum", 1e6, "M"),
    ("DRAM read", "dram__bytes_read.sum", 1.0, "MB"),
    ("shared wavefronts % peak",
     "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed", 1.0, "%"),
    ("TMA loads issued", "smsp__inst_executed_op_tma_ld.sum", 1.0, ""),
    ("grid", "launch__grid_size", 1.0, ""),
    ("cluster", "launch__cluster_size", 1.0, ""),
    ("shared KB per block", "launch__shared_mem_per_block_dynamic", 1.0, "KB"),
]


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def read(path):
    """{metric: (unit, value)} of the first kernel in an ncu raw CSV."""
    rows = list(csv.reader(open(path, encoding="utf-8")))
    start = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    header, units, first = rows[start], rows[start + 1], rows[start + 2]
    return {h: (units[i], first[i]) for i, h in enumerate(header) if i < len(first)}


def in_unit(unit, value, want):
    """value (in ncu's unit) in the unit the row prints, for the prefixes ncu picks."""
    scale = {"": 1, "byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
             "usecond": 1, "nsecond": 1e-3, "msecond": 1e3, "us": 1, "ns": 1e-3, "ms": 1e3,
             "Ghz": 1, "Mhz": 1e-3, "hz": 1e-9, "Khz": 1e-6}
    unit = unit.split("/")[0]  # Kbyte/block, Gbyte/s: the prefix is what scales
    if want == "MB":
        return value * scale.get(unit, 1) / 1e6
    if want == "KB":
        return value * scale.get(unit, 1) / 1e3
    return value * scale.get(unit, 1)


def figures(data):
    """{label: value in the row's unit, or None} of one kernel."""
    out = {}
    for label, metric, scale, unit in ROWS:
        unit_in, text = data.get(metric, ("", ""))
        value = number(text)
        out[label] = None if value is None else in_unit(unit_in, value, unit) / scale
    return out


def main():
    args = sys.argv[1:]
    as_json = "--json" in args
    runs = []
    for arg in (a for a in args if a != "--json"):
        tag, _, path = arg.partition("=")
        try:
            runs.append((tag, figures(read(path))))
        except (OSError, StopIteration) as e:
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
