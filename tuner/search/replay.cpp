// Replay of strategies against stored trials, with a simulated compile pool and GPU.
#include "tuner/search/replay.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <utility>
#include <sstream>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/roofline_estimate.hpp"
#include "tuner/search/warm_start.hpp"

namespace gemmtune {

double ReplayProblem::optimum_ms() const {
  double best = 0.0;
  for (ReplayRecord const& r : records) {
    if (r.disposition == Disposition::kOk && r.time_ms > 0 && (best == 0.0 || r.time_ms < best)) {
      best = r.time_ms;
    }
  }
  return best;
}

std::string ReplayProblem::label(bool with_gpu) const {
  return with_gpu ? gpu + " " + problem.describe() : problem.describe();
}

namespace {

/// The arch table's limits for compute capability `cc` (90 = 9.0) with `sm_count` SMs.
DeviceLimits limits_of(int cc, int sm_count) {
  DeviceLimits l = arch_limits("sm_" + std::to_string(cc)).value_or(DeviceLimits{});
  l.sm_count = std::max(0, sm_count);
  return l;
}

/// The same for a compute capability written "9.0"; an unknown one leaves the defaults.
DeviceLimits limits_of_cc(std::string const& cc, int sm_count) {
  std::size_t const dot = cc.find('.');
  int major = 0, minor = 0;
  try {
    major = std::stoi(cc.substr(0, dot));
    if (dot != std::string::npos) minor = std::stoi(cc.substr(dot + 1));
  } catch (std::exception const&) {
    major = 0;
  }
  return limits_of(major * 10 + minor, sm_count);
}

}  // namespace

std::vector<double> replay_predictions(ReplayProblem const& problem) {
  std::vector<double> out;
  out.reserve(problem.records.size());
  for (ReplayRecord const& r : problem.records) {
    out.push_back(roofline_clocks(r.config, problem.problem, problem.limits));
  }
  return out;
}

std::vector<ReplayProblem> load_replay_jsonl(std::filesystem::path const& path) {
  std::ifstream in(path);
  if (!in) {
    // errno still holds why the open failed (no such file, permission denied, ...).
    throw Error("cannot read replay data '" + path.string() + "': " + std::strerror(errno));
  }
  std::vector<ReplayProblem> out;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      nlohmann::json const j = nlohmann::json::parse(line);
      auto const& g = j.at("gpu");
      std::string const cc = g.at("cc").get<std::string>();
      int const sm_count = g.at("sm_count").get<int>();
      std::string const gpu = g.at("name").get<std::string>() + " / cc " + cc + " / " +
                              std::to_string(sm_count) + " SMs";
      Problem const problem = j.at("problem").get<Problem>().resolved();
      for (std::int64_t const d : {problem.m, problem.n, problem.k}) {
        if (d < 1 || d > kMaxDim) {
          throw Error("problem " + problem.shape() + " out of range (each of M, N, K in 1 … " +
                      std::to_string(kMaxDim) + ")");
        }
      }
      ReplayRecord r;
      r.config = parse_kernel_id(j.at("kernel").get<std::string>());
      // A strategy proposes configs of the families it searches; a record of another family
      // could never be proposed and would be silently dead weight.
      if (find_family(r.config.family) == nullptr) {
        throw Error("kernel family '" + r.config.family + "' is not in this build");
      }
      r.disposition = parse_disposition(j.at("disposition").get<std::string>());
      r.time_ms = j.at("time_ms").get<double>();
      r.compile_ms = j.at("compile_ms").get<double>();
      if (r.disposition == Disposition::kOk && !(r.time_ms > 0 && std::isfinite(r.time_ms))) {
        throw Error("a verified trial needs a finite time_ms > 0");
      }
      if (!(r.compile_ms >= 0 && std::isfinite(r.compile_ms))) {
        throw Error("compile_ms must be a finite number >= 0");
      }
      if (!seen.insert({gpu, problem.describe(), r.config.id()}).second) continue;
      auto [it, added] = index.try_emplace({gpu, problem.describe()}, out.size());
      if (added) out.push_back(ReplayProblem{gpu, problem, {}, limits_of_cc(cc, sm_count)});
      out[it->second].records.push_back(std::move(r));
    } catch (std::exception const& e) {
      throw Error("bad replay data at " + path.string() + ":" + std::to_string(number) + ": " +
                  e.what() + " (expected one JSON object per line as written by "
                  "scripts/export_replay_data.py)");
    }
  }
  if (out.empty()) throw Error("replay data '" + path.string() + "' holds no trials");
  return out;
}

