#!/usr/bin/env python3
"""Exports the trials of a gemmtune cache as replay data: one JSON object per line,
{"gpu", "problem", "kernel", "disposition", "time_ms", "compile_ms"}, for `gemmtune replay`.

Each (GPU, problem, kernel) keeps its first trial: the quick search-time figure that a strategy
sees, not a later re-time of the top few (which would mix two timing protocols). A compile time
of 0 is a cubin-cache hit; it is replaced by the same kernel's compile time on another problem
of the cache, since a fresh search compiles it once.

usage: export_replay_data.py CACHE.db OUT.jsonl [--shape MxNxK ...] [--precision fp32]
"""
import argparse
import json
import sqlite3
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cache")
    ap.add_argument("out")
    ap.add_argument("--shape", action="append", default=[], help="MxNxK to keep (repeatable)")
    ap.add_argument("--precision", default=None, help="keep one precision")
    args = ap.parse_args()

    db = sqlite3.connect(f"file:{args.cache}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT g.name, g.cc_major, g.cc_minor, g.sm_count, t.m, t.n, t.k, t.precision, t.layout,"
        " t.align, t.kernel_id, t.disposition, coalesce(t.time_ms, 0), coalesce(t.compile_ms, 0)"
        " FROM trials t JOIN gpus g ON g.id = t.gpu_id ORDER BY t.id").fetchall()
    shapes = set()
    for s in args.shape:
        try:
            shapes.add(tuple(int(x) for x in s.lower().split("x")))
        except ValueError:
            print(f"bad --shape '{s}': expected MxNxK", file=sys.stderr)
            return 2
    compiled = {}
    for r in rows:
        if r[13] > 0:
            compiled[r[10]] = max(compiled.get(r[10], 0.0), r[13])
    seen = set()
    written = 0
    with open(args.out, "w") as out:
        for (gname, major, minor, sms, m, n, k, prec, layout, align, kernel, disp, time_ms,
             compile_ms) in rows:
            if shapes and (m, n, k) not in shapes:
                continue
            if args.precision and prec != args.precision:
                continue
            key = (gname, major, minor, sms, m, n, k, prec, layout, align, kernel)
            if key in seen:
                continue
            seen.add(key)
            line = {
                "gpu": {"name": gname, "cc": f"{major}.{minor}", "sm_count": sms},
                "problem": {"m": m, "n": n, "k": k, "precision": prec, "layout": layout,
                            "align": align},
                "kernel": kernel,
                "disposition": disp,
                "time_ms": round(time_ms, 6) if disp == "ok" else 0.0,
                "compile_ms": round(compile_ms if compile_ms > 0 else compiled.get(kernel, 0.0), 1),
            }
            out.write(json.dumps(line, separators=(",", ":")) + "\n")
            written += 1
    print(f"wrote {written} trials to {args.out}", file=sys.stderr)
    return 0 if written else 3


if __name__ == "__main__":
    sys.exit(main())
