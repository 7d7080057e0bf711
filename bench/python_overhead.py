"""Host cost per call of gemmtune from Python, against torch.matmul, on a GPU.

    python bench/python_overhead.py [--table T] [--shape 64x64x64] [--precision bf16] [--out STEM]

For each path, `calls` back-to-back calls on one stream are timed by the wall clock and divided
by their count, after warm-up, on a problem small enough that the GPU finishes each GEMM before
the host queues the next: the figure is the host's cost per call. Paths:
- `extension`: the extension's gemm on fixed pointers and leading dimensions, which is the C++
  Runtime::gemm plus the binding's dispatch;
- `Runtime.matmul(out=)`: the Python API on torch tensors with a preallocated output;
- `Runtime.matmul`: the same, allocating the output;
- `torch.ops.gemmtune.matmul`: the custom op (allocating);
- `torch.matmul` and `torch.mm(out=)`: PyTorch's own call into cuBLAS.
"Added over the C++ call" is each path's figure minus `extension`'s. The median of `rounds`
rounds is reported with its min and max. Writes STEM.md and STEM.json."""
from __future__ import annotations

import argparse
import datetime
import json
import statistics
import time

import torch

import gemmtune
import gemmtune.torch_op  # noqa: F401
from gemmtune import _runtime


def per_call_us(fn, calls: int) -> float:
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    end = time.perf_counter()
    torch.cuda.synchronize()
    return (end - start) / calls * 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--table")
    p.add_argument("--shape", default="64x64x64")
    p.add_argument("--precision", default="bf16", choices=["fp32", "fp16", "bf16"])
    p.add_argument("--calls", type=int, default=4000)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--out", default=None, help="output stem (default bench/results/DATE-h200-"
                   "python-overhead)")
    args = p.parse_args()
    m, n, k = (int(v) for v in args.shape.split("x"))
    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[args.precision]
    rt = gemmtune.Runtime(args.table) if args.table else gemmtune.Runtime()
    gemmtune.set_default_runtime(rt)
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(k, n, device="cuda", dtype=dtype)
    out = torch.empty(m, n, device="cuda", dtype=dtype)
    stream = torch.cuda.current_stream().cuda_stream
    raw = rt._rt
    prec, layout = _runtime.PRECISIONS[args.precision], _runtime.LAYOUTS["NN"]
    pa, pb, pc = a.data_ptr(), b.data_ptr(), out.data_ptr()
    _, info = rt.matmul(a, b, out, info=True)

    paths = {
        "extension": lambda: raw.gemm(prec, layout, m, n, k, 1.0, pa, k, pb, n, 0.0, pc, n,
                                      stream, False),
        "Runtime.matmul(out=)": lambda: rt.matmul(a, b, out),
        "Runtime.matmul": lambda: rt.matmul(a, b),
        "torch.ops.gemmtune.matmul": lambda: torch.ops.gemmtune.matmul(a, b, 1.0, False, False),
        "torch.matmul": lambda: torch.matmul(a, b),
        "torch.mm(out=)": lambda: torch.mm(a, b, out=out),
    }
    for fn in paths.values():  # warm-up: compile, load, allocator
        per_call_us(fn, 200)
    rounds = {name: [] for name in paths}
    for _ in range(args.rounds):
        for name, fn in paths.items():  # interleaved, so drift hits every path alike
            rounds[name].append(per_call_us(fn, args.calls))
    base = statistics.median(rounds["extension"])
    rows = []
    for name, values in rounds.items():
        med = statistics.median(values)
        rows.append({"path": name, "median_us": med, "min_us": min(values),
                     "max_us": max(values), "added_over_cpp_us": med - base})

    stem = args.out or (f"bench/results/{datetime.date.today().isoformat()}-h200-python-"
                        "overhead")
    doc = {"shape": args.shape, "precision": args.precision, "calls": args.calls,
           "rounds": args.rounds, "table": args.table, "runtime": rt.describe(),
           "gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
           "kernel_path": info.path, "kernel": info.kernel, "rule": info.rule, "rows": rows}
    with open(stem + ".json", "w") as f:
        json.dump(doc, f, indent=2)
    with open(stem + ".md", "w") as f:
        f.write(f"# Host cost per call from Python: {args.shape} {args.precision}\n\n"
                f"{doc['gpu']}, torch {torch.__version__}; {args.calls} calls per round, "
                f"median of {args.rounds} interleaved rounds (min–max). The call ran "
                f"`{info.path}` ({info.rule or 'no table'}) {info.kernel}.\n\n"
                "| path | µs per call | min–max | added over the C++ call |\n|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['path']} | {r['median_us']:.2f} | {r['min_us']:.2f}–{r['max_us']:.2f}"
                    f" | {r['added_over_cpp_us']:+.2f} |\n")
    print(open(stem + ".md").read())


if __name__ == "__main__":
    main()
