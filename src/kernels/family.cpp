// Family's non-virtual members (validation, canonical order, enumeration), the registry of
// every family with the --family selection syntax, and the checks and cost model the lookup
// chain asks about stored kernels.
#include "src/kernels/family.hpp"

#include <algorithm>
#include <cmath>

#include "src/core/error.hpp"
#include "src/core/vendor_kernel.hpp"
#include "src/kernels/ladder_families.hpp"
#include "src/kernels/mma_family.hpp"
#include "src/kernels/simt_family.hpp"
#include "src/kernels/wgmma_family.hpp"
#include "src/nvrtc/embedded_sources.hpp"

namespace gemmtune {
namespace {

std::string join_values(std::vector<std::int64_t> const& values) {
  std::string s;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(values[i]);
  }
  return s;
}

/// Why `cfg` is not a config of `family` (family name, parameter set, declared values), or "".
/// On success `out` holds the config in canonical order.
std::string config_error(Family const& family, KernelConfig const& cfg, KernelConfig& out) {
  if (cfg.family != family.name()) {
    return "kernel '" + cfg.id() + "' is of family '" + cfg.family + "', not '" +
           std::string(family.name()) + "'";
  }
  std::vector<ParamSpec> const& specs = family.declared_params();
  out = KernelConfig{};
  out.family = cfg.family;
  std::string names;
  for (ParamSpec const& p : specs) names += (names.empty() ? "" : ", ") + p.name;
  for (auto const& [name, value] : cfg.params) {
    bool const known = std::any_of(specs.begin(), specs.end(),
                                   [&](ParamSpec const& p) { return p.name == name; });
    if (!known) {
      return "kernel '" + cfg.id() + "': " + std::string(family.name()) + " has no parameter " +
             name + " (expected " + names + ")";
    }
  }
  for (ParamSpec const& p : specs) {
    auto const value = cfg.get(p.name) ? cfg.get(p.name) : p.absent;
    if (!value) {
      return "kernel '" + cfg.id() + "': parameter " + p.name + " is missing (expected " +
             names + ")";
    }
    if (!p.accepts(*value)) {
      std::string const named =
          p.named_only.empty() ? "" : " (searched) or " + join_values(p.named_only) + " (named)";
      return "kernel '" + cfg.id() + "': " + p.name + "=" + std::to_string(*value) +
             " is not one of " + join_values(p.values) + named;
    }
    out.params.emplace_back(p.name, *value);
  }
  return {};
}

/// Whether `cfg` is already canonical for `family`: its parameters in declared order, each
/// with a declared value (every config enumerate() yields, and named-only values), so
/// validation can skip the copy.
bool is_canonical(Family const& family, KernelConfig const& cfg) {
  std::vector<ParamSpec> const& specs = family.declared_params();
  if (cfg.family != family.name() || cfg.params.size() != specs.size()) return false;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    auto const& [name, value] = cfg.params[i];
    if (name != specs[i].name || !specs[i].accepts(value)) return false;
  }
  return true;
}

}  // namespace

bool ParamSpec::enumerates(std::int64_t v) const {
  return std::find(values.begin(), values.end(), v) != values.end();
}

bool ParamSpec::accepts(std::int64_t v) const {
  return enumerates(v) || std::find(named_only.begin(), named_only.end(), v) != named_only.end();
}

Family::Declared const& Family::declared() const {
  std::call_once(declared_once_, [this] {
    declared_ = std::make_unique<Declared const>(Declared{params(), constraints()});
  });
  return *declared_;
}

std::vector<ParamSpec> const& Family::declared_params() const { return declared().params; }

std::vector<Constraint> const& Family::declared_constraints() const {
  return declared().constraints;
}

