// `gemmtune replay`: runs strategies against a stored search (a cache or exported JSON lines)
// with no GPU and reports the fraction of the optimum reached per budget.
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "db/sqlite_trial_store.hpp"
#include "src/core/error.hpp"
#include "src/core/file_output.hpp"
#include "tuner/search/budget.hpp"
#include "tuner/search/replay.hpp"

namespace gemmtune {
namespace {

struct ReplayArgs {
  std::vector<std::string> from;
  std::string strategies = "random,evolution";
  std::string budgets = "20,50,100";
  int seeds = 20;
  bool warm_start = false;
  bool per_problem = false;
  bool random_start = false;
  int compile_threads = ReplayCost{}.compile_threads;
  int compile_ahead = ReplayCost{}.compile_ahead;
  std::string markdown;
};

std::vector<std::string> split_commas(std::string const& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::vector<ReplayProblem> load(std::string const& path) {
  if (path.size() > 6 && path.substr(path.size() - 6) == ".jsonl") return load_replay_jsonl(path);
  if (!std::filesystem::exists(path)) {
    throw UsageError("bad --from '" + path + "': no such file (expected a cache .db or a .jsonl export)");
  }
  SqliteTrialStore store(path, SqliteTrialStore::Access::kReadOnly);
  std::vector<ReplayProblem> out = replay_problems_from_trials(store.trials(TrialFilter{}));
  if (out.empty()) throw Error("cache '" + path + "' holds no trials to replay");
  return out;
}

void run_replay(ReplayArgs const& a, AppContext& ctx) {
  if (a.from.empty()) throw UsageError("replay needs --from CACHE_OR_JSONL");
  if (a.seeds < 1) throw UsageError("bad --seeds " + std::to_string(a.seeds) + ": expected ≥ 1");
  if (a.compile_threads < 1 || a.compile_ahead < 1) {
    throw UsageError("bad --compile-threads / --compile-ahead: expected ≥ 1");
  }
  ReplayStudy study;
  study.strategies = split_commas(a.strategies);
  if (study.strategies.empty()) throw UsageError("bad --strategy '': expected a comma list of names");
  for (std::string const& s : study.strategies) {
    check_strategy_name(s);
    if (s == "auto") throw UsageError("bad --strategy auto: replay compares named strategies");
  }
  for (std::string const& b : split_commas(a.budgets)) {
    Budget const parsed = parse_budget(b);
    if (parsed.evaluations > 0) study.budgets.push_back(parsed.evaluations);
    else study.time_budgets_s.push_back(parsed.seconds);
  }
  if (study.budgets.empty() && study.time_budgets_s.empty()) {
    throw UsageError("bad --budget '" + a.budgets + "': expected a comma list like 20,50,100,30s");
  }
  study.seeds = a.seeds;
  study.warm_start = a.warm_start;
  study.per_problem = a.per_problem;
  study.roofline_start = !a.random_start;
  study.cost.compile_threads = a.compile_threads;
  study.cost.compile_ahead = a.compile_ahead;

  std::vector<ReplayProblem> problems;
  for (std::string const& f : a.from) {
    for (ReplayProblem& p : load(f)) problems.push_back(std::move(p));
  }
  std::vector<ReplayCell> const cells = run_replay_study(problems, study);

  if (ctx.options.json) {
    nlohmann::json j{{"problems", nlohmann::json::array()}, {"cells", nlohmann::json::array()},
                     {"seeds", study.seeds}, {"warm_start", study.warm_start},
                     {"roofline_start", study.roofline_start}};
    for (ReplayProblem const& p : problems) {
      j["problems"].push_back({{"gpu", p.gpu}, {"problem", p.problem},
                               {"candidates", p.records.size()}, {"optimum_ms", p.optimum_ms()}});
    }
    for (ReplayCell const& c : cells) {
      nlohmann::json cell{{"strategy", c.strategy}, {"budget", c.budget},
                          {"median_fraction", c.median}, {"worst_fraction", c.worst},
                          {"median_sim_s", c.median_sim_s}, {"median_evaluations", c.median_evals},
                          {"runs", c.runs}};
      if (!c.problem.empty()) cell["problem"] = c.problem;
      j["cells"].push_back(std::move(cell));
    }
    std::cout << j.dump(2) << std::endl;
  } else {
    TextTable data({"gpu", "problem", "candidates", "optimum"});
    for (ReplayProblem const& p : problems) {
      data.add({p.gpu, p.problem.describe(), std::to_string(p.records.size()),
                format_ms(p.optimum_ms())});
    }
    // Under --csv stdout is the results table alone; the problems go to stderr as text.
    data.print(prose(ctx.options));
    prose(ctx.options) << "\n% of the optimum reached (median / worst over " << problems.size()
              << " problem(s) x " << study.seeds << " seeds), simulated time or evaluations spent"
              << (study.warm_start ? ", warm start from the other problems" : "")
              << (study.roofline_start ? "" : ", random start (no roofline estimate)") << ":\n";
    std::vector<std::string> columns{"strategy", "budget", "median %", "worst %", "sim s",
                                     "evaluations"};
    if (study.per_problem) columns.insert(columns.begin(), "problem");
    TextTable t(columns);
    for (ReplayCell const& c : cells) {
      std::vector<std::string> row{c.strategy, c.budget, fixed(100.0 * c.median, 1),
                                   fixed(100.0 * c.worst, 1), fixed(c.median_sim_s, 1),
                                   fixed(c.median_evals, 0)};
      if (study.per_problem) row.insert(row.begin(), c.problem.empty() ? "all" : c.problem);
      t.add(row);
    }
    t.print(std::cout, table_format(ctx.options));
  }
  if (!a.markdown.empty()) {
    write_file_safely(a.markdown, replay_markdown(cells, study), "the --markdown file");
  }
}

}  // namespace

void setup_replay(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<ReplayArgs>();
  CLI::App* sub = app.add_subcommand(
      "replay", "Run strategies against a stored search with no GPU: % of the optimum per budget");
  sub->add_option("--from", a->from, "A cache (.db) or exported trials (.jsonl); repeatable")
      ->required();
  sub->add_option("--strategy", a->strategies, "Comma list of strategies")->capture_default_str();
  sub->add_option("--budget", a->budgets,
                  "Comma list of budgets per problem: evaluations (50) or simulated time (30s)")
      ->capture_default_str();
  sub->add_option("--seeds", a->seeds, "Seeds 1..N per strategy and problem")->capture_default_str();
  sub->add_flag("--warm-start", a->warm_start,
                "Start each problem from the best configs of the other problems in the data");
  sub->add_flag("--random-start", a->random_start,
                "Start guided strategies without the roofline estimate's predictions (as "
                "search --random-start)");
  sub->add_flag("--per-problem", a->per_problem,
                "Also report each problem over its seeds (the median over all can hide one)");
  sub->add_option("--compile-threads", a->compile_threads, "Simulated compile threads")
      ->capture_default_str();
  sub->add_option("--compile-ahead", a->compile_ahead, "Simulated compiles in flight (strategy lag)")
      ->capture_default_str();
  sub->add_option("--markdown", a->markdown, "Also write the table as Markdown to this file");
  sub->callback([a, &ctx] { run_replay(*a, ctx); });
}

}  // namespace gemmtune
