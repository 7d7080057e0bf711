"""Which operand tiles the blocks of one GPC ask for at the same k step, from sm_placement's JSON:

   placement_merge.py PLACEMENT_JSON [M N]

For each wgmma layout of work listed below (PE=0, GM=1, at M x N, default 1024 x 1024) prints
the bytes the L2 would send per byte the SMs receive if requests for one operand tile (same rows
of A or columns of B, same K slice) merged only among the blocks of one GPC, beside what the
cluster's multicast alone saves, and the measured ratio where one exists (ncu's L2 -> coalescer
sectors over coalescer -> SM sectors, bench/results/2026-12-06-h100-*.md). A GPC-local
coalescer predicts the measured order; a GPU-wide one would not depend on the placement."""
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


def blocks(m, n, bm, bn, cl, ca, sk):
    """Per block index: (unit, rank, tile row, tile column, K part), as the wgmma template's
    block_tile and rank_k_range assign them (GM=1)."""
    share_b, share_a, k_split = cl > 1 and ca == 0, cl > 1 and ca == 1, cl > 1 and ca == 2
    tm_n, tn_n = -(-m // bm), -(-n // bn)
    um = -(-tm_n // cl) if share_b else tm_n
    un = -(-tn_n // cl) if share_a else tn_n
    out = []
    for u in range(um * un * sk):
        sl, t = divmod(u, um * un)
        a, b = divmod(t, un)
        for r in range(cl):
            out.append((u, r, a * cl + r if share_b else a, b * cl + r if share_a else b,
                        sl * 2 + (r if k_split else 0)))
    return out, share_a, share_b


def ratios(placement, m, n, bm, bn, cl, ca, sk):
    gpc_of = {s: g for g, sms in enumerate(placement["gpcs"]) for s in sms}
    bl, share_a, share_b = blocks(m, n, bm, bn, cl, ca, sk)
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
    m, n = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (1024, 1024)
    print("GPC sizes:", sorted(len(g) for g in placement["gpcs"]))
    print("%-24s %10s %10s %9s" % ("kernel", "GPC-local", "multicast", "measured"))
    for name, bm, bn, cl, ca, sk, measured in KERNELS:
        r = ratios(placement, m, n, bm, bn, cl, ca, sk)
        if r is None:
            print("%-24s more blocks than the probe placed" % name)
            continue
        print("%-24s %10.2f %10.2f %9.2f" % (name, r[0], r[1], measured))


if __name__ == "__main__":
    main()
