"""Turns the output of `gpu_check.sh bench-list=FILE` (one `gemmtune bench` table per line of
the list) into rows of JSON and a Markdown table, one row per (shape, kernel, protocol).

   list_results.py BENCH_TXT [BENCH_TXT...] --json OUT_JSON [--markdown OUT_MD]

Each row keeps our GPU time and spread, the cuBLAS and cuBLASLt times of the same bench, the
ratios against each and against the faster of the two, and host µs per call (a separate
figure: graph replay removes the launch cost from GPU time, not from a caller's wall clock).
A line of the list the family refused (its error instead of a table) becomes a row with
`error` set, so a refused id is visible, not dropped."""
import argparse
import json
import re
import sys

TIME = re.compile(r"^(?P<value>[0-9.]+) (?P<unit>us|ms|s)$")
UNIT_US = {"us": 1.0, "ms": 1000.0, "s": 1e6}


def columns(header):
    """Start offset of each column of a bench table, from its header line. Offsets are in bytes:
    the table pads by bytes, and a spread's dash or the µ of a header is more than one."""
    names = ["problem", "kernel", "result", "protocol", "GPU time", "spread", "TFLOP/s",
             "vs cuBLAS", "vs cuBLASLt", "host µs/call", "err/bound", "registers", "sensors"]
    starts = []
    for name in names:
        # "vs cuBLAS" is a prefix of "vs cuBLASLt": match the name and the blanks after it.
        m = re.search(re.escape(name.encode()) + rb"(\s{2,}|$)", header)
        if m is None:
            raise ValueError(f"bench header lacks column {name!r}: {header!r}")
        starts.append((name, m.start()))
    return starts


def cells(line, starts):
    out = {}
    for i, (name, start) in enumerate(starts):
        end = starts[i + 1][1] if i + 1 < len(starts) else len(line)
        out[name] = line[start:end].decode("utf-8", "replace").strip()
    return out


def micros(text):
    m = TIME.match(text)
    if m is None:
        return None
    return float(m.group("value")) * UNIT_US[m.group("unit")]


def number(text):
    try:
        return float(text.rstrip("x"))
    except ValueError:
        return None


def parse(path):
    rows, starts, current = [], None, None
    problem = kernel = None
    for raw in open(path, "rb"):
        line = raw.rstrip(b"\n")
        if line.startswith(b"problem "):
            starts = columns(line)
            continue
        if starts is None:
            # A refused line prints "SHAPE KERNEL: error".
            refused(line, rows)
            continue
        c = cells(line, starts)
        if not c["result"]:
            if refused(line, rows):
                starts = None
            continue
        if c["problem"]:
            problem = c["problem"]
        if c["kernel"].startswith("cuBLASLt"):
            current["cublaslt_us"] = micros(c["GPU time"])
            current["cublaslt_spread"] = c["spread"]
            current["cublaslt_host_us"] = number(c["host µs/call"])
            current["cublaslt_algos"] = c["kernel"]
            finish(current)
            continue
        if c["kernel"] == "cuBLAS":
            current["cublas_us"] = micros(c["GPU time"])
            current["cublas_spread"] = c["spread"]
            current["cublas_host_us"] = number(c["host µs/call"])
            continue
        if c["kernel"]:
            kernel = c["kernel"]
        shape, precision, layout = (problem.split() + [None, None, None])[:3]
        current = {"shape": shape, "precision": precision, "layout": layout,
                   "problem": problem, "kernel": kernel, "protocol": c["protocol"],
                   "result": c["result"], "gpu_us": micros(c["GPU time"]),
                   "spread": c["spread"], "tflops": number(c["TFLOP/s"]),
                   "host_us": number(c["host µs/call"]), "registers": number(c["registers"])}
        rows.append(current)
    return rows


def parse_ab(path):
    """Rows of `gpu_check.sh ab-list`: "old ROW" / "new ROW", ROW being a bench table's graph row
    without its header (cells apart by two or more blanks). The vendor's times are not in it,
    only our ratios against them."""
    rows = []
    for raw in open(path, encoding="utf-8"):
        side, _, rest = raw.rstrip("\n").partition(" ")
        if side not in ("old", "new"):
            continue
        c = re.split(r"\s{2,}", rest.strip())
        if len(c) < 10 or c[2] != "ok":
            rows.append({"side": side, "error": rest.strip()})
            continue
        shape, precision, layout = (c[0].split() + [None, None, None])[:3]
        rows.append({"side": side, "shape": shape, "precision": precision, "layout": layout,
                     "kernel": c[1], "protocol": c[3], "gpu_us": micros(c[4]), "spread": c[5],
                     "tflops": number(c[6]), "ratio_cublas": number(c[7]),
                     "ratio_cublaslt": number(c[8]), "host_us": number(c[9])})
    return rows


