// Vendor candidate ids: the cublaslt parameter list in one declared order, and its range checks.
#include "src/core/vendor_kernel.hpp"

#include <array>
#include <utility>

#include "src/core/error.hpp"

namespace gemmtune {
namespace {

struct LtParam {
  char const* name;
  std::int64_t LtAlgoConfig::*field;
  std::int64_t lo, hi;
};

// The declared order is the canonical one; a field added by a later cuBLAS goes at the end.
constexpr std::array<LtParam, 10> kLtParams{{
    {"ALGO", &LtAlgoConfig::algo, 0, kMaxLtAlgoId},
    {"TILE", &LtAlgoConfig::tile, 0, kMaxLtTileId},
    {"STAGES", &LtAlgoConfig::stages, 0, kMaxLtStagesId},
    {"SPLITK", &LtAlgoConfig::split_k, 1, kMaxLtSplitK},
    {"RED", &LtAlgoConfig::reduction, 0, kMaxLtReduction},
    {"SWIZZLE", &LtAlgoConfig::swizzle, 0, 1},
    {"CUSTOM", &LtAlgoConfig::custom, 0, kMaxLtCustom},
    {"INNER", &LtAlgoConfig::inner, 0, kMaxLtInner},
    {"CLUSTER", &LtAlgoConfig::cluster, 0, kMaxLtCluster},
    {"COMPUTE", &LtAlgoConfig::compute, 0, 1},
}};

}  // namespace

bool is_vendor_family(std::string_view family) {
  return family == kCublasFamily || family == kCublasLtFamily;
}

bool is_vendor(KernelConfig const& config) { return is_vendor_family(config.family); }

double best_vendor_ms(double cublas_ms, double cublaslt_ms) {
  if (!(cublas_ms > 0)) return cublaslt_ms > 0 ? cublaslt_ms : 0.0;
  return cublaslt_ms > 0 && cublaslt_ms < cublas_ms ? cublaslt_ms : cublas_ms;
}

KernelConfig cublas_default() { return KernelConfig{std::string(kCublasFamily), {}}; }

KernelConfig to_kernel_config(LtAlgoConfig const& algo) {
  KernelConfig c{std::string(kCublasLtFamily), {}};
  for (LtParam const& p : kLtParams) c.params.emplace_back(p.name, algo.*p.field);
  return c;
}

std::string vendor_reject_reason(KernelConfig const& config) {
  if (config.family == kCublasFamily) {
    return config.params.empty() ? std::string()
                                 : "cublas:default takes no parameters (got " + config.id() + ")";
  }
  if (config.family != kCublasLtFamily) return "'" + config.family + "' is not a vendor family";
  std::string const expected = to_kernel_config(LtAlgoConfig{}).id();
  if (config.params.size() != kLtParams.size()) {
    return "a cublaslt id has the " + std::to_string(kLtParams.size()) +
           " parameters of " + expected + " in that order (got " +
           std::to_string(config.params.size()) + ")";
  }
  for (std::size_t i = 0; i < kLtParams.size(); ++i) {
    auto const& [name, value] = config.params[i];
    LtParam const& p = kLtParams[i];
    if (name != p.name) {
      return "parameter " + std::to_string(i + 1) + " of a cublaslt id is " + p.name + ", not " +
             name + " (the form is " + expected + ")";
    }
    if (value < p.lo || value > p.hi) {
      return std::string(p.name) + "=" + std::to_string(value) + " is out of range (" +
             std::to_string(p.lo) + " … " + std::to_string(p.hi) + ")";
    }
  }
  return {};
}

LtAlgoConfig lt_algo_config(KernelConfig const& config) {
  if (config.family != kCublasLtFamily) {
    throw UsageError("'" + config.id() + "' is not a cublaslt algorithm");
  }
  if (std::string const why = vendor_reject_reason(config); !why.empty()) {
    throw UsageError("bad cuBLASLt algorithm '" + config.id() + "': " + why);
  }
  LtAlgoConfig a;
  for (std::size_t i = 0; i < kLtParams.size(); ++i) a.*kLtParams[i].field = config.params[i].second;
  return a;
}

std::optional<LtAlgoConfig> parse_lt_algo(std::string_view id) {
  try {
    KernelConfig const c = parse_kernel_id(id);
    if (c.family != kCublasLtFamily || !vendor_reject_reason(c).empty()) return std::nullopt;
    return lt_algo_config(c);
  } catch (Error const&) {
    return std::nullopt;
  }
}

}  // namespace gemmtune
