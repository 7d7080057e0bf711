// `gemmtune show KERNEL_ID`: a kernel's family, parameters, launch shape, roofline estimate
// and what bounds it, resource use (compiled for --arch, no GPU needed) and every trial of it in
// the cache; for a vendor id (cublas, cublaslt), the configuration it names and its trials.
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/trial_json.hpp"
#include "db/sqlite_trial_store.hpp"
#include "src/core/error.hpp"
#include "src/core/vendor_kernel.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/roofline_estimate.hpp"

namespace gemmtune {
namespace {

struct ShowArgs {
  std::string kernel;
  std::string shape = "4096x4096x4096";
  std::string precision;  ///< empty: the first precision the family supports
  std::string layout = "NN";
  std::string arch = "sm_90";
  int sm_count = 0;
};

/// Every trial of the kernel in the cache (none when there is no cache yet).
std::vector<Trial> stored_trials(std::string const& id, AppContext& ctx) {
  if (!std::filesystem::exists(ctx.db_path())) return {};
  return ctx.store_for_reading().trials_for_kernel(id);
}

void print_trials(std::vector<Trial> const& trials, AppContext& ctx) {
  if (trials.empty()) {
    std::cout << "no trials of this kernel in " << ctx.db_path() << "\n";
    return;
  }
  TextTable t = trial_table();
  for (auto const& tr : trials) add_trial_row(t, tr);
  t.print(std::cout);
}

/// What each field of a cublaslt id holds: the cublasLtMatmulAlgoConfigAttributes_t it sets.
std::string_view lt_field_meaning(std::string_view name) {
  if (name == "ALGO") return "CUBLASLT_ALGO_CONFIG_ID, the algorithm";
  if (name == "TILE") return "CUBLASLT_ALGO_CONFIG_TILE_ID (cublasLtMatmulTile_t)";
  if (name == "STAGES") return "CUBLASLT_ALGO_CONFIG_STAGES_ID (cublasLtMatmulStages_t)";
  if (name == "SPLITK") return "CUBLASLT_ALGO_CONFIG_SPLITK_NUM, slices of K";
  if (name == "RED") return "CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME of the split-K slices";
  if (name == "SWIZZLE") return "CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING";
  if (name == "CUSTOM") return "CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION";
  if (name == "INNER") return "CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID";
  if (name == "CLUSTER") return "CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID";
  if (name == "COMPUTE") return "0: the precision's compute type; 1: plain FP32 for fp32's pedantic one";
  return {};
}

/// A vendor id: no template to compile, so the configuration it names and its trials.
void show_vendor(KernelConfig const& cfg, std::string const& id, AppContext& ctx) {
  if (std::string const why = vendor_reject_reason(cfg); !why.empty()) {
    throw UsageError("not a valid " + cfg.family + " id '" + id + "': " + why);
  }
  bool const lt = cfg.family == kCublasLtFamily;
  std::string_view const description =
      lt ? "one cuBLASLt algorithm with its whole configuration, run by cublasLtMatmul"
         : "the default cublasGemmEx call under the precision's contract";
  std::vector<Trial> const trials = stored_trials(cfg.id(), ctx);
  if (ctx.options.json) {
    nlohmann::json params = nlohmann::json::object();
    for (auto const& [name, value] : cfg.params) params[name] = value;
    nlohmann::json j{{"kernel", cfg.id()},     {"family", cfg.family},
                     {"vendor", true},         {"description", description},
                     {"params", params},       {"trials", nlohmann::json::array()}};
    for (auto const& t : trials) j["trials"].push_back(trial_to_json(t));
    std::cout << j.dump(2) << std::endl;
    return;
  }
  std::cout << cfg.id() << "\n  family    " << cfg.family << ": " << description << "\n";
  for (auto const& [name, value] : cfg.params) {
    std::cout << "  " << name << std::string(name.size() < 8 ? 8 - name.size() : 1, ' ') << "  "
              << value << "   (" << lt_field_meaning(name) << ")\n";
  }
  if (lt) {
    std::cout << "  the algorithm is rebuilt from these fields and checked by "
                 "cublasLtMatmulAlgoCheck for each problem; an id listed by another cuBLAS "
                 "version is not reused\n";
  }
  print_trials(trials, ctx);
}

void run_show(ShowArgs const& a, AppContext& ctx) {
  KernelConfig cfg = parse_kernel_id(a.kernel);
  if (is_vendor_family(cfg.family)) return show_vendor(cfg, a.kernel, ctx);
  Family const* family = find_family(cfg.family);
  if (!family) throw UsageError("unknown kernel family '" + cfg.family + "' in " + a.kernel);
  cfg = family->canonical(cfg);
  // Without --precision, the first the family runs: an mma or wgmma id shows without one.
  Precision precision = Precision::kFP32;
  if (!a.precision.empty()) {
    precision = parse_precision(a.precision);
  } else {
    for (Precision p : kAllPrecisions) {
      if (family->supports(p)) {
        precision = p;
        break;
      }
    }
  }
  Problem problem = parse_shape(a.shape, precision, parse_layout(a.layout)).resolved();
  std::optional<DeviceLimits> limits = arch_limits(a.arch);
  if (!limits) throw UsageError("bad arch '" + a.arch + "': expected one of " + std::string(known_archs()));
  DeviceLimits estimated = *limits;  // the arch table knows no SM count
  estimated.sm_count = a.sm_count > 0 ? a.sm_count : kAssumedSmCount;
  RooflineBreakdown const roofline = roofline_breakdown(*family, cfg, problem, estimated);
  // A config the search skips (a preference, not a need) still runs when named: show compiles
  // it and says what the search would do, so the figures of a named kernel can be read.
  std::string const why = family->reject_reason(cfg, problem, *limits, RejectScope::kRun);
  std::string const unsearched =
      why.empty() ? family->reject_reason(cfg, problem, *limits) : std::string();
  CompileResult compiled;
  if (why.empty()) compiled = ctx.compile_fn()(family->compile_request(cfg, problem, a.arch)).get();
  LaunchPlan const plan = family->launch_plan(cfg, problem);

  std::vector<Trial> const trials = stored_trials(cfg.id(), ctx);

  if (ctx.options.json) {
    nlohmann::json j{{"kernel", cfg.id()},
                     {"family", family->name()},
                     {"description", family->description()},
                     {"template", family->template_file()},
                     {"threads", family->threads(cfg)},
                     {"smem_bytes", family->smem_bytes(cfg, problem)},
                     {"problem", problem},
                     {"plan", plan},
                     {"arch", a.arch},
                     {"rejected", why},
                     {"not_searched", unsearched},
                     {"trials", nlohmann::json::array()}};
    if (roofline.total > 0) {
      j["roofline"] = {{"sm_count", estimated.sm_count}, {"units", roofline.units},
                       {"waves", roofline.waves},    {"compute_clocks", roofline.compute},
                       {"l2_clocks", roofline.l2},   {"link_clocks", roofline.link},
                       {"start_up_clocks", roofline.start_up},
                       {"split_k_clocks", roofline.split_k},
                       {"total_clocks", roofline.total}, {"bound", roofline.bound()}};
    }
    if (why.empty()) {
      j["compile"] = {{"ok", compiled.ok}, {"options", compiled.options}};
      if (!compiled.resources.empty()) {
        auto const& r = compiled.resources.front();
        j["compile"]["registers"] = r.registers;
        j["compile"]["spill_stores"] = r.spill_stores;
        j["compile"]["spill_loads"] = r.spill_loads;
        j["compile"]["static_smem"] = r.static_smem;
      }
      if (!compiled.ok) j["compile"]["log"] = compiled.log;
    }
    for (auto const& t : trials) j["trials"].push_back(trial_to_json(t));
    std::cout << j.dump(2) << std::endl;
    return;
  }
  std::cout << cfg.id() << "\n  family    " << family->name() << ": " << family->description()
            << "\n  template  kernel_templates/" << family->template_file() << "\n";
  auto const specs = family->params();
  for (auto const& [name, value] : cfg.params) {
    std::string help;
    for (auto const& s : specs) {
      if (s.name == name) help = s.help;
    }
    std::cout << "  " << name << std::string(name.size() < 8 ? 8 - name.size() : 1, ' ') << "  "
              << value << (help.empty() ? "" : "   (" + help + ")") << "\n";
  }
  std::cout << "  threads   " << family->threads(cfg) << ", shared memory "
            << family->smem_bytes(cfg, problem) << " bytes\n";
  for (auto const& l : plan.launches) {
    std::cout << "  launch    " << l.name_expression << " grid (" << l.grid.x << "," << l.grid.y
              << "," << l.grid.z << ") block (" << l.block.x << "," << l.block.y << ","
              << l.block.z << ") for " << problem.describe() << "\n";
  }
  if (roofline.total > 0) {
    auto const k = [](double clocks) { return fixed(clocks / 1000.0, 1) + "k"; };
    std::cout << "  roofline  " << k(roofline.total) << " SM clocks on " << estimated.sm_count
              << " SMs: " << fixed(roofline.waves, 0) << " wave(s) of "
              << fixed(roofline.units, 0) << " units; a wave: compute " << k(roofline.compute)
              << ", L2 " << k(roofline.l2) << ", link " << k(roofline.link) << " ("
              << roofline.bound() << "-bound); start-up " << k(roofline.start_up)
              << ", split-K " << k(roofline.split_k) << "\n";
  }
  if (!unsearched.empty()) {
    std::cout << "  search    skips it for " << problem.describe() << ": " << unsearched << "\n";
  }
  if (!why.empty()) {
    std::cout << "  rejected  for " << problem.describe() << " on " << a.arch << ": " << why << "\n";
  } else if (!compiled.ok) {
    std::cout << "  compile   failed for " << a.arch << ":\n" << compiled.log << "\n";
  } else if (!compiled.resources.empty()) {
    auto const& r = compiled.resources.front();
    std::cout << "  " << a.arch << "     " << r.registers << " registers, " << r.spill_stores
              << " bytes spill stores, " << r.spill_loads << " bytes spill loads, "
              << r.static_smem << " bytes static shared memory\n";
  }
  print_trials(trials, ctx);
}

}  // namespace

void setup_show(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<ShowArgs>();
  CLI::App* sub = app.add_subcommand("show", "One kernel id: parameters, resources and all its trials");
  sub->add_option("kernel", a->kernel, "Kernel id, e.g. naive:BM=32,BN=8 or cublas:default")->required();
  sub->add_option("--shape", a->shape, "Problem for the launch shape and constraints")->capture_default_str();
  sub->add_option("--precision", a->precision,
                  "Precision (default: the first of fp32, tf32, fp16, bf16 the family runs)");
  sub->add_option("--layout", a->layout, "Layout")->capture_default_str();
  sub->add_option("--arch", a->arch, "Arch to compile for (resource figures)")->capture_default_str();
  sub->add_option("--sm-count", a->sm_count,
                  "SMs the roofline estimate assumes (default 132: H100, H200)");
  sub->callback([a, &ctx] { run_show(*a, ctx); });
}

}  // namespace gemmtune
