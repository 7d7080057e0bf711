// `gemmtune check [--repair]`: validates every row of the cache as import validates a foreign
// one, and removes the rows that fail (after copying the file aside) when asked.
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/kernel_check.hpp"
#include "cli/output.hpp"
#include "db/cache_check.hpp"

namespace gemmtune {
namespace {

struct CheckArgs {
  bool repair = false;
};

void run_check(CheckArgs const& a, AppContext& ctx) {
  CacheCheckReport const r = check_cache(ctx.db_path(), check_kernel, a.repair);
  // Rows left bad (no --repair) are a failed check: exit 1, so scripts can gate on it.
  if (!r.defects.empty() && r.removed == 0) command_status() = 1;
  if (ctx.options.json) {
    nlohmann::json defects = nlohmann::json::array();
    for (CacheDefect const& d : r.defects) {
      defects.push_back({{"table", d.table}, {"id", d.id}, {"what", d.what}, {"reason", d.reason}});
    }
    std::cout << nlohmann::json{{"cache", r.cache},
                                {"trials", r.trials},
                                {"baselines", r.baselines},
                                {"defects", std::move(defects)},
                                {"removed", r.removed},
                                {"backup", r.backup}}
                     .dump(2)
              << std::endl;
    return;
  }
  for (CacheDefect const& d : r.defects) {
    std::cout << (d.table == "trials" ? "trial " : "baseline ") << d.id << " ("
              << printable(d.what) << "): " << printable(d.reason) << "\n";
  }
  std::cout << printable(r.cache) << ": " << r.trials << " trials and " << r.baselines
            << " baselines checked, " << r.defects.size() << " bad";
  if (r.removed > 0) {
    std::cout << "; removed " << r.removed << " (the cache as it was: " << printable(r.backup)
              << ")";
  } else if (!r.defects.empty()) {
    std::cout << "; run gemmtune check --repair to remove them (the file is copied aside first)";
  }
  std::cout << std::endl;
}

}  // namespace

void setup_check(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<CheckArgs>();
  CLI::App* sub = app.add_subcommand(
      "check", "Validate every trial and baseline of the cache; --repair removes bad rows");
  sub->add_flag("--repair", a->repair,
                "Remove the rows that fail, after copying the cache to <cache>.before-repair-<time>");
  sub->callback([a, &ctx] { run_check(*a, ctx); });
}

}  // namespace gemmtune