std::string Family::reject_reason(KernelConfig const& cfg, Problem const& problem,
                                  DeviceLimits const& limits, RejectScope scope) const {
  KernelConfig copy;
  if (!is_canonical(*this, cfg)) {
    if (std::string why = config_error(*this, cfg, copy); !why.empty()) return why;
  }
  KernelConfig const& canon = copy.family.empty() ? cfg : copy;
  Problem const p = problem.resolved();
  if (!supports(p.precision)) {
    return std::string(name()) + " does not compute " + std::string(to_string(p.precision));
  }
  if (int const arch = arch_number(limits.arch); arch != 0 && arch < min_arch()) {
    return std::string(name()) + " needs sm_" + std::to_string(min_arch()) + " or newer, not " +
           limits.arch;
  }
  for (Constraint const& c : declared_constraints()) {
    if (c.prunes && scope == RejectScope::kRun) continue;
    if (std::string why = c.check(canon, p, limits); !why.empty()) return c.name + ": " + why;
  }
  if (scope == RejectScope::kSearch) {
    // After the constraints, whose reasons say more: a value the space leaves out is never
    // timed by a search, whatever the problem.
    for (ParamSpec const& spec : declared_params()) {
      std::int64_t const v = canon.at(spec.name);
      if (!spec.enumerates(v)) {
        return "named_only: " + spec.name + "=" + std::to_string(v) +
               " runs only when named; the search's space takes " + join_values(spec.values);
      }
    }
  }
  int const t = threads(canon);
  if (t <= 0 || t % 32 != 0) {
    return "threads: " + std::to_string(t) +
           " threads per block is not a positive multiple of the warp size 32";
  }
  if (t > limits.max_threads_per_block) {
    return "threads: " + std::to_string(t) + " threads per block > the device's " +
           std::to_string(limits.max_threads_per_block);
  }
  int const smem = smem_bytes(canon, p);
  if (limits.max_smem_per_block_optin > 0 && smem > limits.max_smem_per_block_optin) {
    return "smem: " + std::to_string(smem) + " bytes of shared memory per block > the " +
           std::to_string(limits.max_smem_per_block_optin) + " bytes " +
           (limits.arch.empty() ? std::string("the device") : limits.arch) + " allows";
  }
  return {};
}

KernelConfig Family::canonical(KernelConfig const& cfg) const {
  KernelConfig canon;
  if (std::string why = config_error(*this, cfg, canon); !why.empty()) throw UsageError(why);
  return canon;
}

KernelConfig canonical_or_same(KernelConfig const& cfg) {
  Family const* const family = find_family(cfg.family);
  if (family == nullptr) return cfg;
  KernelConfig canon;
  return config_error(*family, cfg, canon).empty() ? canon : cfg;
}

std::vector<KernelConfig> Family::enumerate() const {
  std::vector<KernelConfig> out;
  out.reserve(space_size());
  for_each_config([&](KernelConfig const& cfg) { out.push_back(cfg); });
  return out;
}

void Family::for_each_config(std::function<void(KernelConfig const&)> const& visit) const {
  std::vector<ParamSpec> const& specs = declared_params();
  if (space_size() == 0) return;
  KernelConfig cfg;
  cfg.family = std::string(name());
  for (ParamSpec const& p : specs) cfg.params.emplace_back(p.name, p.values.front());
  std::vector<std::size_t> digit(specs.size(), 0);
  while (true) {
    visit(cfg);
    // Odometer: the last parameter varies fastest.
    std::size_t i = specs.size();
    while (true) {
      if (i == 0) return;
      --i;
      if (++digit[i] < specs[i].values.size()) break;
      digit[i] = 0;
      cfg.params[i].second = specs[i].values[0];
    }
    cfg.params[i].second = specs[i].values[digit[i]];
  }
}

std::size_t Family::space_size() const {
  std::size_t n = 1;
  for (ParamSpec const& p : declared_params()) n *= p.values.size();
  return n;
}

std::vector<Family const*> all_families() {
  return {&naive_family(),        &coalesced_family(), &smem_tiled_family(),
          &blocktile_1d_family(), &blocktile_2d_family(), &vectorized_family(),
          &warptile_family(),     &simt_family(),        &mma_family(),
          &wgmma_family()};
}

Family const* find_family(std::string_view name) {
  for (Family const* f : all_families()) {
    if (f->name() == name) return f;
  }
  return nullptr;
}

