"""A small transformer MLP block whose linear layers run through a gemmtune table.

    pip install ./python
    gemmtune shapes --hf-config config.json -o shapes.txt      # or write the shapes by hand
    gemmtune search --shapes-file shapes.txt --precision bf16 --layout NT --budget 30s
    gemmtune export --precision bf16 --out table.json
    python examples/tuned_linear.py --table table.json

Each nn.Linear keeps its weight (N×K, as torch stores it) and computes x·Wᵀ with
`gemmtune.matmul(x, W, trans_b=True)`: the NT layout, with no copy of the weight. The script
checks the block against plain PyTorch, says which kernel each layer ran, and times both with
CUDA-graph replay."""
from __future__ import annotations

import argparse

import torch
import torch.nn as nn

import gemmtune
import gemmtune.torch_op  # noqa: F401  (registers torch.ops.gemmtune.matmul)


class TunedLinear(nn.Module):
    """nn.Linear's computation through the tuned table (bias added by torch)."""

    def __init__(self, linear: nn.Linear):
        super().__init__()
        self.weight = linear.weight
        self.bias = linear.bias

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lead = x.shape[:-1]
        y = torch.ops.gemmtune.matmul(x.reshape(-1, x.shape[-1]), self.weight, 1.0, False, True)
        y = y.reshape(*lead, y.shape[-1])
        return y + self.bias if self.bias is not None else y


class MlpBlock(nn.Module):
    """Llama-style gated MLP: down(silu(gate(x)) * up(x))."""

    def __init__(self, hidden: int, ffn: int):
        super().__init__()
        self.gate = nn.Linear(hidden, ffn, bias=False)
        self.up = nn.Linear(hidden, ffn, bias=False)
        self.down = nn.Linear(ffn, hidden, bias=False)

    def forward(self, x):
        return self.down(nn.functional.silu(self.gate(x)) * self.up(x))


def tuned_copy(block: MlpBlock) -> MlpBlock:
    out = MlpBlock.__new__(MlpBlock)
    nn.Module.__init__(out)
    out.gate, out.up, out.down = (TunedLinear(block.gate), TunedLinear(block.up),
                                  TunedLinear(block.down))
    return out


def graph_time_ms(fn, x, replays: int = 50) -> float:
    """Median GPU time of one call, by CUDA-graph replay (launch cost removed)."""
    for _ in range(3):
        fn(x)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn(x)
    times = []
    for _ in range(replays):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", help="tuning table (default: $GEMMTUNE_TABLE)")
    parser.add_argument("--tokens", type=int, default=512)
    parser.add_argument("--hidden", type=int, default=4096)
    parser.add_argument("--ffn", type=int, default=11008)
    args = parser.parse_args()
    if args.table:
        gemmtune.set_default_runtime(gemmtune.Runtime(args.table))
    rt = gemmtune.default_runtime()
    print(rt.describe())

    torch.manual_seed(0)
    block = MlpBlock(args.hidden, args.ffn).to("cuda", torch.bfloat16)
    tuned = tuned_copy(block)
    x = torch.randn(args.tokens, args.hidden, device="cuda", dtype=torch.bfloat16)
    with torch.no_grad():
        want, got = block(x), tuned(x)
        torch.cuda.synchronize()
        err = (got.float() - want.float()).abs().max().item()
        scale = want.float().abs().max().item()
        print(f"max |tuned - torch| = {err:.4g} (outputs up to {scale:.4g})")
        for name, layer in (("gate", block.gate), ("up", block.up), ("down", block.down)):
            inp = x if name != "down" else torch.randn(args.tokens, args.ffn, device="cuda",
                                                       dtype=torch.bfloat16)
            _, info = rt.matmul(inp, layer.weight, trans_b=True, info=True)
            print(f"  {name:4s} {args.tokens}x{layer.weight.shape[0]}x{layer.weight.shape[1]}: "
                  f"{info.path} ({info.rule}) {info.kernel or ''}")
        t_torch, t_tuned = graph_time_ms(block, x), graph_time_ms(tuned, x)
        print(f"GPU time per block (CUDA-graph replay): torch {t_torch:.3f} ms, "
              f"gemmtune {t_tuned:.3f} ms ({t_torch / t_tuned:.3f}x)")
    if err > 0.05 * scale:
        raise SystemExit("the tuned block does not match torch")


if __name__ == "__main__":
    main()
