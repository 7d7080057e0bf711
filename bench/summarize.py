"""Turns `gemmtune --json search` output into the benchmark record: JSON and a Markdown table.

   summarize.py SEARCH_JSON[,SEARCH_JSON...] DEVICE_JSON WALL_S OUT_JSON OUT_MD ARGS

Several search records (comma-joined) are one suite run over several calls: each problem's
record is taken from the last file that holds it. A vendor figure whose tolerance pass failed
(`cublas_verdict` / `cublaslt_verdict` of the record) is shown, marked, and left out of "the
best vendor": a pick need not match a result it would be wrong to ship."""
import json
import math
import sys

FP32_PEAK_TFLOPS = 66.9      # 132 SMs x 128 FMA x 2 x 1.98 GHz
# Dense tensor-core rates of the datasheet (H100 = H200 arithmetic): bf16/fp16 ~990, tf32 half,
# FP8 twice.
PEAK_TFLOPS = {"fp32": FP32_PEAK_TFLOPS, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4,
               "e4m3": 1978.9, "e4m3-row": 1978.9, "e4m3-blk": 1978.9}
COPY_TBPS = 4.27             # measured device-to-device copy, read + write
# Bytes of an element of A and B, and of C (FP8 writes bf16).
ELEMENT_BYTES = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "e4m3": 1, "e4m3-row": 1, "e4m3-blk": 1}
OUTPUT_BYTES = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "e4m3": 2, "e4m3-row": 2, "e4m3-blk": 2}


