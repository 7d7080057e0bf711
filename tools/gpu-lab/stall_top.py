"""Where the warps of one profiled kernel wait, from ncu's source page of SASS:

   stall_top.py SASS_CSV [N]

SASS_CSV is `ncu -i REPORT --page source --csv --print-source sass` (the details= step of
gpu_check.sh writes it). Prints the kernel's stall reasons as shares of all warp samples, then
the N instructions (default 14) with the most samples, their execution count and top two
reasons. Samples are per warp: warps that idle for the whole kernel (a producer warpgroup's
spare warps at an exit or a barrier) count as much as the ones on the critical path, so read
execution counts beside them."""
import collections
import csv
import sys


def main():
    path = sys.argv[1]
    top_n = int(sys.argv[2]) if len(sys.argv) > 2 else 14
    rows = list(csv.reader(open(path, encoding="utf-8")))
    # Row 0 names the kernel; row 1 is the header.
    header, data = rows[1], rows[2:]
    col = {h: i for i, h in enumerate(header)}
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    totals = collections.Counter()
    total = 0
    per_instruction = []
    for r in data:
        if len(r) < len(header):
            continue
        samples = int(r[col["Warp Stall Sampling (All Samples)"]] or 0)
        total += samples
        by_reason = {h: int(r[col[h]] or 0) for h in reasons}
        totals.update(by_reason)
        per_instruction.append((samples, r[col["Address"]], r[col["Source"]].strip(),
                                r[col["Instructions Executed"]], by_reason))
    if total == 0:
        sys.exit(f"{path}: no warp samples")
    print(f"{rows[0][1] if len(rows[0]) > 1 else path}: {total} samples")
    for name, n in totals.most_common(8):
        print(f"  {name:24s} {n:7d} {100 * n / total:5.1f}%")
    per_instruction.sort(key=lambda t: -t[0])
    for samples, address, source, executed, by_reason in per_instruction[:top_n]:
        top = sorted(by_reason.items(), key=lambda kv: -kv[1])[:2]
        why = ", ".join(f"{k[6:]} {v}" for k, v in top if v)
        print(f"{samples:6d} {100 * samples / total:5.1f}%  {address[-5:]}  "
              f"executed {executed:>8s}  {source[:60]:60s} {why}")


if __name__ == "__main__":
    main()
