// `gemmtune space`: the size of each family's search space, what each constraint prunes, and
// (--list --ranked) the order a search starts from, by the roofline estimate.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "src/core/error.hpp"
#include "src/core/precision.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/roofline_estimate.hpp"

namespace gemmtune {
namespace {

struct SpaceArgs {
  std::string family = "all";
  std::string precision = "fp32";
  std::string layout = "NN";
  std::string shape = "4096x4096x4096";
  std::string arch = "sm_90";
  int align = 0;
  bool list = false;
  bool ranked = false;
  int sm_count = 0;
  bool rejected = false;
};

void run_space(SpaceArgs const& a, AppContext& ctx) {
  Precision const prec = parse_precision(a.precision);
  Problem problem = parse_shape(a.shape, prec, parse_layout(a.layout));
  problem.align = check_align(a.align, prec);
  problem = problem.resolved();
  std::optional<DeviceLimits> limits = arch_limits(a.arch);
  if (!limits) throw UsageError("bad arch '" + a.arch + "': expected one of " + std::string(known_archs()));
  if (a.ranked && !a.list) {
    throw UsageError("--ranked orders the configs --list prints: add --list");
  }
  limits->sm_count = a.sm_count > 0 ? a.sm_count : kAssumedSmCount;
  nlohmann::json out = nlohmann::json::array();
  TextTable t({"family", "space", "valid", "rejected", "top rejection reasons"});
  TextTable listed = a.ranked ? TextTable({"family", "kernel", "estimate_kclk"})
                              : TextTable({"family", "kernel"});  // --list under --csv
  TextTable rejections({"family", "kernel", "reason"});   // --rejected under --csv
  bool const csv = ctx.options.csv;
  int total_valid = 0;
  for (Family const* f : select_families(a.family)) {
    if (!f->supports(prec)) continue;
    std::size_t const space = f->space_size();
    std::map<std::string, int> reasons;
    std::vector<KernelConfig> valid;
    nlohmann::json rejected = nlohmann::json::array();
    f->for_each_config([&](KernelConfig const& cfg) {
      std::string const why = f->reject_reason(cfg, problem, *limits);
      if (why.empty()) {
        valid.push_back(cfg);
      } else {
        std::size_t const colon = why.find(':');
        ++reasons[colon == std::string::npos ? why : why.substr(0, colon)];
        if (a.rejected) {
          rejected.push_back({{"kernel", cfg.id()}, {"reason", why}});
          if (csv) {
            rejections.add({std::string(f->name()), cfg.id(), why});
          } else if (!ctx.options.json) {
            std::cout << cfg.id() << "\trejected\t" << why << '\n';
          }
        }
      }
    });
    total_valid += static_cast<int>(valid.size());
    std::vector<std::pair<int, std::string>> sorted;
    for (auto const& [r, n] : reasons) sorted.emplace_back(-n, r);
    std::sort(sorted.begin(), sorted.end());
    std::string top;
    for (std::size_t i = 0; i < sorted.size() && i < 3; ++i) {
      if (i) top += "; ";
      top += sorted[i].second + " (" + std::to_string(-sorted[i].first) + ")";
    }
    t.add({std::string(f->name()), std::to_string(space), std::to_string(valid.size()),
           std::to_string(space - valid.size()), top});
    nlohmann::json fj{{"family", f->name()}, {"space", space}, {"valid", valid.size()},
                      {"rejected_by", reasons}};
    if (a.ranked) {
      // The order a search starts from: the roofline estimate's fastest first, configs without
      // one last, in canonical order.
      std::vector<std::pair<double, std::string>> est;
      for (KernelConfig const& cfg : valid) {
        double const c = roofline_breakdown(*f, cfg, problem, *limits).total;
        est.emplace_back(c > 0 ? c : std::numeric_limits<double>::infinity(), cfg.id());
      }
      std::stable_sort(est.begin(), est.end(),
                       [](auto const& x, auto const& y) { return x.first < y.first; });
      nlohmann::json ranked = nlohmann::json::array();
      for (auto const& [c, id] : est) {
        bool const known = std::isfinite(c);
        std::string const kclk = known ? fixed(c / 1000.0, 1) : "-";
        ranked.push_back({{"kernel", id}, {"estimate_kclk", known ? nlohmann::json(c / 1000.0)
                                                                  : nlohmann::json(nullptr)}});
        if (csv) listed.add({std::string(f->name()), id, kclk});
        else if (!ctx.options.json) std::cout << id << '\t' << kclk << '\n';
      }
      fj["ranked"] = ranked;
    }
    std::vector<std::string> ids;
    if (a.list) {
      for (KernelConfig const& cfg : valid) ids.push_back(cfg.id());
      fj["configs"] = ids;
    }
    if (a.rejected) fj["rejected"] = rejected;
    out.push_back(fj);
    if (a.list && csv && !a.ranked) {
      for (auto const& id : ids) listed.add({std::string(f->name()), id});
    } else if (a.list && !a.ranked && !ctx.options.json) {
      for (auto const& id : ids) std::cout << id << '\n';
    }
  }
  if (ctx.options.json) {
    std::cout << nlohmann::json{{"problem", problem}, {"arch", a.arch}, {"families", out}}.dump(2)
              << std::endl;
  } else if (csv && (a.list || a.rejected)) {
    // One CSV document: the configs listed, or the rejections when only those were asked for.
    (a.list ? listed : rejections).print(std::cout, TableFormat::kCsv);
  } else if (!a.list && !a.rejected) {
    prose(ctx.options) << "space for " << problem.describe() << " on " << a.arch << ": "
                       << total_valid << " valid configs\n";
    t.print(std::cout, table_format(ctx.options));
  }
  if (total_valid == 0) command_status() = 3;
}

}  // namespace

void setup_space(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<SpaceArgs>();
  CLI::App* sub = app.add_subcommand("space", "Size of the search space and what each constraint rejects");
  sub->add_option("--family", a->family, "Family, group or comma list")->capture_default_str();
  sub->add_option("--precision", a->precision, precision_names())->capture_default_str();
  sub->add_option("--layout", a->layout, "NN, NT, TN or TT")->capture_default_str();
  sub->add_option("--shape", a->shape, "Problem the constraints are checked against")->capture_default_str();
  sub->add_option("--arch", a->arch, "Arch whose limits apply")->capture_default_str();
  sub->add_option("--align", a->align, "Alignment class in bytes (0 = packed)");
  sub->add_flag("--list", a->list, "Print every valid kernel id");
  sub->add_flag("--ranked", a->ranked,
                "With --list: each family's configs in the order a search starts from, with the "
                "roofline estimate in thousands of SM clocks (fastest first; '-' where none)");
  sub->add_option("--sm-count", a->sm_count, "SMs the estimate assumes (default 132: H100, H200)");
  sub->add_flag("--rejected", a->rejected, "Print every rejected kernel id with the constraint that rejects it");
  sub->callback([a, &ctx] { run_space(*a, ctx); });
}

}  // namespace gemmtune
