// Host-side comparison of candidate output with the reference: elementwise bound, error
// figures, and a reason naming the worst element in (row, column) terms. Large outputs are
// compared in fixed blocks spread over the host's cores; the result never depends on the split.
#include "src/gpu/verifier.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "src/gpu/host_parallel.hpp"

namespace gemmtune {
namespace {

std::string at(std::int64_t index, std::int64_t cols) {
  return "(i,j)=(" + std::to_string(index / cols) + "," + std::to_string(index % cols) + ")";
}

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

double ToleranceModel::bound(double s, double r) const {
  return tau_in * s + gamma * s + u_out * std::fabs(r) + floor;
}

ToleranceModel tolerance_model(Precision p, std::int64_t k, double max_s) {
  double const u24 = std::ldexp(1.0, -24);
  ToleranceModel t;
  t.tau_in = p == Precision::kTF32 ? 2.0 * std::ldexp(1.0, -10) : 0.0;
  t.gamma = kGammaC * std::sqrt(static_cast<double>(k)) * u24;
  if (is_fp8(p)) {
    // The reference multiplies the same quantized values exactly, so FP8 inputs add no error;
    // but Hopper's tensor cores keep FP8 sums to about 14 bits between the k32 steps of one
    // chain of wgmma (and cuBLASLt's fast accumulation does the same), so the accumulation
    // term is that unit over the √(K/32) steps instead of FP32's over √K additions.
    t.gamma = kGammaC * std::sqrt(static_cast<double>(k) / 32.0) * std::ldexp(1.0, -kFp8AccumBits);
  }
  switch (output_precision(p)) {
    case Precision::kFP32:
    case Precision::kTF32: t.u_out = u24; break;
    case Precision::kFP16: t.u_out = std::ldexp(1.0, -11); break;
    default: t.u_out = std::ldexp(1.0, -8); break;  // bf16, and FP8's bf16 C
  }
  // Below the output type's smallest subnormal, rounding error is absolute, not relative.
  double const tiny = p == Precision::kFP16 ? std::ldexp(1.0, -25)
                                            : std::numeric_limits<float>::denorm_min();
  t.floor = std::max(kFloorRelative * max_s, tiny);
  return t;
}

namespace {

/// Elements per block of the comparisons. The sums of squares are taken per block and the
/// block sums added in index order, so the figures do not depend on how many threads ran.
constexpr std::size_t kBlock = std::size_t{1} << 14;

std::size_t block_count(std::size_t n) { return (n + kBlock - 1) / kBlock; }

/// One block of the tolerance comparison. `worst` follows the serial rule "the first finite
/// element, then any strictly larger ratio"; to merge blocks exactly that needs the block's
/// first finite element and its first maximum over the ratios that are not NaN.
struct ToleranceBlock {
  std::int64_t first_finite = -1, first_nonfinite = -1, nonfinite = 0, over = 0;
  double first_ratio = 0.0;
  std::int64_t max_at = -1;  // first index of the largest non-NaN ratio
  double max_ratio = 0.0;
  double max_abs_err = 0.0, diff2 = 0.0, ref2 = 0.0;
};

}  // namespace

ToleranceReport compare_with_tolerance(std::span<float const> c, std::span<float const> r,
                                       std::span<float const> s, std::int64_t cols,
                                       ToleranceModel const& model) {
  return compare_with_tolerance(c, r, s, cols, model, host_threads());
}

ToleranceReport compare_with_tolerance(std::span<float const> c, std::span<float const> r,
                                       std::span<float const> s, std::int64_t cols,
                                       ToleranceModel const& model, int threads) {
  std::vector<ToleranceBlock> blocks(block_count(c.size()));
  parallel_ranges(blocks.size(), threads, [&](std::size_t first_block, std::size_t end_block) {
    for (std::size_t bi = first_block; bi < end_block; ++bi) {
      ToleranceBlock b;  // a local, so neighbouring threads do not share cache lines
      std::size_t const end = std::min(c.size(), (bi + 1) * kBlock);
      for (std::size_t i = bi * kBlock; i < end; ++i) {
        double const cv = c[i];
        double const rv = r[i];
        auto const index = static_cast<std::int64_t>(i);
        if (!std::isfinite(cv) || !std::isfinite(rv)) {
          ++b.nonfinite;
          if (b.first_nonfinite < 0) b.first_nonfinite = index;
          continue;
        }
        double const err = std::fabs(cv - rv);
        double const ratio = err / model.bound(s[i], rv);
        b.diff2 += err * err;
        b.ref2 += rv * rv;
        if (err > b.max_abs_err) b.max_abs_err = err;
        if (ratio > 1.0) ++b.over;
        if (b.first_finite < 0) {
          b.first_finite = index;
          b.first_ratio = ratio;
        }
        if (!std::isnan(ratio) && (b.max_at < 0 || ratio > b.max_ratio)) {
          b.max_ratio = ratio;
          b.max_at = index;
        }
      }
      blocks[bi] = b;
    }
  }, 4);

  ToleranceReport rep;
  std::int64_t first_nonfinite = -1, worst = -1, nonfinite = 0;
  double diff2 = 0.0, ref2 = 0.0;
  for (ToleranceBlock const& b : blocks) {
    nonfinite += b.nonfinite;
    if (first_nonfinite < 0) first_nonfinite = b.first_nonfinite;
    rep.bad_elements += b.over;
    diff2 += b.diff2;
    ref2 += b.ref2;
    if (b.max_abs_err > rep.max_abs_err) rep.max_abs_err = b.max_abs_err;
    if (b.first_finite < 0) continue;
    if (worst < 0) {
      // Serially the block's first finite element would be taken whatever its ratio; after
      // a NaN ratio nothing compares larger, else the block's first maximum takes over.
      worst = b.first_finite;
      rep.max_err_ratio = b.first_ratio;
      if (!std::isnan(b.first_ratio) && b.max_ratio > rep.max_err_ratio) {
        worst = b.max_at;
        rep.max_err_ratio = b.max_ratio;
      }
    } else if (b.max_at >= 0 && b.max_ratio > rep.max_err_ratio) {
      worst = b.max_at;
      rep.max_err_ratio = b.max_ratio;
    }
  }
  rep.rel_fro_err = ref2 > 0.0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  rep.bad_elements += nonfinite;
  if (nonfinite > 0) {
    rep.pass = false;
    auto const k = static_cast<std::size_t>(first_nonfinite);
    std::string const what = std::isnan(c[k])   ? "unwritten output (NaN)"
                             : std::isinf(c[k]) ? "non-finite output (inf)"
                                                : "non-finite reference";
    rep.reason = what + " at " + at(first_nonfinite, cols) + "; " + std::to_string(nonfinite) +
                 " non-finite element" + (nonfinite == 1 ? "" : "s");
    if (rep.bad_elements > nonfinite) {
      rep.reason += ", " + std::to_string(rep.bad_elements - nonfinite) + " over the bound";
    }
  } else if (rep.bad_elements > 0) {
    rep.pass = false;
    rep.reason = "max |C-R|/bound = " + sci(rep.max_err_ratio) + " at " + at(worst, cols) + "; " +
                 std::to_string(rep.bad_elements) + " bad element" +
                 (rep.bad_elements == 1 ? "" : "s");
  }
  return rep;
}

ExactReport compare_exact(std::span<float const> c, std::span<float const> r, std::int64_t cols) {
  return compare_exact(c, r, cols, host_threads());
}

ExactReport compare_exact(std::span<float const> c, std::span<float const> r, std::int64_t cols,
                          int threads) {
  struct Block {
    std::int64_t mismatches = 0, first = -1;
  };
  std::vector<Block> blocks(block_count(c.size()));
  parallel_ranges(blocks.size(), threads, [&](std::size_t first_block, std::size_t end_block) {
    for (std::size_t bi = first_block; bi < end_block; ++bi) {
      Block b;
      std::size_t const end = std::min(c.size(), (bi + 1) * kBlock);
      for (std::size_t i = bi * kBlock; i < end; ++i) {
        if (!(c[i] == r[i])) {  // NaN never equals; +0 == −0 on purpose
          if (b.first < 0) b.first = static_cast<std::int64_t>(i);
          ++b.mismatches;
        }
      }
      blocks[bi] = b;
    }
  }, 4);
  ExactReport rep;
  std::int64_t first = -1;
  for (Block const& b : blocks) {
    rep.mismatches += b.mismatches;
    if (first < 0) first = b.first;
  }
  if (rep.mismatches > 0) {
    auto const k = static_cast<std::size_t>(first);
    rep.reason = "exact pass: " + std::to_string(rep.mismatches) + " of " +
                 std::to_string(c.size()) + " elements differ from the reference; first at " +
                 at(first, cols) + ": " + sci(c[k]) + " vs " + sci(r[k]);
  }
  return rep;
}

}  // namespace gemmtune
