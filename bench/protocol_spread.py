#!/usr/bin/env python3
"""Summarises bench/protocol_spread.sh's JSON files into a dated Markdown write-up and a JSON
summary: per (shape, precision) and protocol, the kernel's, cuBLAS's and cuBLASLt's median GPU
time over the rounds, each figure's spread (max/min of its round medians), the ratios to both
baselines, and the host microseconds per call.

usage: bench/protocol_spread.py DIR OUT_STEM [--title TEXT]
writes OUT_STEM.md and OUT_STEM.json
"""
import argparse
import glob
import json
import os
import statistics
import sys


def spread(f):
    """max/min − 1 of the rounds, in percent; None without figures."""
    if not f or not f.get("min_round_ms"):
        return None
    return 100.0 * (f["max_round_ms"] / f["min_round_ms"] - 1.0)


def deviation(f):
    """The farthest round from the median, as a percent of the median; None without figures."""
    if not f or not f.get("min_round_ms") or not f.get("median_ms"):
        return None
    m = f["median_ms"]
    return 100.0 * max(f["max_round_ms"] / m - 1.0, 1.0 - f["min_round_ms"] / m)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("out_stem")
    ap.add_argument("--title", default="Graph replay against the stream loop, with spreads")
    a = ap.parse_args()
    rows = []
    for path in sorted(glob.glob(os.path.join(a.dir, "spread-*.json"))):
        try:
            data = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"protocol_spread: {path}: {e}", file=sys.stderr)
            continue
        for r in data:
            p = r["problem"]
            row = {"shape": f'{p["m"]}x{p["n"]}x{p["k"]}', "precision": p["precision"],
                   "layout": p["layout"], "kernel": r["kernel"], "gpu": r["gpu"], "protocols": {}}
            for proto, e in r.get("protocols", {}).items():
                k, b, lt = e.get("kernel"), e.get("cublas"), e.get("cublaslt")
                entry = {
                    "disposition": e["result"]["disposition"],
                    "rounds": len(e.get("rounds", [])) or 1,
                    "kernel": k, "cublas": b, "cublaslt": lt,
                    "spread_pct": {"kernel": spread(k), "cublas": spread(b), "cublaslt": spread(lt)},
                    "deviation_pct": {"kernel": deviation(k), "cublas": deviation(b),
                                      "cublaslt": deviation(lt)},
                }
                if k and b:
                    entry["ratio_cublas"] = b["median_ms"] / k["median_ms"]
                if k and lt:
                    entry["ratio_cublaslt"] = lt["median_ms"] / k["median_ms"]
                if k and b and lt:
                    entry["ratio_best_vendor"] = min(b["median_ms"], lt["median_ms"]) / k["median_ms"]
                row["protocols"][proto] = entry
            rows.append(row)
    if not rows:
        sys.exit("protocol_spread: no results in " + a.dir)

    def us(f):
        return f'{f["median_ms"] * 1000:.1f}' if f else "-"

    def pct(v):
        return f"{v:.1f}%" if v is not None else "-"

    def rat(v):
        return f"{v:.3f}" if v is not None else "-"

    md = [f"# {a.title}", "",
          f"GPU: {rows[0]['gpu']}. Each figure is the median of its rounds (kernel, cuBLAS and "
          "cuBLASLt-autotuned interleaved in every round, both protocols in turn); spread is "
          "max/min − 1 of the round medians. `graph`: the launches replayed from a CUDA graph "
          "(GPU time without host launch cost, the figure of record); `stream`: back-to-back "
          "launches. ±max: the kernel's farthest round from its median. Host µs/call is measured "
          "apart from the GPU figure (bursts of launches that fit the launch queue).", ""]
    for proto in ("graph", "stream"):
        md += [f"## {proto}", "",
               "| shape | prec | kernel µs | spread | ±max | cuBLAS µs | spread | cuBLASLt µs | spread | "
               "vs cuBLAS | vs cuBLASLt | vs best |",
               "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            e = r["protocols"].get(proto)
            if not e:
                continue
            s = e["spread_pct"]
            md.append(f'| {r["shape"]} | {r["precision"]} | {us(e["kernel"])} | {pct(s["kernel"])} | '
                      f'{pct(e["deviation_pct"]["kernel"])} | {us(e["cublas"])} | {pct(s["cublas"])} | {us(e["cublaslt"])} | '
                      f'{pct(s["cublaslt"])} | {rat(e.get("ratio_cublas"))} | '
                      f'{rat(e.get("ratio_cublaslt"))} | {rat(e.get("ratio_best_vendor"))} |')
        md.append("")
    md += ["## Host µs per call", "",
           "| shape | prec | kernel (worker launch) | cuBLAS | cuBLASLt |", "|---|---|---|---|---|"]
    for r in rows:
        e = r["protocols"].get("graph") or next(iter(r["protocols"].values()))

        def h(f):
            return f'{f["host_us_per_call"]:.1f}' if f and f.get("host_us_per_call") else "-"
        md.append(f'| {r["shape"]} | {r["precision"]} | {h(e["kernel"])} | {h(e["cublas"])} | '
                  f'{h(e["cublaslt"])} |')
    md.append("")
    kernels = {}
    for proto in ("graph", "stream"):
        vals = [r["protocols"][proto]["spread_pct"]["kernel"] for r in rows
                if proto in r["protocols"] and r["protocols"][proto]["spread_pct"]["kernel"] is not None]
        base = [r["protocols"][proto]["spread_pct"]["cublas"] for r in rows
                if proto in r["protocols"] and r["protocols"][proto]["spread_pct"]["cublas"] is not None]
        kernels[proto] = {"median_kernel_spread_pct": statistics.median(vals) if vals else None,
                          "max_kernel_spread_pct": max(vals) if vals else None,
                          "median_cublas_spread_pct": statistics.median(base) if base else None}
    md += ["## Summary", "", "| protocol | median kernel spread | max kernel spread | median cuBLAS spread |",
           "|---|---|---|---|"]
    for proto, v in kernels.items():
        md.append(f'| {proto} | {pct(v["median_kernel_spread_pct"])} | {pct(v["max_kernel_spread_pct"])} | '
                  f'{pct(v["median_cublas_spread_pct"])} |')
    md.append("")
    open(a.out_stem + ".md", "w").write("\n".join(md))
    json.dump({"rows": rows, "summary": kernels}, open(a.out_stem + ".json", "w"), indent=1)


if __name__ == "__main__":
    main()
