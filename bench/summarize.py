"""Turns `gemmtune --json search` output into the benchmark record: JSON and a Markdown table."""
import json
import math
import sys

FP32_PEAK_TFLOPS = 66.9      # 132 SMs x 128 FMA x 2 x 1.98 GHz
# Dense tensor-core rates of the datasheet (H100 = H200 arithmetic): bf16/fp16 ~990, tf32 half.
PEAK_TFLOPS = {"fp32": FP32_PEAK_TFLOPS, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4}
COPY_TBPS = 4.27             # measured device-to-device copy, read + write
ELEMENT_BYTES = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2}


def main():
    search_path, device_path, wall_s, out_json, out_md, args = sys.argv[1:7]
    search = json.load(open(search_path))
    device = json.load(open(device_path))
    rows = []
    for p in search["problems"]:
        prob = p["problem"]
        m, n, k = prob["m"], prob["n"], prob["k"]
        e = ELEMENT_BYTES[prob["precision"]]
        row = {"shape": f"{m}x{n}x{k}", "precision": prob["precision"], "layout": prob["layout"],
               "cublas_ms": p["cublas_ms"], "cublaslt_ms": p["cublaslt_ms"],
               "tuning_s": p["wall_s"], "evaluated": p["evaluated"], "resumed": p["resumed"],
               "dispositions": p["dispositions"]}
        b = p.get("best")
        if b:
            t = b["time_ms"]
            gbps = e * (m * k + k * n + m * n) / (t * 1e-3) / 1e9
            row.update({"kernel": b["kernel"], "time_ms": t, "tflops": b["tflops"],
                        "pct_peak": 100 * b["tflops"] / PEAK_TFLOPS[prob["precision"]],
                        "gbps": gbps, "pct_copy": 100 * gbps / (COPY_TBPS * 1000),
                        "memory_bound": m <= 64,
                        "ratio_cublas": b["ratio_cublas"], "ratio_cublaslt": b["ratio_cublaslt"]})
        rows.append(row)
    ratios = [r["ratio_cublas"] for r in rows if r.get("ratio_cublas")]
    ratios_lt = [r["ratio_cublaslt"] for r in rows if r.get("ratio_cublaslt")]
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None
    geo_lt = math.exp(sum(map(math.log, ratios_lt)) / len(ratios_lt)) if ratios_lt else None
    doc = {"gpu": device.get("gpu", {}), "driver": device.get("driver"),
           "cuda_runtime": device.get("cuda_runtime"), "cublas": device.get("cublas"),
           "nvrtc": device.get("nvrtc"), "gemmtune": device.get("gemmtune"),
           "search_arguments": args, "wall_s": int(wall_s), "phases": search.get("phases"),
           "geomean_ratio_cublas": geo, "geomean_ratio_cublaslt": geo_lt, "rows": rows}
    json.dump(doc, open(out_json, "w"), indent=2)
    with open(out_md, "w") as md:
        md.write(f"# gemmtune on {device.get('gpu', {}).get('name', '?')}: `search {args}`\n\n")
        md.write(f"Driver {device.get('driver')}, CUDA runtime {device.get('cuda_runtime')}, "
                 f"cuBLAS {device.get('cublas')}, NVRTC {device.get('nvrtc')}. Each ratio is cuBLAS "
                 "(or cuBLASLt-autotuned: best of its top heuristics) time over gemmtune time, all "
                 "timed in the same worker with the same protocol; the best candidates are re-timed "
                 "in rounds interleaved with cuBLAS. Wall time of the whole run: "
                 f"{int(wall_s)} s.\n\n")
        md.write("| shape | best kernel | TFLOP/s | % of peak / of copy BW | vs cuBLAS | vs cuBLASLt | tuning s |\n")
        md.write("|---|---|---|---|---|---|---|\n")
        for r in rows:
            if "kernel" not in r:
                md.write(f"| {r['shape']} | (none) | - | - | - | - | {r['tuning_s']:.0f} |\n")
                continue
            eff = (f"{r['gbps']:.0f} GB/s, {r['pct_copy']:.0f}% of copy" if r["memory_bound"]
                   else f"{r['pct_peak']:.0f}% of {r['precision']} peak")
            md.write(f"| {r['shape']} | `{r['kernel']}` | {r['tflops']:.2f} | {eff} | "
                     f"{r['ratio_cublas']:.2f} | {r['ratio_cublaslt']:.2f} | {r['tuning_s']:.0f} |\n")
        if geo:
            md.write(f"\nGeometric mean vs cuBLAS: {geo:.3f}; vs cuBLASLt-autotuned: {geo_lt:.3f}.\n")


if __name__ == "__main__":
    main()