std::vector<ReplayProblem> replay_problems_from_trials(std::vector<Trial> trials) {
  std::sort(trials.begin(), trials.end(),
            [](Trial const& a, Trial const& b) { return a.id < b.id; });
  std::map<std::string, double> compiled;  // kernel id → a real compile time
  for (Trial const& t : trials) {
    if (t.compile_ms > 0) compiled[t.config.id()] = std::max(compiled[t.config.id()], t.compile_ms);
  }
  std::vector<ReplayProblem> out;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  for (Trial const& t : trials) {
    std::string const gpu = t.gpu.describe();
    Problem const problem = t.problem.resolved();
    if (!seen.insert({gpu, problem.describe(), t.config.id()}).second) continue;
    ReplayRecord r;
    r.config = t.config;
    r.disposition = t.disposition;
    r.time_ms = t.disposition == Disposition::kOk ? t.time_ms : 0.0;
    r.compile_ms = t.compile_ms > 0 ? t.compile_ms : compiled[t.config.id()];
    auto [it, added] = index.try_emplace({gpu, problem.describe()}, out.size());
    if (added) {
      out.push_back(ReplayProblem{
          gpu, problem, {}, limits_of(t.gpu.cc_major * 10 + t.gpu.cc_minor, t.gpu.sm_count)});
    }
    out[it->second].records.push_back(std::move(r));
  }
  return out;
}

int ReplayCost::verified_runs(Precision p) {
  return p == Precision::kFP32 || p == Precision::kTF32 ? 3 : 2;
}

double ReplayCost::setup_seconds(Problem const& problem) const {
  double const inputs = static_cast<double>(problem.m * problem.k + problem.k * problem.n);
  return setup_s + setup_s_per_element * inputs;
}

double ReplayCost::eval_seconds(Problem const& problem, ReplayRecord const& r,
                                double best_ms) const {
  double const outputs = static_cast<double>(problem.m * problem.n);
  switch (r.disposition) {
    case Disposition::kRejected:
    case Disposition::kCompileError:
    case Disposition::kSkipped:  // spills: never timed
      return 0.0;
    case Disposition::kOk: {
      // The worker's protocol: warm-up of at least one call, then repeats of at least one call;
      // a calibration slower than the early-stop bound times a single repeat.
      bool const stopped = early_stop_factor > 0 && best_ms > 0 &&
                           r.time_ms > early_stop_factor * best_ms;
      int const repeats = stopped ? 1 : timing.repeats;
      double const timing_ms = std::max(timing.warmup_ms, r.time_ms) +
                               repeats * std::max(timing.target_ms, r.time_ms);
      return eval_fixed_s + verify_s_per_element * verified_runs(problem.precision) * outputs +
             timing_ms / 1000.0;
    }
    default:  // failed on the GPU after loading and one run
      return eval_fixed_s + verify_s_per_element * outputs;
  }
}

std::pair<double, long long> ReplayRun::best_within(double t) const {
  long long n = 0;
  while (n < static_cast<long long>(sim_s.size()) && sim_s[static_cast<std::size_t>(n)] <= t) ++n;
  double best = n ? best_ms[static_cast<std::size_t>(n - 1)] : 0.0;
  if (first_eval >= n) {
    ++n;
    if (first_ms > 0 && (best == 0.0 || first_ms < best)) best = first_ms;
  }
  return {best, n};
}

double optimum_fraction(double optimum_ms, double best_ms) {
  return best_ms > 0 && optimum_ms > 0 ? std::min(1.0, optimum_ms / best_ms) : 0.0;
}

