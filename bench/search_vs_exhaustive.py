#!/usr/bin/env python3
"""How near a budgeted search came to the exhaustive optimum, judged inside one exhaustive run:
for every problem of SEARCH.db, the kernel the search picked is looked up in EXHAUSTIVE.db, and
its time there is compared with the best time there. Both figures come from the same run of the
same worker, so clock drift between the two searches does not enter the ratio.

usage: search_vs_exhaustive.py EXHAUSTIVE.db[,EXHAUSTIVE.db...] SEARCH.db OUT_STEM
Several exhaustive caches (each run on its own problems) are given as a comma list.
Writes OUT_STEM.json and OUT_STEM.md.
"""
import json
import sqlite3
import statistics
import sys

from cache_figures import first_ok_times

def best_of(db):
    """The kernel each problem's search ended with: the best of its final re-times (the
    highest attempt of a kernel), or of its search-time figures when nothing was re-timed."""
    latest = {}
    for m, n, k, prec, layout, align, kernel, attempt, ms in db.execute(
            "SELECT m, n, k, precision, layout, align, kernel_id, attempt, time_ms FROM trials"
            " WHERE disposition = 'ok' AND time_ms > 0 ORDER BY id"):
        per = latest.setdefault((m, n, k, prec, layout, align), {})
        if kernel not in per or attempt >= per[kernel][0]:
            per[kernel] = (attempt, ms)
    best = {}
    for key, per in latest.items():
        top = max(a for a, _ in per.values())
        pool = {kern: ms for kern, (a, ms) in per.items() if a == top}
        kernel = min(pool, key=pool.get)
        best[key] = (kernel, pool[kernel])
    return best


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 3
    se = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True)
    stem = sys.argv[3]
    ex_times = {}
    for path in sys.argv[1].split(","):
        for key, times in first_ok_times(path).items():
            if key in ex_times:
                print(f"{path}: problem {key} is also in an earlier exhaustive cache",
                      file=sys.stderr)
                return 3
            ex_times[key] = times
    rows = []
    for key, (kernel, _) in sorted(best_of(se).items(), key=lambda kv: kv[0]):
        times = ex_times.get(key)
        if not times:
            continue
        opt_kernel = min(times, key=times.get)
        mine = times.get(kernel)
        frac = times[opt_kernel] / mine if mine else None
        rows.append({"shape": f"{key[0]}x{key[1]}x{key[2]}", "precision": key[3],
                     "layout": key[4], "search_kernel": kernel, "optimum_kernel": opt_kernel,
                     "optimum_ms": times[opt_kernel], "search_kernel_ms": mine,
                     "fraction_of_optimum": frac, "candidates": len(times)})
    fracs = [r["fraction_of_optimum"] for r in rows if r["fraction_of_optimum"]]
    summary = {"problems": len(rows), "median": statistics.median(fracs) if fracs else None,
               "worst": min(fracs) if fracs else None}
    json.dump({"exhaustive": sys.argv[1], "search": sys.argv[2], "rows": rows,
               "summary": summary}, open(stem + ".json", "w"), indent=2)
    with open(stem + ".md", "w") as md:
        md.write("| shape | precision | search's kernel | exhaustive optimum | fraction of optimum |\n")
        md.write("|---|---|---|---|---:|\n")
        for r in rows:
            f = r["fraction_of_optimum"]
            md.write(f"| {r['shape']} | {r['precision']} | `{r['search_kernel']}` | "
                     f"`{r['optimum_kernel']}` | {f'{f:.3f}' if f else 'not in the exhaustive run'} |\n")
        if fracs:
            md.write(f"\nMedian {summary['median']:.3f}, worst {summary['worst']:.3f} of the "
                     f"exhaustive optimum over {len(fracs)} problems.\n")
    print(open(stem + ".md").read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
