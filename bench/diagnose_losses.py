"""For every entry of a tuning table where our own best kernel trails the best vendor figure: what
the profiler and the roofline estimate say, side by side with the vendor's kernel. Writes JSON and
a Markdown table (issue "Beat the vendor": each shape still below 1.00 and what its profile says).

usage: python3 bench/diagnose_losses.py GEMMTUNE TABLE.json OUT_STEM [--arch sm_90a]
                                        [--below 1.0] [--max N] [--sm-count 132]

Needs the GPU and `ncu` on PATH. For each losing entry (own ratio below --below, worst first):
- `gemmtune show --json` of our best kernel: its roofline estimate and what bounds it;
- one ncu pass of `gemmtune bench` of our best kernel: the first call's launches (main kernel,
  and split-K reduce or operand copy where the plan has them);
- one ncu pass of the same bench's vendor kernels (its cuBLAS and cuBLASLt rounds, cuBLASLt's
  autotuning, the reference): each one seen, and as the vendor's the one launched at least twice
  whose median time lies nearest the table's best vendor figure.
ncu runs with --clock-control none, as the timing does. Its raw output goes to OUT_STEM-ncu/.
"""
import argparse
import csv
import io
import json
import os
import statistics
import subprocess

METRICS = [
    "gpu__time_duration.sum",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "lts__t_bytes.sum",
    "dram__bytes_read.sum",
    "lts__t_sector_hit_rate.pct",
    "launch__grid_size",
    "launch__registers_per_thread",
]
OWN_KERNELS = ("simt", "simt_reduce", "mma_gemm", "mma_reduce", "wgmma_gemm", "wgmma_gemm_cluster",
               "wgmma_reduce", "wgmma_kmajor_copy", "wgmma_padded_copy")