ReplayRun replay_once(ReplayProblem const& problem, std::string const& strategy,
                      std::uint64_t seed, long long budget, ReplayCost const& cost,
                      std::vector<KernelConfig> const& warm_start, double until_s,
                      std::vector<double> const& predicted) {
  std::map<std::string, std::size_t> by_id;
  std::vector<KernelConfig> candidates;
  for (std::size_t i = 0; i < problem.records.size(); ++i) {
    by_id[problem.records[i].config.id()] = i;
    candidates.push_back(problem.records[i].config);
  }
  StrategyContext context;
  context.seed = seed;
  context.lag = cost.compile_ahead;
  context.budget_evaluations = budget;
  context.warm_start = warm_start;
  context.predicted = predicted;
  auto s = make_strategy(strategy, candidates, context);

  // The same pipeline as SearchSession::tune_problem, on a simulated clock.
  struct InFlight {
    std::size_t record;
    double ready_s;
    bool first;  // the strategy's first proposal, as the search session's Pending::first
  };
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (int i = 0; i < std::max(1, cost.compile_threads); ++i) free_at.push(0.0);
  std::vector<InFlight> pending;
  long long proposed = 0;
  int unreported = 0;
  bool done = false;
  // A time goal may need more evaluations than the budget: then only the goals stop it.
  long long const cap =
      budget > 0 && until_s <= 0 ? budget : static_cast<long long>(candidates.size());
  auto refill = [&](double now) {
    while (!done && static_cast<int>(pending.size()) < std::max(1, cost.compile_ahead) &&
           proposed < cap) {
      std::optional<KernelConfig> cfg = s->next();
      if (!cfg) {
        if (pending.empty() && unreported == 0) done = true;
        break;
      }
      auto const it = by_id.find(cfg->id());
      if (it == by_id.end()) throw Error("strategy proposed " + cfg->id() + ", not a candidate");
      double const start = std::max(now, free_at.top());
      free_at.pop();
      double const ready = start + problem.records[it->second].compile_ms / 1000.0;
      free_at.push(ready);
      pending.push_back({it->second, ready, proposed == 0});
      ++proposed;
    }
  };

  ReplayRun run;
  double gpu_free = cost.setup_seconds(problem.problem);
  double best = 0.0;
  refill(gpu_free);  // the session proposes once the baseline is done
  while (!pending.empty()) {
    long long const evals = static_cast<long long>(run.best_ms.size());
    std::size_t pick = pending.size();
    if ((budget > 0 || until_s > 0) && (budget <= 0 || evals >= budget) &&
        (until_s <= 0 || gpu_free >= until_s)) {
      // Past the budget only the first proposal is still timed, if it has not been.
      if (run.first_eval >= 0 || until_s <= 0) break;
      for (std::size_t i = 0; i < pending.size(); ++i) {
        if (pending[i].first) pick = i;
      }
      if (pick == pending.size()) break;
    }
    // The oldest proposal compiled by the time the GPU is free, else the first to finish.
    for (std::size_t i = 0; i < pending.size() && pick == pending.size(); ++i) {
      if (pending[i].ready_s <= gpu_free) pick = i;
    }
    if (pick == pending.size()) {
      pick = 0;
      for (std::size_t i = 1; i < pending.size(); ++i) {
        if (pending[i].ready_s < pending[pick].ready_s) pick = i;
      }
    }
    InFlight const job = pending[pick];
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(pick));
    ++unreported;
    double const now = std::max(gpu_free, job.ready_s);
    refill(now);
    ReplayRecord const& r = problem.records[job.record];
    gpu_free = now + cost.eval_seconds(problem.problem, r, best);
    bool const ok = r.disposition == Disposition::kOk;
    s->report(r.config, ok ? std::optional<double>(r.time_ms) : std::nullopt);
    --unreported;
    if (ok && (best == 0.0 || r.time_ms < best)) best = r.time_ms;
    if (job.first) {
      run.first_eval = static_cast<long long>(run.best_ms.size());
      run.first_ms = ok ? r.time_ms : 0.0;
    }
    run.best_ms.push_back(best);
    run.sim_s.push_back(gpu_free);
    refill(gpu_free);
  }
  return run;
}

