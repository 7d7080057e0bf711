// The GEMMs PyTorch's TunableOp recorded (tunableop_untuned*.csv, or a results file): its
// column-major BLAS signatures turned into gemmtune's row-major problems, with call counts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/problem.hpp"

namespace gemmtune {

/// One recorded GEMM of a TunableOp file, as a row-major problem.
struct RecordedGemm {
  Problem problem;
  std::int64_t calls = 0;  ///< lines that recorded it
  std::string op;          ///< "GemmTunableOp", "GemmAndBiasTunableOp"
};

/// What a TunableOp file held.
struct TunableOpShapes {
  std::vector<RecordedGemm> gemms;  ///< in order of first appearance
  /// Lines of ops gemmtune does not tune (batched, scaled FP8, double, complex), by op name.
  std::vector<std::pair<std::string, std::int64_t>> skipped;
};

/// Reads the text of a TunableOp CSV: lines "OpSignature,ParamSignature[,...]" such as
/// "GemmTunableOp_BFloat16_TN,tn_4096_1024_4096_ld_4096_4096_4096" (the "_ld_…" part is optional,
/// as older files lack it), and "Validator,…" header lines, which are skipped. PyTorch calls the
/// column-major BLAS with its operands swapped, so the row-major problem is M = n, N = m, K = k
/// and the layout is (transb, transa): "tn" is torch.nn.Linear's NT. float is read as fp32
/// (whether TF32 was allowed is not recorded), Half as fp16, BFloat16 as bf16. Throws Error
/// "<source>:<line>: …" for a line that is not such a signature.
TunableOpShapes read_tunableop_csv(std::string_view text, std::string_view source);

}  // namespace gemmtune
