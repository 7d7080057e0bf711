// Precision and layout enums, their text forms and element sizes (DESIGN.md §3).
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace gemmtune {

/// Input / accumulate / output contract of a GEMM.
/// kFP32: FP32 FMA on CUDA cores only; kTF32: TF32 tensor cores, FP32 in/out;
/// kFP16 / kBF16: 16-bit inputs and output, FP32 accumulation; kE4M3: FP8 e4m3 inputs with one
/// FP32 scale per operand (per-tensor scaling: C = alpha·sa·sb·op(A)·op(B) + beta·C), FP32
/// accumulation, bf16 output; kE4M3Row: the same with row-wise scales, a vector of M for the
/// rows of op(A) and one of N for the columns of op(B) (C[i][j] = alpha·sa[i]·sb[j]·(op(A)·op(B))[i][j]
/// + beta·C[i][j]). The scaling mode is part of the precision, so an entry tuned for one scaling
/// can never serve a call with another.
enum class Precision { kFP32, kTF32, kFP16, kBF16, kE4M3, kE4M3Row };

/// Row-major storage as in torch.matmul: C = op(A)·op(B), N keeps X, T uses Xᵀ.
/// First letter is A's op, second is B's.
enum class Layout { kNN, kNT, kTN, kTT };

inline constexpr std::array<Precision, 6> kAllPrecisions = {
    Precision::kFP32, Precision::kTF32, Precision::kFP16,
    Precision::kBF16, Precision::kE4M3, Precision::kE4M3Row};
inline constexpr std::array<Layout, 4> kAllLayouts = {Layout::kNN, Layout::kNT, Layout::kTN,
                                                      Layout::kTT};

/// "fp32", "tf32", "fp16", "bf16", "e4m3", "e4m3-row".
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
/// Every precision name, "fp32, tf32, ..., e4m3-row" (for messages).
std::string precision_names();
/// True when op(A) is Aᵀ, i.e. A is stored K×M row-major.
bool a_transposed(Layout l);
/// True when op(B) is Bᵀ, i.e. B is stored N×K row-major.
bool b_transposed(Layout l);

}  // namespace gemmtune