namespace {

double lowest(std::vector<double> v) {
  if (v.empty()) return 0.0;
  return *std::min_element(v.begin(), v.end());
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  std::size_t const n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string seconds_label(double s) {
  std::ostringstream o;
  o << s << "s";
  return o.str();
}

}  // namespace

std::vector<ReplayCell> run_replay_study(std::vector<ReplayProblem> const& problems,
                                         ReplayStudy const& study) {
  long long max_budget = 0;
  for (long long b : study.budgets) max_budget = std::max(max_budget, b);
  double max_time = 0.0;
  for (double t : study.time_budgets_s) max_time = std::max(max_time, t);

  // Warm start as a search over a cache would see it: the other problems, fully tuned.
  std::vector<TunedProblem> tuned;
  for (ReplayProblem const& p : problems) {
    std::vector<ReplayRecord const*> ok;
    for (ReplayRecord const& r : p.records) {
      if (r.disposition == Disposition::kOk) ok.push_back(&r);
    }
    std::sort(ok.begin(), ok.end(), [](ReplayRecord const* a, ReplayRecord const* b) {
      return a->time_ms != b->time_ms ? a->time_ms < b->time_ms : a->config.id() < b->config.id();
    });
    TunedProblem t{p.problem, {}};
    for (std::size_t i = 0; i < ok.size() && i < 3; ++i) t.best.push_back(ok[i]->config);
    tuned.push_back(std::move(t));
  }

  bool const several_gpus =
      std::any_of(problems.begin(), problems.end(),
                  [&](ReplayProblem const& p) { return p.gpu != problems.front().gpu; });
  // Fractions, simulated seconds and evaluations per budget, for all problems (index 0) and
  // for each problem (index 1 + its position).
  struct Samples {
    std::map<long long, std::vector<double>> frac_at, sim_at;
    std::map<double, std::vector<double>> frac_in, evals_in;
  };
  auto cells_of = [&](std::string const& strategy, Samples& s, std::string const& problem) {
    std::vector<ReplayCell> out;
    for (long long b : study.budgets) {
      out.push_back({strategy, std::to_string(b), median(s.frac_at[b]), lowest(s.frac_at[b]),
                     median(s.sim_at[b]), static_cast<double>(b),
                     static_cast<int>(s.frac_at[b].size()), problem});
    }
    for (double t : study.time_budgets_s) {
      out.push_back({strategy, seconds_label(t), median(s.frac_in[t]), lowest(s.frac_in[t]), t,
                     median(s.evals_in[t]), static_cast<int>(s.frac_in[t].size()), problem});
    }
    return out;
  };

  std::vector<ReplayCell> cells;
  std::vector<std::vector<ReplayCell>> per_problem(problems.size());
  for (std::string const& strategy : study.strategies) {
    std::vector<Samples> samples(problems.size() + 1);
    for (std::size_t pi = 0; pi < problems.size(); ++pi) {
      ReplayProblem const& p = problems[pi];
      double const optimum = p.optimum_ms();
      std::vector<KernelConfig> warm;
      if (study.warm_start) {
        std::vector<TunedProblem> others;
        for (std::size_t j = 0; j < problems.size(); ++j) {
          if (j != pi && problems[j].gpu == p.gpu) others.push_back(tuned[j]);
        }
        warm = warm_start_from(p.problem, others);
      }
      std::vector<double> const predicted =
          study.roofline_start ? replay_predictions(p) : std::vector<double>{};
      for (int seed = 1; seed <= study.seeds; ++seed) {
        auto const s = static_cast<std::uint64_t>(seed);
        // As `search --budget N` would run: N proposals at most. A time budget is a separate
        // run, since it proposes as long as the clock allows.
        ReplayRun const run =
            max_budget > 0 ? replay_once(p, strategy, s, max_budget, study.cost, warm, 0.0, predicted)
                           : ReplayRun{};
        ReplayRun const timed =
            max_time > 0 ? replay_once(p, strategy, s, 0, study.cost, warm, max_time, predicted)
                         : ReplayRun{};
        for (Samples* to : {&samples[0], &samples[pi + 1]}) {
          for (long long b : study.budgets) {
            std::size_t const n =
                std::min<std::size_t>(static_cast<std::size_t>(b), run.best_ms.size());
            to->frac_at[b].push_back(n ? optimum_fraction(optimum, run.best_ms[n - 1]) : 0.0);
            to->sim_at[b].push_back(n ? run.sim_s[n - 1] : 0.0);
          }
          for (double t : study.time_budgets_s) {
            auto const [best, n] = timed.best_within(t);
            to->frac_in[t].push_back(n ? optimum_fraction(optimum, best) : 0.0);
            to->evals_in[t].push_back(static_cast<double>(n));
          }
        }
      }
    }
    for (ReplayCell& c : cells_of(strategy, samples[0], "")) cells.push_back(std::move(c));
    if (!study.per_problem) continue;
    for (std::size_t pi = 0; pi < problems.size(); ++pi) {
      for (ReplayCell& c : cells_of(strategy, samples[pi + 1], problems[pi].label(several_gpus))) {
        per_problem[pi].push_back(std::move(c));
      }
    }
  }
  // Problem by problem, each with its strategies, as the per-problem table reads them.
  for (std::vector<ReplayCell>& of : per_problem) {
    for (ReplayCell& c : of) cells.push_back(std::move(c));
  }
  return cells;
}

std::string replay_markdown(std::vector<ReplayCell> const& cells, ReplayStudy const& study) {
  auto pct = [](double f) {
    std::ostringstream o;
    o.setf(std::ios::fixed);
    o.precision(1);
    o << 100.0 * f;
    return o.str();
  };
  std::vector<std::string> evals, times, all;
  for (long long b : study.budgets) evals.push_back(std::to_string(b));
  for (double t : study.time_budgets_s) times.push_back(seconds_label(t));
  all = evals;
  all.insert(all.end(), times.begin(), times.end());
  std::set<std::string> const evals_labels(evals.begin(), evals.end());
  // "median / worst", then what the budget left free: seconds spent or evaluations made.
  auto cell = [&](ReplayCell const& c) {
    std::string text = " " + pct(c.median) + " / " + pct(c.worst);
    if (evals_labels.count(c.budget)) {
      text += " (" + std::to_string(std::lround(c.median_sim_s)) + " s)";
    } else {
      text += " (" + std::to_string(std::lround(c.median_evals)) + " ev)";
    }
    return text + " |";
  };
  auto header = [&](std::vector<std::string> const& first,
                    std::vector<std::string> const& budgets) {
    std::string o = "|", rule = "|";
    for (auto const& f : first) {
      o += " " + f + " |";
      rule += "---|";
    }
    for (auto const& b : budgets) {
      o += " " + b + (evals_labels.count(b) ? " evals" : " sim") + " |";
      rule += "---|";
    }
    return o + "\n" + rule + "\n";
  };
  auto table = [&](std::vector<std::string> const& budgets) {
    std::string o = header({"strategy"}, budgets);
    for (std::string const& s : study.strategies) {
      o += "| " + s + " |";
      for (auto const& b : budgets) {
        for (ReplayCell const& c : cells) {
          if (c.problem.empty() && c.strategy == s && c.budget == b) o += cell(c);
        }
      }
      o += "\n";
    }
    return o;
  };
  std::string out;
  if (!evals.empty()) out += table(evals);
  if (!times.empty()) out += (out.empty() ? "" : "\n") + table(times);

  // Per problem (over its seeds): a row per problem and strategy, every budget a column.
  std::vector<std::string> problems;
  for (ReplayCell const& c : cells) {
    if (c.problem.empty()) continue;
    if (std::find(problems.begin(), problems.end(), c.problem) == problems.end()) {
      problems.push_back(c.problem);
    }
  }
  if (problems.empty()) return out;
  out += "\n" + header({"problem", "strategy"}, all);
  for (std::string const& p : problems) {
    for (std::string const& s : study.strategies) {
      out += "| " + p + " | " + s + " |";
      for (auto const& b : all) {
        for (ReplayCell const& c : cells) {
          if (c.problem == p && c.strategy == s && c.budget == b) out += cell(c);
        }
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace gemmtune
