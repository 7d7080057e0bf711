#!/usr/bin/env python3
"""Tunes every layer of a model over a token range and measures what its M buckets cost: for each
distinct (N, K) of the model's projections (`gemmtune shapes --hf-config`), a range search
`--shape A-BxNxK` and then `gemmtune regret` at log-uniform M, and a dated write-up with the
median and P95 regret and the M where the pick trails the vendor, per layer and over the model.

    bench/model_ranges.py GEMMTUNE CONFIG.json TAG [--tp 1] [--precision bf16] [--range 1-16384]
        [--budget 2s] [--samples 256] [--cap 600] [--results bench/results]

GEMMTUNE_DB chooses the cache as for any gemmtune command. Each range search gets --cap seconds
(SIGINT: it stores the points it finished); layers are tuned heaviest first (their share of the
model's GEMM FLOPs at M = 1 as `shapes` states it), so a cut run has measured what matters most.
"""
import argparse
import datetime
import json
import pathlib
import re
import signal
import subprocess
import sys
import time


def layers(gemmtune, config, tp, precision):
    """[(N, K, names, FLOP share)] of the model's projections, heaviest first."""
    out = subprocess.run([gemmtune, "shapes", "--hf-config", config, "--tokens", "1", "--tp",
                          str(tp), "--precision", precision, "--layout", "NT"],
                         check=True, capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields, _, comment = line.partition("#")
        m, n, k = (int(v) for v in fields.split()[:3])
        names = comment.split(":")[0].strip()
        share = re.search(r"([0-9.]+) %", comment)
        found.append((n, k, names, float(share.group(1)) if share else 0.0))
    return sorted(found, key=lambda layer: -layer[3])


def run_capped(cmd, cap):
    """Runs cmd, sending SIGINT at `cap` seconds; (exit code, stdout, stderr, seconds)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=cap)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate()
    return proc.returncode, out, err, time.monotonic() - start


def percent(v):
    return "-" if v is None else f"{100.0 * v:.2f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("gemmtune")
    ap.add_argument("config")
    ap.add_argument("tag")
    ap.add_argument("--tp", type=int, default=1)
    ap.add_argument("--precision", default="bf16")
    ap.add_argument("--range", default="1-16384")
    ap.add_argument("--budget", default="2s")
    ap.add_argument("--samples", type=int, default=256)
    ap.add_argument("--cap", type=float, default=600.0)
    ap.add_argument("--results", default=str(pathlib.Path(__file__).parent / "results"))
    a = ap.parse_args()
    if not re.fullmatch(r"[0-9]+-[0-9]+", a.range):
        sys.exit(f"model_ranges: --range must be A-B, not {a.range!r}")

    stem = pathlib.Path(a.results) / f"{datetime.date.today():%Y-%m-%d}-{a.tag}"
    stem.parent.mkdir(parents=True, exist_ok=True)
    report = {"config": a.config, "tp": a.tp, "precision": a.precision, "range": a.range,
              "budget": a.budget, "samples": a.samples, "cap_s": a.cap, "layers": []}
    for n, k, names, share in layers(a.gemmtune, a.config, a.tp, a.precision):
        shape = f"{a.range}x{n}x{k}"
        print(f"== {names}: {shape} ({share:.1f} % of the GEMM FLOPs at M = 1)", flush=True)
        rc, _, err, secs = run_capped(
            [a.gemmtune, "-q", "--json", "search", "--shape", shape, "--precision", a.precision,
             "--layout", "NT", "--budget", a.budget], a.cap)
        layer = {"names": names, "n": n, "k": k, "share": share, "search_s": round(secs, 1),
                 "search_rc": rc}
        if rc not in (0, 3, 130):
            layer["error"] = err.strip().splitlines()[-1] if err.strip() else f"exit {rc}"
            report["layers"].append(layer)
            continue
        rc, out, err, secs = run_capped(
            [a.gemmtune, "--json", "regret", "--shape", shape, "--precision", a.precision,
             "--layout", "NT", "--samples", str(a.samples), "--target-ms", "2", "--repeats",
             "3"], a.cap)
        layer["regret_s"] = round(secs, 1)
        try:
            r = json.loads(out)
        except json.JSONDecodeError:
            layer["error"] = "regret: " + (err.strip().splitlines()[-1] if err.strip()
                                           else f"exit {rc}")
            report["layers"].append(layer)
            continue
        rows = r.get("rows", [])
        layer.update({k2: r.get(k2) for k2 in ("distinct_m", "measured", "median_regret",
                                               "p95_regret", "at_least_099_vendor",
                                               "below_099_vendor_picks", "below_099_own_picks")})
        layer["regrets"] = [row["regret"] for row in rows if "regret" in row]
        layer["below_vendor_m"] = [row["m"] for row in rows
                                   if row.get("vs_vendor", 1.0) < 0.99 and "m" in row]
        report["layers"].append(layer)
        print(f"   search {layer['search_s']} s, regret median {percent(layer['median_regret'])}"
              f" P95 {percent(layer['p95_regret'])}", flush=True)

    pooled = sorted(v for layer in report["layers"] for v in layer.get("regrets", []))
    quantile = lambda q: pooled[min(len(pooled) - 1, int(q * len(pooled)))] if pooled else None
    report["median_regret"], report["p95_regret"] = quantile(0.5), quantile(0.95)
    report["wall_s"] = round(sum(l.get("search_s", 0) + l.get("regret_s", 0)
                                 for l in report["layers"]), 1)
    stem.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [f"# {a.tag}: M ranges of {pathlib.Path(a.config).name}, TP {a.tp}, {a.precision}",
             "",
             f"`bench/model_ranges.py` with range {a.range}, budget {a.budget} per point, "
             f"{a.samples} log-uniform M per layer for the regret, {a.cap:.0f} s cap per command. "
             "Regret is the pick's GPU time over the best measured candidate's at that M.",
             "",
             "| layer | N | K | FLOP share | search s | M measured | median regret | P95 regret "
             "| ≥ 0.99× vendor | M below it |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for l in report["layers"]:
        if "error" in l:
            lines.append(f"| {l['names']} | {l['n']} | {l['k']} | {l['share']:.1f} % | "
                         f"{l.get('search_s', '-')} | - | - | - | - | {l['error']} |")
            continue
        lines.append(f"| {l['names']} | {l['n']} | {l['k']} | {l['share']:.1f} % | "
                     f"{l['search_s']} | {l['measured']} | {percent(l['median_regret'])} | "
                     f"{percent(l['p95_regret'])} | {l['at_least_099_vendor']} of "
                     f"{l['measured']} | {', '.join(map(str, l['below_vendor_m'])) or '-'} |")
    lines += ["", f"Over the model: median regret {percent(report['median_regret'])}, P95 "
              f"{percent(report['p95_regret'])}, {len(pooled)} M; {report['wall_s']} s of "
              "search and regret in all."]
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