def refused(line, rows):
    """A line of the list the family refused prints "SHAPE KERNEL: error"."""
    m = re.match(r"^(\S+) (\S+): (.*)$", line.decode("utf-8", "replace"))
    if m:
        rows.append({"shape": m.group(1), "kernel": m.group(2), "error": m.group(3)})
    return m is not None


def finish(row):
    ours, cb, lt = row.get("gpu_us"), row.get("cublas_us"), row.get("cublaslt_us")
    if ours and cb:
        row["ratio_cublas"] = round(cb / ours, 3)
    if ours and lt:
        row["ratio_cublaslt"] = round(lt / ours, 3)
    if ours and cb and lt:
        row["ratio_best_vendor"] = round(min(cb, lt) / ours, 3)


def short(kernel):
    """The knobs that differ from a family's defaults, for a readable table."""
    if ":" not in kernel:
        return kernel
    family, params = kernel.split(":", 1)
    keep = [p for p in params.split(",")
            if not re.fullmatch(r"(GM=1|SK=1|EP=0|CA=0|TU=0|PE=0|PL=1|ML=0|SW=0)", p)]
    return f"{family}:{','.join(keep)}"


def markdown(rows, protocol):
    out = ["| shape | prec | layout | kernel | GPU µs (spread) | cuBLAS µs | cuBLASLt µs "
           "| vs best vendor | host µs |",
           "|---|---|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['shape']} | | | {short(r['kernel'])} | refused: {r['error']} "
                       "| | | | |")
            continue
        if r["protocol"] != protocol:
            continue
        if r.get("gpu_us") is None:
            # A kernel the bench rejected or that failed has a result but no time.
            out.append(f"| {r['shape']} | {r['precision']} | {r['layout']} | {short(r['kernel'])} "
                       f"| {r.get('result', 'no time')} | | | | |")
            continue
        out.append(f"| {r['shape']} | {r['precision']} | {r['layout']} | {short(r['kernel'])} "
                   f"| {r['gpu_us']:.1f} ({r['spread']}) | {r.get('cublas_us', 0):.1f} "
                   f"| {r.get('cublaslt_us', 0):.1f} | {r.get('ratio_best_vendor', 0):.2f} "
                   f"| {r['host_us']} |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", nargs="+")
    ap.add_argument("--json", required=True)
    ap.add_argument("--markdown")
    ap.add_argument("--protocol", default="graph", help="the rows the table shows")
    ap.add_argument("--ab", action="store_true", help="the files are ab-list output")
    args = ap.parse_args()
    rows = []
    for path in args.bench:
        for r in (parse_ab(path) if args.ab else parse(path)):
            r["source"] = path.rsplit("/", 1)[-1]
            rows.append(r)
    if not rows:
        sys.exit("no bench rows found")
    json.dump(rows, open(args.json, "w"), indent=1, ensure_ascii=False)
    if args.markdown:
        table = ab_markdown(rows) if args.ab else markdown(rows, args.protocol)
        open(args.markdown, "w", encoding="utf-8").write(table)


def ab_markdown(rows):
    """One line per (shape, kernel): old and new GPU time, the change, and the ratio against the
    faster vendor library of each side's own bench."""
    pairs = {}
    for r in rows:
        # By the knobs that differ from the defaults: a newer build spells out a knob the older
        # one's ids lack (the same kernel).
        if "error" not in r:
            key = (r["shape"], r["precision"], r["layout"], short(r["kernel"]))
            pairs.setdefault(key, {})[r["side"]] = r
    out = ["| shape | prec | kernel | old µs (spread) | new µs (spread) | Δ | vs best vendor "
           "old → new |", "|---|---|---|---:|---:|---:|---:|"]
    for (shape, precision, _, kernel), p in pairs.items():
        if "old" not in p or "new" not in p:
            continue
        o, n = p["old"], p["new"]
        best = lambda r: min(r["ratio_cublas"], r["ratio_cublaslt"])  # noqa: E731
        change = 100 * (n["gpu_us"] / o["gpu_us"] - 1)
        out.append(f"| {shape} | {precision} | {kernel} | {o['gpu_us']:.1f} ({o['spread']}) "
                   f"| {n['gpu_us']:.1f} ({n['spread']}) | {change:+.1f}% "
                   f"| {best(o):.2f} → {best(n):.2f} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
