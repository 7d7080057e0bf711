"""The shapes of a suite that the FP8 precisions take, for an FP8 run of that suite.

    python3 bench/fp8_shapes.py bench/shapes_core.txt > core_fp8.txt

FP8 (e4m3) needs K a multiple of 16 and N a multiple of 8 (16-byte rows of A, B and the bf16 C:
Problem::unsupported_reason), and gemmtune refuses a shapes file with any other shape. This
writes the suite's lines that qualify, and names the ones left out in a comment at the top, so
the run's record says which shapes it could not measure."""
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    kept, dropped = [], []
    with open(sys.argv[1]) as f:
        for line in f:
            body = line.split("#", 1)[0].split()
            if len(body) < 3:
                continue
            m, n, k = (int(v) for v in body[:3])
            (kept if k % 16 == 0 and n % 8 == 0 else dropped).append(line.rstrip("\n"))
    print(f"# {sys.argv[1]} for FP8: {len(kept)} of {len(kept) + len(dropped)} shapes "
          "(K a multiple of 16, N of 8)")
    for line in dropped:
        print(f"# left out: {line}")
    for line in kept:
        print(line)


if __name__ == "__main__":
    main()
