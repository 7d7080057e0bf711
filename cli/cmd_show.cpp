// `gemmtune show KERNEL_ID`: a kernel's family, parameters, launch shape, resource use (compiled
// for --arch, no GPU needed) and every trial of it in the cache.
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/trial_json.hpp"
#include "db/sqlite_trial_store.hpp"
#include "src/core/error.hpp"
#include "src/kernels/family.hpp"

namespace gemmtune {
namespace {

struct ShowArgs {
  std::string kernel;
  std::string shape = "4096x4096x4096";
  std::string precision = "fp32";
  std::string layout = "NN";
  std::string arch = "sm_90";
};

void run_show(ShowArgs const& a, AppContext& ctx) {
  KernelConfig cfg = parse_kernel_id(a.kernel);
  Family const* family = find_family(cfg.family);
  if (!family) throw UsageError("unknown kernel family '" + cfg.family + "' in " + a.kernel);
  cfg = family->canonical(cfg);
  Problem problem = parse_shape(a.shape, parse_precision(a.precision), parse_layout(a.layout)).resolved();
  std::optional<DeviceLimits> limits = arch_limits(a.arch);
  if (!limits) throw UsageError("bad arch '" + a.arch + "': expected one of " + std::string(known_archs()));
  std::string const why = family->reject_reason(cfg, problem, *limits);
  CompileResult compiled;
  if (why.empty()) compiled = ctx.compile_fn()(family->compile_request(cfg, problem, a.arch)).get();
  LaunchPlan const plan = family->launch_plan(cfg, problem);

  std::vector<Trial> trials;
  if (std::filesystem::exists(ctx.db_path())) trials = ctx.store_for_reading().trials_for_kernel(cfg.id());

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
                     {"trials", nlohmann::json::array()}};
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
  if (trials.empty()) {
    std::cout << "no trials of this kernel in " << ctx.db_path() << "\n";
  } else {
    TextTable t = trial_table();
    for (auto const& tr : trials) add_trial_row(t, tr);
    t.print(std::cout);
  }
}

}  // namespace

void setup_show(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<ShowArgs>();
  CLI::App* sub = app.add_subcommand("show", "One kernel id: parameters, resources and all its trials");
  sub->add_option("kernel", a->kernel, "Kernel id, e.g. naive:BM=32,BN=8")->required();
  sub->add_option("--shape", a->shape, "Problem for the launch shape and constraints")->capture_default_str();
  sub->add_option("--precision", a->precision, "Precision")->capture_default_str();
  sub->add_option("--layout", a->layout, "Layout")->capture_default_str();
  sub->add_option("--arch", a->arch, "Arch to compile for (resource figures)")->capture_default_str();
  sub->callback([a, &ctx] { run_show(*a, ctx); });
}

}  // namespace gemmtune
