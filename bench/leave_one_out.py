"""Leave-one-out check of the query fallback chain (issue 7): for every tuned shape in a cache,
drop its own entry from the exported table, ask `query --table` which kernel the chain picks, and
bench that kernel and the shape's own tuned best back to back on the GPU. Writes JSON + Markdown.

usage: python3 bench/leave_one_out.py GEMMTUNE CACHE.db OUT_STEM [--offline]

--offline needs no GPU: both kernels' times are their first verified figures in the cache (the
search-time measurement of one run), so it answers only for an exhaustive cache, where every
kernel the chain can pick was measured on every shape.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

from cache_figures import first_ok_times


def run(g, *args):
    r = subprocess.run([g, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def bench_ms(g, db, entry, shape, kernel):
    code, out, err = run(g, "--db", db, "--json", "-q", "bench", "--shape", shape, "--kernel", kernel,
                         "--precision", entry["precision"], "--layout", entry["layout"])
    if not out.strip():
        return None, err.strip()
    res = json.loads(out)[0]["result"]
    return (res["median_ms"] if res["disposition"] == "ok" else None), res["disposition"]


def cache_ms(times, entry, shape, kernel):
    """A kernel's first verified figure on the entry's problem, from the cache itself."""
    m, n, k = (int(x) for x in shape.split("x"))
    key = (m, n, k, entry["precision"], entry["layout"], entry["align"])
    ms = times.get(key, {}).get(kernel)
    return (ms, "ok") if ms else (None, "not measured on this shape in the cache")


def main():
    offline = "--offline" in sys.argv
    g, db, stem = [a for a in sys.argv[1:] if a != "--offline"][:3]
    times = first_ok_times(db) if offline else {}
    code, out, err = run(g, "--db", db, "export")
    table = json.loads(out)
    rows = []
    for entry in table["entries"]:
        shape = f"{entry['m']}x{entry['n']}x{entry['k']}"
        others = dict(table)
        others["entries"] = [e for e in table["entries"] if e is not entry]
        others["defaults"] = []  # defaults were computed with this shape in them
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(others, f)
            path = f.name
        code, out, err = run(g, "--json", "query", "--table", path, "--shape", shape,
                             "--precision", entry["precision"], "--layout", entry["layout"])
        os.unlink(path)
        q = json.loads(out)[0] if out.strip() else {}
        chosen = q.get("kernel")
        if offline:
            own_ms, _ = cache_ms(times, entry, shape, entry["kernel"])
            loo_ms, why = cache_ms(times, entry, shape, chosen) if chosen else (None, "no kernel")
        else:
            own_ms, _ = bench_ms(g, db, entry, shape, entry["kernel"])
            loo_ms, why = bench_ms(g, db, entry, shape, chosen) if chosen else (None, "no kernel")
        frac = own_ms / loo_ms if own_ms and loo_ms else 0.0
        rows.append({"shape": shape, "precision": entry["precision"], "own": entry["kernel"],
                     "own_ms": own_ms, "rule": q.get("rule"), "chosen": chosen,
                     "chosen_ms": loo_ms, "fraction_of_tuned": frac, "note": why})
        print(f"{shape}: {q.get('rule')} -> {chosen}: {frac:.3f} of tuned", flush=True)
    fracs = [r["fraction_of_tuned"] for r in rows]
    doc = {"cache": os.path.basename(db), "offline": offline, "rows": rows,
           "median_fraction": statistics.median(fracs) if fracs else None}
    json.dump(doc, open(stem + ".json", "w"), indent=2)
    with open(stem + ".md", "w") as md:
        md.write("# Leave-one-out: the fallback chain without a shape's own entry\n\n")
        how = ("taken from the cache (each kernel's first verified figure there: one exhaustive "
               "run, no GPU)" if offline else "benched in two consecutive `gemmtune bench` runs")
        md.write(f"Cache `{doc['cache']}`. Each shape's own tuned kernel and the kernel the chain picks "
                 f"without that shape's entry (defaults dropped too) are {how}; "
                 "fraction = own time / chosen time.\n\n")
        md.write("| shape | precision | rule | chosen kernel | fraction of tuned |\n|---|---|---|---|---|\n")
        for r in rows:
            md.write(f"| {r['shape']} | {r['precision']} | {r['rule']} | `{r['chosen']}` | "
                     f"{r['fraction_of_tuned']:.3f} |\n")
        md.write(f"\nMedian fraction: {doc['median_fraction']:.3f}\n")


if __name__ == "__main__":
    main()