def main():
    search_paths, device_path, wall_s, out_json, out_md, args = sys.argv[1:7]
    searches = [json.load(open(path)) for path in search_paths.split(",")]
    search = searches[-1]
    problems = {}
    for one in searches:
        for p in one["problems"]:
            pr = p["problem"]
            key = (pr["m"], pr["n"], pr["k"], pr["precision"], pr["layout"], pr.get("align"))
            problems.pop(key, None)  # the later record, in the later run's order
            problems[key] = p
    device = json.load(open(device_path))
    rows = []
    for p in problems.values():
        prob = p["problem"]
        m, n, k = prob["m"], prob["n"], prob["k"]
        e = ELEMENT_BYTES[prob["precision"]]
        row = {"shape": f"{m}x{n}x{k}", "precision": prob["precision"], "layout": prob["layout"],
               "cublas_ms": p["cublas_ms"], "cublaslt_ms": p["cublaslt_ms"],
               "tuning_s": p["wall_s"], "evaluated": p["evaluated"], "resumed": p["resumed"],
               "dispositions": p["dispositions"]}
        if p.get("retime_note"):
            row["retime_note"] = p["retime_note"]
        # Records before verdicts were written hold only verified vendor figures' ratios.
        wrong = {name for name in ("cublas", "cublaslt")
                 if p.get(f"{name}_verdict") not in (None, "ok", "skipped")}
        if wrong:
            row["vendor_wrong"] = sorted(wrong)
        vendors = [v for name, v in (("cublas", p["cublas_ms"]), ("cublaslt", p["cublaslt_ms"]))
                   if v and v > 0 and name not in wrong]
        b = p.get("best")
        if b:
            t = b["time_ms"]
            gbps = (e * (m * k + k * n) + OUTPUT_BYTES[prob["precision"]] * m * n) / \
                (t * 1e-3) / 1e9
            row.update({"kernel": b["kernel"], "vendor": b.get("vendor", False), "time_ms": t,
                        "tflops": b["tflops"],
                        "pct_peak": 100 * b["tflops"] / PEAK_TFLOPS[prob["precision"]],
                        "gbps": gbps, "pct_copy": 100 * gbps / (COPY_TBPS * 1000),
                        "memory_bound": m <= 64,
                        "ratio_cublas": b["ratio_cublas"], "ratio_cublaslt": b["ratio_cublaslt"]})
            if vendors:
                row["ratio_best_vendor"] = min(vendors) / t
            if b.get("spread"):
                sp = b["spread"]
                row["spread_pct"] = [100 * (sp["lo_ms"] / t - 1), 100 * (sp["hi_ms"] / t - 1)]
                row["spread_rounds"] = sp["rounds"]
        own = p.get("best_own")
        if own and not own.get("vendor", False):  # records before the own pick left vendors out
            row["own_kernel"] = own["kernel"]
            row["own_ratio_cublas"] = own["ratio_cublas"]
            row["own_ratio_cublaslt"] = own["ratio_cublaslt"]
            if vendors:
                row["own_ratio_best_vendor"] = min(vendors) / own["time_ms"]
        rows.append(row)

    def geomean(key):
        vals = [r[key] for r in rows if r.get(key)]
        return math.exp(sum(map(math.log, vals)) / len(vals)) if vals else None

    geo, geo_lt = geomean("ratio_cublas"), geomean("ratio_cublaslt")
    geo_best, own_geo = geomean("ratio_best_vendor"), geomean("own_ratio_cublas")
    own_geo_best = geomean("own_ratio_best_vendor")
    picks = [r for r in rows if r.get("ratio_best_vendor")]
    never_lose = sum(1 for r in picks if r["ratio_best_vendor"] >= 0.99)
    doc = {"gpu": device.get("gpu", {}), "driver": device.get("driver"),
           "cuda_runtime": device.get("cuda_runtime"), "cublas": device.get("cublas"),
           "nvrtc": device.get("nvrtc"), "gemmtune": device.get("gemmtune"),
           "search_arguments": args, "wall_s": int(wall_s), "phases": search.get("phases"),
           "geomean_ratio_cublas": geo, "geomean_ratio_cublaslt": geo_lt,
           "geomean_ratio_best_vendor": geo_best, "own_geomean_ratio_cublas": own_geo,
           "own_geomean_ratio_best_vendor": own_geo_best,
           "picks_at_least_099_best_vendor": never_lose, "picks": len(picks), "rows": rows}
    json.dump(doc, open(out_json, "w"), indent=2)
    with open(out_md, "w") as md:
        md.write(f"# gemmtune on {device.get('gpu', {}).get('name', '?')}: `search {args}`\n\n")
        md.write(f"Driver {device.get('driver')}, CUDA runtime {device.get('cuda_runtime')}, "
                 f"cuBLAS {device.get('cublas')}, NVRTC {device.get('nvrtc')}. Each ratio is cuBLAS "
                 "(or cuBLASLt-autotuned: best of its top heuristics) time over gemmtune time, all "
                 "timed in the same worker with the same protocol; the best candidates are re-timed "
                 "in rounds interleaved with cuBLAS. Wall time of the whole run: "
                 f"{int(wall_s)} s.\n\n")
        md.write("The pick is the fastest candidate of any family, the vendor's included (cuBLAS's "
                 "default call and the chosen cuBLASLt algorithm, verified and re-timed in the "
                 "same rounds); *own* is our fastest kernel. Spread: the fastest and slowest round "
                 "around the pick's median.\n\n")
        md.write("| shape | pick | TFLOP/s | % of peak / of copy BW | vs cuBLAS | vs cuBLASLt | "
                 "vs best vendor | spread | own vs cuBLAS | own vs best vendor | tuning s |\n")
        md.write("|---|---|---|---|---|---|---|---|---|---|---|\n")

        def fmt(v):
            return f"{v:.3f}" if v else "-"

        for r in rows:
            if "kernel" not in r:
                md.write(f"| {r['shape']} | (none) | - | - | - | - | - | - | "
                         f"{fmt(r.get('own_ratio_cublas'))} | - | {r['tuning_s']:.0f} |\n")
                continue
            eff = (f"{r['gbps']:.0f} GB/s, {r['pct_copy']:.0f}% of copy" if r["memory_bound"]
                   else f"{r['pct_peak']:.0f}% of {r['precision']} peak")
            spread = (f"{r['spread_pct'][0]:+.1f}/{r['spread_pct'][1]:+.1f}% "
                      f"({r['spread_rounds']})" if r.get("spread_pct") else "-")
            mark = {name: " ✗" if name in r.get("vendor_wrong", ()) else ""
                    for name in ("cublas", "cublaslt")}
            md.write(f"| {r['shape']} | `{r['kernel']}` | {r['tflops']:.2f} | {eff} | "
                     f"{r['ratio_cublas']:.3f}{mark['cublas']} | "
                     f"{r['ratio_cublaslt']:.3f}{mark['cublaslt']} | "
                     f"{fmt(r.get('ratio_best_vendor'))} | {spread} | "
                     f"{fmt(r.get('own_ratio_cublas'))} | {fmt(r.get('own_ratio_best_vendor'))} | "
                     f"{r['tuning_s']:.0f} |\n")
        if geo:
            md.write(f"\nGeometric means — the pick: {geo:.3f} vs cuBLAS, {geo_lt:.3f} vs "
                     f"cuBLASLt-autotuned, {fmt(geo_best)} vs the best of the two; our own "
                     f"kernels: {fmt(own_geo)} vs cuBLAS, {fmt(own_geo_best)} vs the best of the "
                     f"two. Picks at or above 0.99× the best vendor figure: {never_lose} of "
                     f"{len(picks)}.\n")
        wrong = [r for r in rows if r.get("vendor_wrong")]
        if wrong:
            md.write(f"\n✗: a vendor figure that failed the tolerance pass ({len(wrong)} of "
                     f"{len(rows)} shapes: "
                     + ", ".join(f"{r['shape']} ({' and '.join(r['vendor_wrong'])})" for r in wrong)
                     + "); it is shown but left out of the best vendor figure.\n")
        notes = [r for r in rows if r.get("retime_note")]
        if notes:
            md.write("\nWhere the re-time left quick figures standing:\n\n")
            for r in notes:
                md.write(f"- {r['shape']}: {r['retime_note']}\n")


if __name__ == "__main__":
    main()