std::vector<Family const*> select_families(std::string_view text) {
  static constexpr std::string_view kLadder[] = {"naive",        "coalesced",  "smem_tiled",
                                                 "blocktile_1d", "blocktile_2d", "vectorized",
                                                 "warptile"};
  std::vector<Family const*> out;
  auto add = [&](Family const* f) {
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  };
  auto choices = [] {
    std::string s;
    for (Family const* f : all_families()) s += std::string(f->name()) + ", ";
    return s + "ladder, all";
  };
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(start, end - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == "all") {
      for (Family const* f : all_families()) add(f);
    } else if (item == "ladder") {
      for (std::string_view n : kLadder) add(find_family(n));
    } else if (Family const* f = find_family(item); f != nullptr) {
      add(f);
    } else {
      throw UsageError("unknown kernel family '" + std::string(item) + "' in --family '" +
                       std::string(text) + "' (expected one of: " + choices() +
                       ", or a comma-separated list of those)");
    }
    if (end == text.size()) break;
    start = end + 1;
  }
  return out;
}

int register_budget(DeviceLimits const& limits, int threads) {
  constexpr int kMaxRegistersPerThread = 255;
  int const budget = std::min(limits.max_regs_per_thread, kMaxRegistersPerThread);
  return std::min(budget, (limits.regs_per_sm / std::max(1, threads)) / 8 * 8);
}

std::string template_arguments(KernelConfig const& canonical_config) {
  std::string s;
  for (auto const& [param, value] : canonical_config.params) s += std::to_string(value) + ",";
  return s;
}

CompileRequest embedded_request(std::string_view template_file,
                                std::vector<std::string> name_expressions, std::string arch) {
  std::string const file(template_file);
  auto const source = embedded_source(file);
  if (!source) throw Error("kernel template '" + file + "' was not embedded in the build");
  CompileRequest r;
  r.source_name = file;
  r.source = std::string(*source);
  r.name_expressions = std::move(name_expressions);
  r.arch = std::move(arch);
  return r;
}

int resident_blocks(Family const& family, KernelConfig const& cfg, Problem const& problem,
                    DeviceLimits const& limits) {
  int const threads = family.threads(cfg);
  if (threads < 1) return 1;
  int resident = std::max(1, limits.max_threads_per_sm / threads);
  int const smem = family.smem_bytes(cfg, problem);
  if (smem > 0 && limits.max_smem_per_sm > 0) {
    resident = std::min(resident, std::max(1, limits.max_smem_per_sm / smem));
  }
  int const regs = family.registers_per_thread(cfg, problem);
  if (regs > 0) {
    int const warps = (threads + 31) / 32;
    int const per_warp = (regs * 32 + 255) / 256 * 256;
    resident = std::min(resident, std::max(1, limits.regs_per_sm / (warps * per_warp)));
  }
  return resident;
}

double wave_cost(KernelConfig const& cfg, Problem const& problem, DeviceLimits const& limits) {
  Family const* family = find_family(cfg.family);
  int const sm_count = limits.sm_count;
  if (!family || sm_count < 1 || problem.m < 1 || problem.n < 1 || problem.k < 1) return 0.0;
  if (!family->reject_reason(cfg, problem, limits, RejectScope::kSearch).empty()) return 0.0;
  auto const ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  auto const bm = cfg.get("BM"), bn = cfg.get("BN");
  if (!bm || !bn || *bm < 1 || *bn < 1) return 0.0;
  std::int64_t const sk = std::max<std::int64_t>(1, cfg.get("SK").value_or(1));
  Problem const tiled = family->tile_problem(cfg, problem);
  double const units = static_cast<double>(ceil_div(tiled.m, *bm) * ceil_div(tiled.n, *bn) * sk);
  double const unit_work = static_cast<double>(*bm) * static_cast<double>(*bn) *
                           static_cast<double>(ceil_div(problem.k, sk));
  if (family->threads(cfg) < 1) return 0.0;
  int const resident = resident_blocks(*family, cfg, problem, limits);
  double const waves =
      std::ceil(units / (static_cast<double>(sm_count) * static_cast<double>(resident)));
  return waves * unit_work;
}

std::string runnable_reason(KernelConfig const& cfg, Problem const& problem,
                            DeviceLimits const& limits) {
  // A vendor call runs any shape; whether this cuBLAS takes a cuBLASLt algorithm is asked of
  // cuBLAS itself when the runtime prepares it.
  if (is_vendor(cfg)) return vendor_reject_reason(cfg);
  Family const* family = find_family(cfg.family);
  if (!family) return "family '" + cfg.family + "' is not in this build";
  return family->reject_reason(cfg, problem, limits, RejectScope::kRun);
}

}  // namespace gemmtune
