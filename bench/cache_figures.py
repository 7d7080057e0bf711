"""Reading a gemmtune cache's figures for the bench scripts (no gemmtune build needed).

first_ok_times: each kernel's first verified figure on each problem, the search-time
measurement, picked as the export does (the row of the lowest attempt), so every kernel of a
problem is compared under one timing protocol.
"""
import sqlite3

FIRST_OK = """
SELECT m, n, k, precision, layout, align, kernel_id, time_ms, MIN(attempt)
FROM trials WHERE disposition = 'ok' AND time_ms > 0
GROUP BY gpu_id, m, n, k, precision, layout, align, kernel_id"""


def first_ok_times(path):
    """{(m, n, k, precision, layout, align): {kernel_id: time_ms}} of a cache file, read-only."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = {}
    for m, n, k, prec, layout, align, kernel, ms, _ in con.execute(FIRST_OK):
        out.setdefault((m, n, k, prec, layout, align), {})[kernel] = ms
    con.close()
    return out
