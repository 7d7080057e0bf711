// `gemmtune list gpus|shapes|trials|searches`: what the cache holds.
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/gpu_choice.hpp"
#include "cli/output.hpp"
#include "cli/shape_hint.hpp"
#include "cli/trial_json.hpp"
#include "db/sqlite_trial_store.hpp"
#include "src/core/error.hpp"
#include "src/core/vendor_kernel.hpp"

namespace gemmtune {
namespace {

struct ListArgs {
  std::string what = "shapes";
  std::string gpu;
  std::string shape;
  std::string precision = "fp32";
  std::string layout = "NN";
  std::string kernel;
  std::string disposition;
  long long limit = 50;
  bool all = false;
};

void run_list(ListArgs const& a, AppContext& ctx) {
  if (a.what != "gpus" && a.what != "shapes" && a.what != "trials" && a.what != "searches") {
    throw UsageError("bad list target '" + a.what + "': expected gpus, shapes, trials or searches");
  }
  SqliteTrialStore& store = ctx.store_for_reading();
  std::string const where = "cache " + ctx.db_path();
  std::optional<GpuIdentity> gpu;
  if (!a.gpu.empty()) gpu = choose_gpu(store.list_gpus(), a.gpu, where);
  bool json = ctx.options.json;
  if (a.what == "gpus") {
    auto gpus = store.list_gpus();
    nlohmann::json j = nlohmann::json::array();
    TextTable t({"gpu", "arch", "SMs"});
    for (auto const& g : gpus) {
      j.push_back({{"name", g.name}, {"arch", g.arch()}, {"sm_count", g.sm_count}});
      t.add({g.name, g.arch(), std::to_string(g.sm_count)});
    }
    json ? void(std::cout << j.dump(2) << std::endl) : t.print(std::cout, table_format(ctx.options));
    if (gpus.empty()) command_status() = 3;
  } else if (a.what == "shapes") {
    auto rows = store.list_problems(gpu);
    nlohmann::json j = nlohmann::json::array();
    TextTable t({"gpu", "problem", "trials", "ok", "failed", "pick", "time", "TFLOP/s",
                 "vs cuBLAS", "vs cuBLASLt", "own vs cuBLAS", "own vs best"});
    for (auto const& r : rows) {
      std::int64_t const ok = r.counts.count(Disposition::kOk) ? r.counts.at(Disposition::kOk) : 0;
      nlohmann::json row{{"gpu", r.gpu.describe()}, {"problem", r.problem}, {"trials", r.total},
                         {"ok", ok}};
      if (r.best) row["best"] = trial_to_json(*r.best);
      // Where the pick is a vendor call, our own best beside it (nobody mistakes it for ours).
      std::optional<Trial> const own =
          r.best && is_vendor(r.best->config) ? store.best_own(r.gpu, r.problem) : r.best;
      if (r.best && is_vendor(r.best->config) && own) row["best_own"] = trial_to_json(*own);
      j.push_back(row);
      t.add({r.gpu.name, r.problem.describe(), std::to_string(r.total), std::to_string(ok),
             std::to_string(r.total - ok), r.best ? r.best->config.id() : "-",
             r.best ? format_ms(r.best->time_ms) : "-", r.best ? fixed(r.best->tflops, 2) : "-",
             r.best ? ratio(r.best->cublas_ms, r.best->time_ms) : "-",
             r.best ? ratio(r.best->cublaslt_ms, r.best->time_ms) : "-",
             own ? ratio(own->cublas_ms, own->time_ms) : "-",
             own ? ratio(best_vendor_ms(own->cublas_ms, own->cublaslt_ms), own->time_ms) : "-"});
    }
    json ? void(std::cout << j.dump(2) << std::endl) : t.print(std::cout, table_format(ctx.options));
    if (rows.empty()) command_status() = 3;
  } else if (a.what == "trials") {
    TrialFilter f;
    f.gpu = gpu;
    if (!a.shape.empty()) {
      Problem p = parse_shape(a.shape, parse_precision(a.precision), parse_layout(a.layout));
      p.align = 0;
      f.problem = p;
    }
    if (!a.kernel.empty()) f.kernel_id = parse_kernel_id(a.kernel).id();
    if (!a.disposition.empty()) {
      try {
        f.disposition = parse_disposition(a.disposition);
      } catch (Error const& e) {
        throw UsageError(e.what());
      }
    }
    if (a.limit < 0) throw UsageError("bad --limit " + std::to_string(a.limit) + ": expected ≥ 0");
    long long const limit = a.all ? 0 : a.limit;
    // Read them all, so a cut list can say how many it left out.
    auto trials = store.trials(f);
    std::size_t const total = trials.size();
    if (limit > 0 && total > static_cast<std::size_t>(limit)) {
      trials.resize(static_cast<std::size_t>(limit));
    }
    nlohmann::json j = nlohmann::json::array();
    TextTable t = trial_table();
    for (auto const& tr : trials) {
      j.push_back(trial_to_json(tr));
      add_trial_row(t, tr);
    }
    json ? void(std::cout << j.dump(2) << std::endl) : t.print(std::cout, table_format(ctx.options));
    if (trials.size() < total) {
      std::cerr << "gemmtune: showing " << trials.size() << " of " << total
                << " trials, newest first (--limit N or --all for more)" << std::endl;
    }
    if (trials.empty()) {
      command_status() = 3;
      if (f.problem) {
        std::vector<Problem> held;
        for (auto const& r : store.list_problems(gpu)) held.push_back(r.problem);
        if (std::string const hint = other_variants_hint(*f.problem, held, "the " + where);
            !hint.empty()) {
          std::cerr << "gemmtune: no " << to_string(f.problem->precision) << " "
                    << to_string(f.problem->layout) << " trials of " << f.problem->shape()
                    << "; " << hint << std::endl;
        }
      }
    }
  } else if (a.what == "searches") {
    auto searches = store.searches();
    nlohmann::json j = nlohmann::json::array();
    TextTable t({"id", "started", "finished", "arguments", "phases"});
    for (auto const& s : searches) {
      j.push_back({{"id", s.id}, {"arguments", s.arguments}, {"started_at", s.started_at},
                   {"finished_at", s.finished_at}, {"phases", s.phase_times_json}});
      t.add({std::to_string(s.id), format_utc_time(s.started_at),
             s.finished_at ? format_utc_time(s.finished_at) : "(interrupted or running)",
             s.arguments, s.phase_times_json});
    }
    json ? void(std::cout << j.dump(2) << std::endl) : t.print(std::cout, table_format(ctx.options));
    if (searches.empty()) command_status() = 3;
  } else {
    throw UsageError("bad list target '" + a.what + "': expected gpus, shapes, trials or searches");
  }
}

}  // namespace

void setup_list(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<ListArgs>();
  CLI::App* sub = app.add_subcommand("list", "List what the cache holds: gpus, shapes, trials, searches");
  sub->add_option("what", a->what, "gpus, shapes, trials or searches")->capture_default_str();
  sub->add_option("--gpu", a->gpu, "Only this GPU (substring of its name)");
  sub->add_option("--shape", a->shape, "trials: only this shape MxNxK");
  sub->add_option("--precision", a->precision, "trials: precision of --shape")->capture_default_str();
  sub->add_option("--layout", a->layout, "trials: layout of --shape")->capture_default_str();
  sub->add_option("--kernel", a->kernel, "trials: only this kernel id");
  sub->add_option("--disposition", a->disposition, "trials: only ok, wrong_result, fault, ...");
  sub->add_option("--limit", a->limit, "trials: at most this many, newest first (0 = all)")
      ->capture_default_str();
  sub->add_flag("--all", a->all, "trials: every one (as --limit 0)");
  sub->callback([a, &ctx] { run_list(*a, ctx); });
}

}  // namespace gemmtune