# ncu's units, to microseconds, bytes and plain numbers.
TIME_US = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "second": 1e6}
BYTES = {"byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}
GHZ = {"hz": 1e-9, "Khz": 1e-6, "Mhz": 1e-3, "Ghz": 1.0}


def number(text):
    """ncu's number: thousands separators dropped; None for n/a."""
    text = (text or "").strip().replace(",", "")
    try:
        return float(text)
    except ValueError:
        return None


def normalise(metric, unit, value):
    """ncu's value in microseconds (durations), bytes (sizes: a per-something unit such as
    Kbyte/block scales by its prefix) or GHz (clock rates); other values as they come."""
    if value is None:
        return None
    base = (unit or "").split("/")[0]
    if metric.startswith("gpu__time_duration"):
        return value * TIME_US.get(base, 1.0)
    if base in BYTES:
        return value * BYTES[base]
    if base in GHZ:
        return value * GHZ[base]
    return value


def parse_ncu_csv(text, metrics=METRICS):
    """Launches in order, each {"kernel": name, metric: value} (normalise()): ncu --csv in its
    long form (a row per metric: "ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric
    Value") or its raw page (a row per launch, metric columns, a row of units first; only
    `metrics` are read)."""
    lines = [line for line in text.splitlines() if line.startswith('"')]
    if not lines:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    header = rows[0]
    launches = {}
    order = []
    if "Metric Name" in header:
        col = {name: i for i, name in enumerate(header)}
        for row in rows[1:]:
            if len(row) < len(header):
                continue
            key = row[col["ID"]]
            if key not in launches:
                launches[key] = {"kernel": row[col["Kernel Name"]]}
                order.append(key)
            metric = row[col["Metric Name"]]
            launches[key][metric] = normalise(metric, row[col["Metric Unit"]],
                                              number(row[col["Metric Value"]]))
        return [launches[k] for k in order]
    col = {name: i for i, name in enumerate(header)}
    units = rows[1] if len(rows) > 1 else []
    out = []
    for row in rows[2:]:
        if len(row) < len(header) or "Kernel Name" not in col:
            continue
        launch = {"kernel": row[col["Kernel Name"]]}
        for metric in metrics:
            if metric in col:
                unit = units[col[metric]] if col[metric] < len(units) else ""
                launch[metric] = normalise(metric, unit, number(row[col[metric]]))
        out.append(launch)
    return out


def short_name(kernel):
    """The function name of a (possibly demangled, templated) kernel name."""
    name = kernel.split("(")[0].split("<")[0].strip()
    return name.split("::")[-1].split()[-1] if name else kernel


def first_call(launches):
    """Our launches of the first call: up to the first kernel name seen twice."""
    seen, out = set(), []
    for launch in launches:
        name = short_name(launch["kernel"])
        if name in seen:
            break
        seen.add(name)
        out.append(launch)
    return out


def vendor_kernels(launches):
    """Each vendor kernel seen, with its launches and the median of each figure."""
    by_name = {}
    for launch in launches:
        by_name.setdefault(launch["kernel"], []).append(launch)
    out = []
    for name, group in by_name.items():
        k = {"kernel": name, "launches": len(group)}
        for metric in METRICS:
            values = [g[metric] for g in group if g.get(metric) is not None]
            k[metric] = statistics.median(values) if values else None
        out.append(k)
    return out


def vendor_kernel(kernels, vendor_us):
    """The kernel that stands for the vendor's figure: `bench` runs cuBLAS's default call,
    cuBLASLt's autotuning and the reference, so the one launched at least twice whose median
    time lies nearest the table's best vendor time."""
    timed = [k for k in kernels if k["launches"] >= 2 and k.get("gpu__time_duration.sum")]
    if not timed:
        return None
    return min(timed, key=lambda k: abs(k["gpu__time_duration.sum"] - vendor_us))


def run(cmd, log=None):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if log:
        with open(log, "w") as f:
            f.write("$ " + " ".join(cmd) + "\n" + r.stdout + r.stderr)
    return r


def ncu(g, problem, kernel, kernel_filter, count, log):
    cmd = ["ncu", "--clock-control", "none", "--target-processes", "all", "--csv",
           "--metrics", ",".join(METRICS), "-k", kernel_filter, "-c", str(count),
           g, "-q", "bench", "--shape", problem["shape"], "--precision", problem["precision"],
           "--layout", problem["layout"], "--kernel", kernel, "--repeats", "1", "--target-ms", "1"]
    return parse_ncu_csv(run(cmd, log).stdout)


def losing_entries(table, below):
    out = []
    for e in table["entries"]:
        own = e.get("own") if e.get("vendor") else {"kernel": e["kernel"], "time_ms": e["time_ms"]}
        vendor = [t for t in (e.get("cublas_ms"), e.get("cublaslt_ms")) if t and t > 0]
        if not own or not own.get("time_ms") or not vendor:
            continue
        ratio = min(vendor) / own["time_ms"]
        if ratio >= below:
            continue
        out.append({
            "shape": f"{e['m']}x{e['n']}x{e['k']}", "precision": e["precision"],
            "layout": e["layout"], "own": own["kernel"], "own_us": own["time_ms"] * 1e3,
            "vendor": e["kernel"] if e.get("vendor") else "cublas:default",  # for the reader
            "vendor_us": min(vendor) * 1e3, "ratio": ratio})
    return sorted(out, key=lambda x: x["ratio"])


def fmt(value, digits=1, scale=1.0):
    return "-" if value is None else f"{value * scale:.{digits}f}"


def reading(row):
    """One line: where the own kernel's time goes against the vendor's, from the figures."""
    own, ven = row.get("ncu_own") or {}, row.get("ncu_vendor") or {}
    roof = row.get("roofline") or {}
    parts = []
    ot, vt = own.get("gpu__time_duration.sum"), ven.get("gpu__time_duration.sum")
    if ot and vt:
        parts.append(f"{ot / vt:.2f}x the vendor's kernel time under ncu")
    op = own.get("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed")
    vp = ven.get("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed")
    if op is not None and vp is not None:
        parts.append(f"tensor pipe {op:.0f}% against {vp:.0f}%")
    ob, vb = own.get("lts__t_bytes.sum"), ven.get("lts__t_bytes.sum")
    if ob and vb:
        parts.append(f"L2 traffic {ob / vb:.2f}x")
    if roof.get("bound"):
        parts.append(f"roofline: {roof['bound']}-bound")
    return "; ".join(parts) if parts else "no profile"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gemmtune")
    parser.add_argument("table")
    parser.add_argument("stem")
    parser.add_argument("--arch", default="sm_90a")
    parser.add_argument("--below", type=float, default=1.0)
    parser.add_argument("--max", type=int, default=0)
    parser.add_argument("--sm-count", default="132")
    opts = parser.parse_args()
    g, table_path, stem = opts.gemmtune, opts.table, opts.stem
    table = json.load(open(table_path))
    rows = losing_entries(table, opts.below)
    if opts.max > 0:
        rows = rows[:opts.max]
    logs = stem + "-ncu"
    os.makedirs(logs, exist_ok=True)
    own_filter = "regex:^(" + "|".join(OWN_KERNELS) + ")$"
    vendor_filter = "regex:^(?!(" + "|".join(OWN_KERNELS) + ")$)"
    for n, row in enumerate(rows):
        tag = f"{n:02d}-{row['shape']}-{row['precision']}"
        shown = run([g, "--json", "-q", "show", row["own"], "--shape", row["shape"],
                     "--precision", row["precision"], "--layout", row["layout"],
                     "--arch", opts.arch, "--sm-count", opts.sm_count])
        try:
            row["roofline"] = json.loads(shown.stdout).get("roofline")
        except json.JSONDecodeError:
            row["roofline"] = None
        launches = first_call(ncu(g, row, row["own"], own_filter, 4, f"{logs}/{tag}-own.txt"))
        if launches:
            total = {"kernels": [short_name(x["kernel"]) for x in launches]}
            for metric in METRICS:
                values = [x.get(metric) for x in launches if x.get(metric) is not None]
                if metric in ("gpu__time_duration.sum", "lts__t_bytes.sum", "dram__bytes_read.sum"):
                    total[metric] = sum(values) if values else None
                else:  # the main (first) launch's figure
                    total[metric] = launches[0].get(metric)
            row["ncu_own"] = total
        # bench takes our kernel ids only; its cuBLAS and cuBLASLt rounds run the vendor's.
        row["vendor_kernels"] = vendor_kernels(
            ncu(g, row, row["own"], vendor_filter, 60, f"{logs}/{tag}-vendor.txt"))
        row["ncu_vendor"] = vendor_kernel(row["vendor_kernels"], row["vendor_us"])
        row["reading"] = reading(row)
        print(f"{row['shape']} {row['precision']} {row['ratio']:.3f}: {row['reading']}", flush=True)
    with open(stem + ".json", "w") as f:
        json.dump({"table": table_path, "below": opts.below, "rows": rows}, f, indent=1)
    md = [f"# Where our kernels trail the vendor: `{os.path.basename(table_path)}`\n",
          "Entries whose own best runs slower than the best vendor figure of its rounds, worst "
          "first. ncu figures are of one call (clocks not locked); the roofline estimate is "
          "`gemmtune show`'s.\n",
          "| shape | prec | layout | own / vendor | own best | ncu µs own / vendor "
          "| tensor pipe % own / vendor | L2 MB own / vendor | DRAM MB own / vendor "
          "| roofline | reading |",
          "|---|---|---|---:|---|---:|---:|---:|---:|---|---|"]
    tp = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"
    for r in rows:
        o, v, roof = r.get("ncu_own") or {}, r.get("ncu_vendor") or {}, r.get("roofline") or {}
        md.append(
            f"| {r['shape']} | {r['precision']} | {r['layout']} | {r['ratio']:.3f} "
            f"| `{r['own']}` | "
            f"{fmt(o.get('gpu__time_duration.sum'))} / {fmt(v.get('gpu__time_duration.sum'))} | "
            f"{fmt(o.get(tp), 0)} / {fmt(v.get(tp), 0)} | "
            f"{fmt(o.get('lts__t_bytes.sum'), 0, 1e-6)} / "
            f"{fmt(v.get('lts__t_bytes.sum'), 0, 1e-6)} | "
            f"{fmt(o.get('dram__bytes_read.sum'), 0, 1e-6)} / "
            f"{fmt(v.get('dram__bytes_read.sum'), 0, 1e-6)} | "
            f"{roof.get('bound', '-')} | {r['reading']} |")
    with open(stem + ".md", "w") as f:
        f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
