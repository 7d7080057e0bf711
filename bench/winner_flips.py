#!/usr/bin/env python3
"""Compares the winners of two tuning tables of the same shapes (two searches run alike): how
many (GPU, precision, layout, shape) export the same kernel, and where they differ, whether the
two figures lie within the recorded spreads (each entry's `spread`) of each other.

usage: bench/winner_flips.py TABLE_A TABLE_B OUT_STEM [--title TEXT]
writes OUT_STEM.md and OUT_STEM.json. A side may be several tables joined by commas (one search
finished in two runs); an entry present in more than one of them is refused.
"""
import argparse
import json


def entries(paths):
    out = {}
    for path in paths.split(","):
        t = json.load(open(path))
        gpus = {g["id"]: g["name"] for g in t["gpus"]}
        for e in t["entries"]:
            key = (gpus[e["gpu"]], e["precision"], e["layout"], f'{e["m"]}x{e["n"]}x{e["k"]}',
                   e["align"])
            if key in out:
                raise SystemExit(f"winner_flips.py: {path}: {key} is already in an earlier table")
            out[key] = e
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("out_stem")
    ap.add_argument("--title", default="Winner flips between two searches")
    args = ap.parse_args()
    a, b = entries(args.a), entries(args.b)
    rows = []
    for key in sorted(set(a) & set(b)):
        ea, eb = a[key], b[key]
        same = ea["kernel"] == eb["kernel"]
        sa, sb = ea.get("spread"), eb.get("spread")
        within = None
        if not same and sa and sb:
            # Each figure inside the other's spread band, or the two bands overlapping.
            within = sa["lo_ms"] <= sb["hi_ms"] and sb["lo_ms"] <= sa["hi_ms"]
        rows.append({"gpu": key[0], "precision": key[1], "layout": key[2], "shape": key[3],
                     "align": key[4], "same": same, "kernel_a": ea["kernel"], "kernel_b": eb["kernel"],
                     "time_a_ms": ea["time_ms"], "time_b_ms": eb["time_ms"], "spread_a": sa,
                     "spread_b": sb, "within_spread": within,
                     "ratio_best_vendor_a": best_vendor(ea), "ratio_best_vendor_b": best_vendor(eb)})
    same = sum(r["same"] for r in rows)
    md = [f"# {args.title}", "", f"Tables: `{args.a}` and `{args.b}`. Same winner on {same} of "
          f"{len(rows)} (shape, precision, layout) ({100.0 * same / max(1, len(rows)):.0f}%).", "",
          "| shape | prec | same | kernel A | kernel B | A µs | B µs | within spreads |",
          "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        w = "-" if r["within_spread"] is None else ("yes" if r["within_spread"] else "no")
        kb = "" if r["same"] else f'`{r["kernel_b"]}`'
        md.append(f'| {r["shape"]} | {r["precision"]} | {"yes" if r["same"] else "no"} | '
                  f'`{r["kernel_a"]}` | {kb} | {r["time_a_ms"] * 1000:.1f} | {r["time_b_ms"] * 1000:.1f} | {w} |')
    md.append("")
    open(args.out_stem + ".md", "w").write("\n".join(md))
    json.dump({"same": same, "compared": len(rows), "rows": rows}, open(args.out_stem + ".json", "w"),
              indent=1)
    print("\n".join(md))


def best_vendor(e):
    v = [x for x in (e.get("cublas_ms"), e.get("cublaslt_ms")) if x]
    return min(v) / e["time_ms"] if v else None


if __name__ == "__main__":
    main()
