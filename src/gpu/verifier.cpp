// Host-side comparison of candidate output with the reference: elementwise bound, error
// figures, and a reason naming the worst element in (row, column) terms.
#include "gpu/verifier.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

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
  switch (p) {
    case Precision::kFP32:
    case Precision::kTF32: t.u_out = u24; break;
    case Precision::kFP16: t.u_out = std::ldexp(1.0, -11); break;
    case Precision::kBF16: t.u_out = std::ldexp(1.0, -8); break;
  }
  // Below the output type's smallest subnormal, rounding error is absolute, not relative.
  double const tiny = p == Precision::kFP16 ? std::ldexp(1.0, -25)
                                            : std::numeric_limits<float>::denorm_min();
  t.floor = std::max(kFloorRelative * max_s, tiny);
  return t;
}

ToleranceReport compare_with_tolerance(std::span<float const> c, std::span<float const> r,
                                       std::span<float const> s, std::int64_t cols,
                                       ToleranceModel const& model) {
  ToleranceReport rep;
  std::int64_t const n = static_cast<std::int64_t>(c.size());
  std::int64_t first_nonfinite = -1, worst = -1, nonfinite = 0;
  double diff2 = 0.0, ref2 = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    double const cv = c[static_cast<std::size_t>(i)];
    double const rv = r[static_cast<std::size_t>(i)];
    if (!std::isfinite(cv) || !std::isfinite(rv)) {
      ++nonfinite;
      if (first_nonfinite < 0) first_nonfinite = i;
      continue;
    }
    double const err = std::fabs(cv - rv);
    double const ratio = err / model.bound(s[static_cast<std::size_t>(i)], rv);
    diff2 += err * err;
    ref2 += rv * rv;
    if (err > rep.max_abs_err) rep.max_abs_err = err;
    if (ratio > 1.0) ++rep.bad_elements;
    if (worst < 0 || ratio > rep.max_err_ratio) {
      rep.max_err_ratio = ratio;
      worst = i;
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
  ExactReport rep;
  std::int64_t first = -1;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (!(c[i] == r[i])) {  // NaN never equals; +0 == −0 on purpose
      if (first < 0) first = static_cast<std::int64_t>(i);
      ++rep.mismatches;
    }
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
