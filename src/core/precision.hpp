// Precision and layout enums, their text forms and element sizes (DESIGN.md §3).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace gemmtune {

/// Input / accumulate / output contract of a GEMM.
/// kFP32: FP32 FMA on CUDA cores only; kTF32: TF32 tensor cores, FP32 in/out;
/// kFP16 / kBF16: 16-bit inputs and output, FP32 accumulation; kE4M3: FP8 e4m3 inputs with one
/// FP32 scale per operand (per-tensor scaling: C = alpha·sa·sb·op(A)·op(B) + beta·C), FP32
/// accumulation, bf16 output; kE4M3Row: the same with row-wise scales, a vector of M for the
/// rows of op(A) and one of N for the columns of op(B) (C[i][j] = alpha·sa[i]·sb[j]·(op(A)·op(B))[i][j]
/// + beta·C[i][j]); kE4M3Blk: the same with block scales as DeepSeek-V3 trains, one per row of
/// op(A) and 128-deep block of K, one per 128×128 block of op(B) (C[i][j] = alpha·Σ_kb
/// sa[kb][i]·sb[j/128][kb]·Σ_{k in kb} op(A)[i][k]·op(B)[k][j] + beta·C[i][j]; layouts in
/// block_scale_a_index / block_scale_b_index). kE5M2, kE5M2Row, kE5M2Blk: the same three
/// scalings with A in e5m2 and B in e4m3, the pair FP8 training's gradient GEMMs take (the
/// gradient, with e5m2's range, on the left; cuBLASLt on Hopper takes no e5m2·e5m2, so a
/// caller with the gradient on the right swaps the operands of Cᵀ = Bᵀ·Aᵀ). The scaling mode
/// and the element pair are part of the precision, so an entry tuned for one can never serve
/// a call with another.
enum class Precision { kFP32, kTF32, kFP16, kBF16, kE4M3, kE4M3Row, kE4M3Blk, kE5M2, kE5M2Row, kE5M2Blk };

/// Row-major storage as in torch.matmul: C = op(A)·op(B), N keeps X, T uses Xᵀ.
/// First letter is A's op, second is B's.
enum class Layout { kNN, kNT, kTN, kTT };

inline constexpr std::array<Precision, 10> kAllPrecisions = {
    Precision::kFP32, Precision::kTF32,    Precision::kFP16,    Precision::kBF16,
    Precision::kE4M3, Precision::kE4M3Row, Precision::kE4M3Blk, Precision::kE5M2,
    Precision::kE5M2Row, Precision::kE5M2Blk};
inline constexpr std::array<Layout, 4> kAllLayouts = {Layout::kNN, Layout::kNT, Layout::kTN,
                                                      Layout::kTT};

/// "fp32", "tf32", "fp16", "bf16", "e4m3", "e4m3-row", "e4m3-blk", "e5m2", "e5m2-row",
/// "e5m2-blk".
std::string_view to_string(Precision p);
/// "NN", "NT", "TN", "TT".
std::string_view to_string(Layout l);
/// Parses a precision name (case-insensitive); throws UsageError naming the text and the choices.
Precision parse_precision(std::string_view text);
/// Parses a layout name (case-insensitive); throws UsageError naming the text and the choices.
Layout parse_layout(std::string_view text);

/// Bytes of one element of A and B in memory (4 for fp32 and tf32, 2 for fp16 and bf16, 1 for
/// the FP8 precisions).
int input_bytes(Precision p);
/// Bytes of one element of C in memory (4 for fp32 and tf32, 2 for fp16, bf16 and FP8).
int output_bytes(Precision p);
/// The precision whose storage C uses: bf16 for FP8, `p` itself otherwise.
Precision output_precision(Precision p);
/// True for the FP8 precisions, whose calls carry scales for both operands.
bool is_fp8(Precision p);
/// True for row-wise scaled FP8: M scales for A's rows and N for B's columns (else one each).
bool row_scaled(Precision p);
/// True for block-scaled FP8 (scales per 1×128 block of op(A), per 128×128 block of op(B)).
bool block_scaled(Precision p);
/// True for the FP8 precisions whose A is e5m2 (B is e4m3 in every FP8 precision).
bool a_is_e5m2(Precision p);
/// The precision whose element format B is stored in: kE4M3 for the e5m2 precisions (whose A
/// alone is e5m2), p otherwise. A is stored in p's own format.
Precision b_storage_precision(Precision p);
/// The e4m3 precision with p's scaling (kE4M3, kE4M3Row or kE4M3Blk) for an FP8 p: what the
/// scaling alone decides (scale layouts, vendor scale modes) reads it; p itself otherwise.
Precision fp8_scaling(Precision p);

/// Elements of K (and of N for B) one block scale covers.
inline constexpr std::int64_t kScaleBlock = 128;
/// Blocks of 128 along K: the columns of A's scales and of B's.
std::int64_t scale_blocks(std::int64_t extent);
/// Offset of the scale of row i of op(A) and K block kb in a block-scaled call's scale_a: the
/// M rows of one K block are adjacent (element (i, kb) at kb·M + i), as cuBLASLt's
/// VEC128_32F scales and torch's 1×128 blockwise scales (shape M×⌈K/128⌉, strides 1 and M).
std::int64_t block_scale_a_index(std::int64_t m, std::int64_t i, std::int64_t kb);
/// Row stride of B's block scales: ⌈K/128⌉ rounded up to 4 floats (16 bytes), as cuBLASLt's
/// BLK128x128_32F scales and torch's 128×128 blockwise scales are laid out.
std::int64_t block_scale_b_stride(std::int64_t k);
/// Offset of the scale of column j of op(B) (N block j/128) and K block kb in scale_b:
/// (j/128)·block_scale_b_stride(K) + kb.
std::int64_t block_scale_b_index(std::int64_t k, std::int64_t j, std::int64_t kb);
/// Floats of a call's scale_a and scale_b for problem sizes M, N, K: 1 and 1 (per tensor), M
/// and N (row-wise), M·⌈K/128⌉ and ⌈N/128⌉·block_scale_b_stride(K) (block-scaled); 0 and 0 for
/// the precisions without scales.
std::int64_t scale_a_count(Precision p, std::int64_t m, std::int64_t k);
std::int64_t scale_b_count(Precision p, std::int64_t n, std::int64_t k);
/// Every precision name, "fp32, tf32, ..., e4m3-row" (for messages).
std::string precision_names();
/// True when op(A) is Aᵀ, i.e. A is stored K×M row-major.
bool a_transposed(Layout l);
/// True when op(B) is Bᵀ, i.e. B is stored N×K row-major.
bool b_transposed(Layout l);

}  // namespace gemmtune
