"""Own kernels against the vendor, read from a cache rather than a search record.

   gemmtune --db CACHE --json list shapes > LIST_JSON
   cache_summary.py LIST_JSON[,LIST_JSON...] OUT_JSON OUT_MD TITLE

For runs whose search record (`--json search`) was not kept, or caches merged from several
runs: each shape's pick and best own kernel as the cache holds them, with the cuBLAS and
cuBLASLt-autotuned figures of the pick's re-time rounds. "Best vendor" is the faster of those
two; unlike bench/summarize.py it cannot leave out a vendor figure that failed its tolerance
pass (the cache keeps no verdict with the trial), so read unaligned shapes from the search
record where there is one. Shapes whose operands are not all 16-byte aligned (`align` < 16)
are counted apart, as the targets treat them apart."""
import json
import math
import sys


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def row_of(entry):
    best, own = entry.get("best"), entry.get("best_own")
    if not best:
        return None
    vendor_pick = best["kernel"].startswith("cublas")
    if own is None and not vendor_pick:
        own = best  # the pick is ours: it is the best own kernel
    p = entry["problem"]
    vendors = [v for v in (best.get("cublas_ms"), best.get("cublaslt_ms")) if v and v > 0]
    row = {"shape": f"{p['m']}x{p['n']}x{p['k']}", "precision": p["precision"],
           "layout": p["layout"], "align": p["align"], "gpu": entry["gpu"],
           "kernel": best["kernel"], "time_ms": best["time_ms"],
           "cublas_ms": best.get("cublas_ms"), "cublaslt_ms": best.get("cublaslt_ms")}
    if vendors:
        row["ratio_best_vendor"] = min(vendors) / best["time_ms"]
    if own:
        row.update({"own_kernel": own["kernel"], "own_time_ms": own["time_ms"]})
        if own.get("spread"):
            sp = own["spread"]
            row["own_spread_pct"] = [100 * (sp["lo_ms"] / own["time_ms"] - 1),
                                     100 * (sp["hi_ms"] / own["time_ms"] - 1)]
        if best.get("cublas_ms"):
            row["own_ratio_cublas"] = best["cublas_ms"] / own["time_ms"]
        if vendors:
            row["own_ratio_best_vendor"] = min(vendors) / own["time_ms"]
    return row


def main():
    if len(sys.argv) != 5:
        sys.stderr.write(__doc__)
        sys.exit(2)
    inputs, out_json, out_md, title = sys.argv[1:5]
    rows = []
    for path in inputs.split(","):
        rows += [r for r in map(row_of, json.load(open(path))) if r]
    aligned = [r for r in rows if r["align"] >= 16]
    unaligned = [r for r in rows if r["align"] < 16]
    own = [r.get("own_ratio_best_vendor") for r in rows]
    doc = {"title": title, "shapes": len(rows),
           "own_geomean_ratio_best_vendor": geomean(own),
           "own_geomean_ratio_best_vendor_aligned": geomean(
               [r.get("own_ratio_best_vendor") for r in aligned]),
           "own_geomean_ratio_cublas": geomean([r.get("own_ratio_cublas") for r in rows]),
           "aligned_below_090": sorted(r["shape"] for r in aligned
                                       if r.get("own_ratio_best_vendor", 0) < 0.90),
           "unaligned_below_085": sorted(r["shape"] for r in unaligned
                                         if r.get("own_ratio_best_vendor", 0) < 0.85),
           "picks_at_least_099_best_vendor": sum(1 for r in rows
                                                 if r.get("ratio_best_vendor", 0) >= 0.99),
           "rows": rows}
    json.dump(doc, open(out_json, "w"), indent=2)

    def fmt(v, spec=".3f"):
        return format(v, spec) if v is not None else "-"

    with open(out_md, "w") as md:
        md.write(f"# {title}\n\n")
        md.write("| shape | align | pick | pick vs best vendor | own kernel | own µs | own spread | "
                 "own vs cuBLAS | own vs best vendor |\n|---|---:|---|---:|---|---:|---|---:|---:|\n")
        for r in rows:
            sp = r.get("own_spread_pct")
            spread = f"{sp[0]:+.1f}/{sp[1]:+.1f}%" if sp else "-"
            own_us = r["own_time_ms"] * 1e3 if "own_time_ms" in r else None
            md.write(f"| {r['shape']} | {r['align']} | `{r['kernel']}` | "
                     f"{fmt(r.get('ratio_best_vendor'))} | `{r.get('own_kernel', '-')}` | "
                     f"{fmt(own_us, '.1f')} | {spread} | {fmt(r.get('own_ratio_cublas'))} | "
                     f"{fmt(r.get('own_ratio_best_vendor'))} |\n")
        md.write(f"\nOwn kernels, geomean vs the best vendor: "
                 f"{fmt(doc['own_geomean_ratio_best_vendor'])} over {len(rows)} shapes "
                 f"({fmt(doc['own_geomean_ratio_best_vendor_aligned'])} over the "
                 f"{len(aligned)} aligned); vs cuBLAS {fmt(doc['own_geomean_ratio_cublas'])}. "
                 f"Aligned below 0.90: {len(doc['aligned_below_090'])}; unaligned below 0.85: "
                 f"{len(doc['unaligned_below_085'])}. Picks at or above 0.99× the best vendor: "
                 f"{doc['picks_at_least_099_best_vendor']} of {len(rows)}.\n")


if __name__ == "__main__":
    main()
