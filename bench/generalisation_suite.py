#!/usr/bin/env python3
"""Draws the generalisation suite: GEMM shapes of real models, chosen by a fixed seed, not by us.

Each shape is one linear layer of a transformer family (attention projections with grouped KV
heads, the FFN's up/gate and down projections, the vocabulary projection) at a token count from
1 to 16384: (M, N, K) = (tokens, output features, input features), row-major C = A·B as
torch.matmul runs it. A quarter of the draws are made unaligned on purpose (a token count, or a
padded vocabulary or odd hidden size, whose rows are not 16-byte aligned), since users bring
those too. Work is capped so one shape tunes in seconds, not minutes.

    bench/generalisation_suite.py [--seed N] [--count N] [--out FILE] [--unaligned-only]

--unaligned-only keeps only the draws whose packed row-major storage (layout NN) is not 16-byte
aligned in 16-bit types (N or K not a multiple of 8): a suite of the alignment class alone.

Writes the shapes file (one "M N K" per line, as bench/shapes_core.txt) with a header naming the
seed and the layer each shape came from. Re-running with the same seed writes the same file.
"""
import argparse
import random

# (family, hidden, FFN inner size, attention heads, KV heads, vocabulary)
MODELS = [
    ("gpt2", 768, 3072, 12, 12, 50257),
    ("bert-large", 1024, 4096, 16, 16, 30522),
    ("llama-2-7b", 4096, 11008, 32, 32, 32000),
    ("llama-2-13b", 5120, 13824, 40, 40, 32000),
    ("llama-3-8b", 4096, 14336, 32, 8, 128256),
    ("llama-3-70b", 8192, 28672, 64, 8, 128256),
    ("mistral-7b", 4096, 14336, 32, 8, 32000),
    ("qwen2-7b", 3584, 18944, 28, 4, 152064),
    ("gemma-7b", 3072, 24576, 16, 16, 256000),
    ("phi-3-mini", 3072, 8192, 32, 32, 32064),
]
TOKENS = [1, 4, 16, 32, 64, 96, 128, 200, 256, 384, 512, 1024, 2048, 3072, 4096, 8192, 16384]
# Unaligned variants: token counts and sizes whose 2-byte rows are not 16-byte aligned.
ODD_TOKENS = [3, 7, 15, 33, 77, 127, 255, 511, 1000, 1537, 3001]
MAX_WORK = 1 << 38       # M·N·K: about 8192 x 8192 x 4096
MAX_ELEMENTS = 1 << 28   # of any one operand


def layers(model):
    name, hidden, ffn, heads, kv_heads, vocab = model
    head_dim = hidden // heads
    return [
        ("q_proj", hidden, hidden),
        ("kv_proj", 2 * kv_heads * head_dim, hidden),
        ("o_proj", hidden, hidden),
        ("up_proj", ffn, hidden),
        ("down_proj", hidden, ffn),
        ("lm_head", vocab, hidden),
    ]


def draw(rng, count, unaligned_only=False):
    shapes, seen = [], set()
    while len(shapes) < count:
        model = rng.choice(MODELS)
        layer, n, k = rng.choice(layers(model))
        unaligned = rng.random() < 0.25
        m = rng.choice(ODD_TOKENS if unaligned else TOKENS)
        if unaligned and rng.random() < 0.5:
            # An odd size on the feature side instead: a vocabulary padded by one, or K cut short.
            if rng.random() < 0.5:
                n += 1
            else:
                k -= 1
        if m * n * k > MAX_WORK or max(m * k, k * n, m * n) > MAX_ELEMENTS:
            continue
        if (m, n, k) in seen:
            continue
        if unaligned_only and n % 8 == 0 and k % 8 == 0:
            continue
        seen.add((m, n, k))
        shapes.append((m, n, k, f"{model[0]} {layer}, {m} tokens"))
    return shapes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--count", type=int, default=44)
    ap.add_argument("--out", default="bench/shapes_general.txt")
    ap.add_argument("--unaligned-only", action="store_true")
    a = ap.parse_args()
    shapes = draw(random.Random(a.seed), a.count, a.unaligned_only)
    unaligned = sum(1 for m, n, k, _ in shapes if m % 8 or n % 8 or k % 8)
    with open(a.out, "w") as f:
        f.write(f"# The generalisation suite: {len(shapes)} GEMM shapes of real models, drawn by\n"
                f"# bench/generalisation_suite.py --seed {a.seed} --count {a.count}"
                f"{' --unaligned-only' if a.unaligned_only else ''}\n"
                f"# ({unaligned} with an M, N or K that is not a multiple of 8). M N K per line;\n"
                f"# the comment after each names the layer it came from. Do not edit: re-draw.\n")
        for m, n, k, what in shapes:
            f.write(f"{m} {n} {k}  # {what}\n")


if __name__ == "__main__":
    main()
