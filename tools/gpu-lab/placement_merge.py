"""Which operand tiles the blocks of one GPC ask for at the same k step, from sm_placement's JSON:

   placement_merge.py PLACEMENT_JSON [M N]
   placement_merge.py PLACEMENT_JSON --raster

For each wgmma layout of work listed below (PE=0, GM=1, PL=1, at M x N, default 1024 x 1024)
prints the bytes the L2 would send per byte the SMs receive if requests for one operand tile
(same rows of A or columns of B, same K slice) merged only among the blocks of one GPC, beside
what the cluster's multicast alone saves, and the measured ratio where one exists (ncu's L2 ->
coalescer sectors over coalescer -> SM sectors, bench/results/2026-12-06-h100-*.md). A GPC-local
coalescer predicts the measured order; a GPU-wide one would not depend on the placement.
--raster prints the same ideal for the clustered layouts of RASTER_CASES under grouped rasters
GM = 1, 2, 4, 8 and cluster dealing PL = 1, 8 (the wgmma template's grouped() and
placed_unit(): with PL = 8, cluster c of a run of 64 takes the position of c in the columns
c mod 8 laid end to end). Only one wave is modelled: layouts with more blocks than the probe
placed print '-'."""
import json
import sys
from collections import defaultdict

# name, BM, BN, CL, CA, SK, measured L2 sends / SM receipts at 1024x1024x16384 NN (H100)
KERNELS = [
    ("128x64", 128, 64, 1, 0, 1, 0.53),
    ("64x128 CW=2", 64, 128, 1, 0, 1, 0.65),
    ("128x128 SK=2", 128, 128, 1, 0, 2, 0.44),
    ("128x128 CA=2", 128, 128, 2, 2, 1, 0.90),
    ("64x128 CL=2", 64, 128, 2, 0, 1, 0.64),
    ("128x64 CL=2 CA=1", 128, 64, 2, 1, 1, 0.58),
    ("128x128 SK=2 CL=2", 128, 128, 2, 0, 2, 0.73),
    ("128x128 SK=2 CL=2 CA=1", 128, 128, 2, 1, 2, 0.58),
]

# name, M, N, BM, BN, CL, CA, SK: clustered layouts whose dealing onto GPCs bench/lists/
# wgmma_cluster_placement.txt measures.
RASTER_CASES = [
    ("1024x1024 128x128 CA=2", 1024, 1024, 128, 128, 2, 2, 1),
    ("1024x1024 128x128 SK=2 CL=2", 1024, 1024, 128, 128, 2, 0, 2),
    ("1024x1024 64x128 CL=2", 1024, 1024, 64, 128, 2, 0, 1),
    ("256x4096 128x128 CA=2", 256, 4096, 128, 128, 2, 2, 1),
    ("128x4096 64x128 CA=2", 128, 4096, 64, 128, 2, 2, 1),
    ("512x4096 128x128 CL=2", 512, 4096, 128, 128, 2, 0, 1),
    ("4096x512 128x128 CL=2", 4096, 512, 128, 128, 2, 0, 1),
]

DEALT_RUN = 64  # kDealtClusters of the wgmma template


def grouped(t, rows_total, cols, group):
    """Unit t -> (unit row, unit column): `group` rows at a time, column by column."""
    per = group * cols
    first = t // per * group
    rows = min(group, rows_total - first)
    i = t % per
    return first + i % rows, i // rows


def dealt(c, n, s):
    """Position of c of n dealt round robin onto s columns laid end to end."""
    if s <= 1:
        return c
    rows, longer = divmod(n, s)
    g = c % s
    return g * rows + min(g, longer) + c // s


def blocks(m, n, bm, bn, cl, ca, sk, gm=1, pl=1):
    """Per block index in launch order: (unit, rank, tile row, tile column, K part), as the
    wgmma template's placed_unit, block_tile and rank_k_range assign them (PE=0)."""
    share_b, share_a, k_split = cl > 1 and ca == 0, cl > 1 and ca == 1, cl > 1 and ca == 2
    tm_n, tn_n = -(-m // bm), -(-n // bn)
    um = -(-tm_n // cl) if share_b else tm_n
    un = -(-tn_n // cl) if share_a else tn_n
    units = um * un * sk
    out = []
    for c in range(units):
        base = c - c % DEALT_RUN
        u = base + dealt(c - base, min(DEALT_RUN, units - base), pl)
        sl, t = divmod(u, um * un)
        a, b = grouped(t, um, un, gm)
        for r in range(cl):
            out.append((u, r, a * cl + r if share_b else a, b * cl + r if share_a else b,
                        sl * 2 + (r if k_split else 0)))
    return out, share_a, share_b


def ratios(placement, m, n, bm, bn, cl, ca, sk, gm=1, pl=1):
    gpc_of = {s: g for g, sms in enumerate(placement["gpcs"]) for s in sms}
    bl, share_a, share_b = blocks(m, n, bm, bn, cl, ca, sk, gm, pl)
    sm_of = placement["pairs" if cl > 1 else "plain"]
    if len(bl) > len(sm_of):
        return None
    a_bytes, b_bytes = bm * 128, bn * 128
    per_gpc, per_cluster = defaultdict(set), set()
    for i, (u, r, tm, tn, part) in enumerate(bl):
        g = gpc_of[sm_of[i]]
        per_gpc[g].update({("A", tm, part), ("B", tn, part)})
        per_cluster.add(("A", tm, part, u if share_a else (u, r)))
        per_cluster.add(("B", tn, part, u if share_b else (u, r)))
    size = lambda key: a_bytes if key[0] == "A" else b_bytes
    received = len(bl) * (a_bytes + b_bytes)
    gpc = sum(size(k) for keys in per_gpc.values() for k in keys)
    return gpc / received, sum(size(k) for k in per_cluster) / received


def main():
    placement = json.load(open(sys.argv[1], encoding="utf-8"))
    print("GPC sizes:", sorted(len(g) for g in placement["gpcs"]))
    if "--raster" in sys.argv[2:]:
        print("GPC-local ideal by GM (rows) and PL (columns 1, 8)")
        for name, m, n, bm, bn, cl, ca, sk in RASTER_CASES:
            cells = []
            for gm in (1, 2, 4, 8):
                for pl in (1, 8):
                    r = ratios(placement, m, n, bm, bn, cl, ca, sk, gm, pl)
                    cells.append("-" if r is None else "%.2f" % r[0])
            print("%-28s %s" % (name, "  ".join(cells[i] + " " + cells[i + 1]
                                                  for i in range(0, 8, 2))))
        return
    m, n = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (1024, 1024)
    print("%-24s %10s %10s %9s" % ("kernel", "GPC-local", "multicast", "measured"))
    for name, bm, bn, cl, ca, sk, measured in KERNELS:
        r = ratios(placement, m, n, bm, bn, cl, ca, sk)
        if r is None:
            print("%-24s more blocks than the probe placed" % name)
            continue
        print("%-24s %10.2f %10.2f %9.2f" % (name, r[0], r[1], measured))


if __name__ == "__main__":
    main()
