// The search loop: prune, propose, compile ahead, evaluate, store, resume.
#include "tuner/search/search_session.hpp"

#include <chrono>
#include <cmath>
#include <ctime>
#include <algorithm>
#include <deque>
#include <iterator>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/core/median.hpp"
#include "src/core/tie_rule.hpp"
#include "src/core/vendor_kernel.hpp"
#include "src/kernels/roofline_estimate.hpp"
#include "src/nvrtc/compiler.hpp"
#include "src/nvrtc/embedded_sources.hpp"
#include "tuner/search/eval_job_builder.hpp"
#include "tuner/search/param_grid.hpp"
#include "tuner/search/split_to_fill.hpp"
#include "tuner/search/strategy.hpp"
#include "tuner/search/warm_start.hpp"
#include "tuner/worker/interrupt.hpp"

namespace gemmtune {
namespace {

using Clock = std::chrono::steady_clock;

/// Valid one-knob neighbours offered for each warm-start config that is not valid here.
constexpr int kWarmStandIns = 2;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::int64_t unix_now() { return static_cast<std::int64_t>(std::time(nullptr)); }

/// The board during a re-time: median of the rounds' mean SM clocks and temperatures ({0, 0}
/// without sensors).
std::pair<int, int> board_of(std::vector<PowerFigures> const& rounds) {
  std::vector<double> clocks, temperatures;
  for (PowerFigures const& b : rounds) {
    if (!b.present()) continue;
    clocks.push_back(b.sm_clock_mhz);
    temperatures.push_back(b.temperature_c);
  }
  if (clocks.empty()) return {0, 0};
  return {static_cast<int>(std::lround(median_of(clocks))),
          static_cast<int>(std::lround(median_of(temperatures)))};
}

/// The head of a compiler log: enough to see the first error, small enough to store per trial.
std::string log_head(std::string const& log, std::size_t max_chars = 600) {
  std::istringstream in(log);
  std::string line, out;
  while (std::getline(in, line) && out.size() < max_chars) {
    if (line.find("error") != std::string::npos || out.empty()) {
      out += line;
      out += '\n';
    }
  }
  if (out.size() > max_chars) out.resize(max_chars);
  return out;
}

/// A config proposed by the strategy, with its compile in flight.
struct Pending {
  Family const* family = nullptr;
  KernelConfig config;
  std::future<CompileResult> compiled;
  bool first = false;  ///< the strategy's first proposal of the problem
};

}  // namespace

double PhaseTimes::idle_s() const {
  return std::max(0.0, wall_s - gpu_s - baseline_s - retime_s);
}

double PhaseTimes::gpu_busy() const {
  return wall_s > 0 ? std::min(1.0, (gpu_s + baseline_s + retime_s) / wall_s) : 0.0;
}

void PhaseTimes::add_steps(std::vector<std::pair<std::string, double>> const& steps) {
  // Step names come from GpuSession::evaluate: "load", "rotation pool" and "timing" are the
  // load and timing phases; every other step serves verification (inputs, references,
  // verified runs and their checks).
  for (auto const& [name, ms] : steps) {
    if (name == "load") load_s += ms / 1000.0;
    else if (name == "timing" || name == "rotation pool") time_s += ms / 1000.0;
    else verify_s += ms / 1000.0;
  }
}

std::string PhaseTimes::to_json() const {
  nlohmann::json j{{"wall_s", wall_s},         {"compile_s", compile_s},
                   {"compile_wait_s", compile_wait_s}, {"gpu_s", gpu_s},
                   {"load_s", load_s},         {"verify_s", verify_s},
                   {"time_s", time_s},         {"idle_s", idle_s()},
                   {"gpu_busy", gpu_busy()},   {"baseline_s", baseline_s},
                   {"retime_s", retime_s},     {"store_s", store_s}};
  return j.dump();
}

TimingSpec quick_timing() {
  TimingSpec t;
  t.warmup_ms = 10.0;
  t.target_ms = 10.0;
  t.repeats = 5;
  return t;
}

std::string reason_key(std::string const& reason) {
  std::size_t const colon = reason.find(':');
  return colon == std::string::npos ? reason : reason.substr(0, colon);
}

std::vector<std::pair<Family const*, KernelConfig>> valid_candidates(
    std::vector<Family const*> const& families, Problem const& problem, DeviceLimits const& limits,
    int* pruned, std::map<std::string, int>* reasons,
    std::vector<std::pair<KernelConfig, std::string>>* rejected_configs) {
  std::vector<std::pair<Family const*, KernelConfig>> out;
  int rejected = 0;
  for (Family const* f : families) {
    if (!f->supports(problem.precision)) continue;
    f->for_each_config([&](KernelConfig const& cfg) {
      std::string const why = f->reject_reason(cfg, problem, limits);
      if (why.empty()) {
        out.emplace_back(f, cfg);
      } else {
        ++rejected;
        if (reasons) ++(*reasons)[reason_key(why)];
        if (rejected_configs) rejected_configs->emplace_back(cfg, why);
      }
    });
  }
  if (pruned) *pruned = rejected;
  return out;
}

SearchSession::SearchSession(GpuEvaluator& gpu, TrialStore& store, CompileFn compile,
                             std::string cubin_dir, SearchProgress* progress)
    : gpu_(gpu),
      store_(store),
      compile_(std::move(compile)),
      cubin_dir_(std::move(cubin_dir)),
      progress_(progress) {}

Provenance SearchSession::provenance_for(Family const& family) const {
  Provenance p;
  p.driver = device_.driver;
  p.cuda_runtime = device_.cuda_runtime;
  p.nvrtc = nvrtc_version();
  p.cublas = device_.cublas;
  p.gemmtune_version = std::string(gemmtune_version());
  p.template_hash = template_hash(family.template_file());
  p.compile_options = "arch=" + device_.limits.arch;
  return p;
}

Provenance SearchSession::vendor_provenance() const {
  return gemmtune::vendor_provenance(device_);
}

std::string SearchSession::stored_cublaslt(Problem const& problem) {
  Provenance const prov = vendor_provenance();
  for (Trial const& t : store_.trials_for(device_.gpu, problem)) {  // newest first
    if (t.config.family == kCublasLtFamily && t.disposition == Disposition::kOk &&
        t.provenance == prov) {
      return t.config.id();
    }
  }
  return {};
}

std::vector<Trial> SearchSession::record_vendor_trials(Problem const& problem,
                                                       BaselineResult const& base,
                                                       BaselineResult const& verdicts, int rounds,
                                                       bool only_new, std::int64_t search_id,
                                                       std::pair<int, int> board) {
  struct Figure {
    KernelConfig config;
    Disposition verdict;
    double err_ratio, ms, lo, hi;
    std::string reason;  ///< when wrong
    bool once = false;   ///< recorded only where not stored yet, however often reported
  };
  std::vector<Figure> figures;
  if (base.cublas_ms > 0) {
    figures.push_back({cublas_default(), verdicts.cublas_verdict, verdicts.cublas_err_ratio,
                       base.cublas_ms, base.cublas_min_ms, base.cublas_max_ms,
                       verdicts.verdict_reason, false});
  }
  // The faster cuBLASLt algorithms the baseline passed over are failed candidates, kept like
  // any other (a wrong result is a finding, not noise).
  for (VendorRejection const& r : verdicts.cublaslt_rejected) {
    if (std::optional<LtAlgoConfig> const lt = parse_lt_algo(r.kernel)) {
      figures.push_back({to_kernel_config(*lt), Disposition::kWrongResult, r.err_ratio, 0.0, 0.0,
                         0.0, "cuBLASLt: " + r.reason, true});
    }
  }
  if (base.cublaslt_ms > 0 && !base.cublaslt_kernel.empty()) {
    // The worker names the algorithm; an id that does not parse or validate is reported and
    // left out, never allowed to end the search.
    if (std::optional<LtAlgoConfig> const lt = parse_lt_algo(base.cublaslt_kernel)) {
      figures.push_back({to_kernel_config(*lt), verdicts.cublaslt_verdict,
                         verdicts.cublaslt_err_ratio, base.cublaslt_ms, base.cublaslt_min_ms,
                         base.cublaslt_max_ms, verdicts.verdict_reason, false});
    } else if (progress_) {
      progress_->message("cuBLASLt algorithm '" + base.cublaslt_kernel + "' of " +
                         problem.describe() + " is not a valid cublaslt id; not a candidate");
    }
  }
  Provenance const prov = vendor_provenance();
  std::vector<Trial> out;
  for (Figure const& f : figures) {
    // Only a verified call is a candidate; one never checked is a baseline figure only.
    if (f.verdict == Disposition::kSkipped) continue;
    if ((only_new || f.once) && store_.find_trial(device_.gpu, problem, f.config, prov)) continue;
    Trial t;
    t.search_id = search_id;
    t.gpu = device_.gpu;
    t.problem = problem;
    t.config = f.config;
    t.provenance = prov;
    t.disposition = f.verdict;
    t.max_err_ratio = f.err_ratio;
    t.cublas_ms = base.cublas_ms;
    t.cublaslt_ms = base.cublaslt_ms;
    if (f.verdict == Disposition::kOk) {
      t.time_ms = f.ms;
      t.min_ms = f.lo;
      t.spread_lo_ms = f.lo;
      t.spread_hi_ms = f.hi;
      t.spread_rounds = rounds;
      t.tflops = problem.flops() / (f.ms * 1e-3) / 1e12;
      t.reason = rounds >= 2 ? "vendor candidate, re-timed: median of " + std::to_string(rounds) +
                                   " rounds interleaved with the top candidates"
                             : "vendor candidate, timed as the baseline";
    } else {
      t.reason = f.reason;
    }
    t.created_at = unix_now();
    t.board_sm_clock_mhz = board.first;
    t.board_temperature_c = board.second;
    t.id = store_.record_trial(t);
    out.push_back(t);
  }
  return out;
}

SearchReport SearchSession::run(SearchOptions const& options) {
  auto const start = Clock::now();
  SearchReport report;
  device_ = gpu_.device();
  if (!device_.present) {
    throw Error("no GPU available: " + device_.reason +
                " (use --dry-run --arch sm_XX to compile without a GPU)");
  }
  report.search_id = store_.begin_search(options.arguments);
  std::string const settings = search_settings(options);
  for (Problem const& raw : options.problems) {
    if (interrupted()) {
      report.interrupted = true;
      break;
    }
    Problem const problem = raw.resolved();
    // The same search run again (after an interruption, or a suite re-run) goes on where it
    // stopped: a problem it finished is answered from the cache, not searched and re-timed anew.
    if (!options.again) {
      if (std::optional<std::int64_t> const by =
              store_.finished_by(device_.gpu, problem, settings)) {
        report.problems.push_back(finished_outcome(problem, options, *by));
        if (progress_) progress_->problem_finished(report.problems.back());
        continue;
      }
    }
    ProblemOutcome outcome = tune_problem(problem, options, report.phases, report.search_id);
    report.problems.push_back(outcome);
    if (progress_) progress_->problem_finished(outcome);
    // Cut short (Ctrl-C, a stopped device), the problem is not finished: the next run resumes it.
    if (!interrupted() && !gpu_.stopped()) {
      store_.record_finished_problem(report.search_id, device_.gpu, problem, settings);
    }
    if (interrupted()) report.interrupted = true;
    if (gpu_.stopped()) {
      report.device_stopped = true;
      break;
    }
  }
  report.phases.wall_s = seconds_since(start);
  report.worker_restarts = gpu_.restarts();
  if (!report.interrupted) store_.finish_search(report.search_id, report.phases.to_json());
  return report;
}

std::string SearchSession::search_settings(SearchOptions const& options) const {
  nlohmann::json families = nlohmann::json::array();
  std::vector<Family const*> sorted = options.families;
  std::sort(sorted.begin(), sorted.end(),
            [](Family const* a, Family const* b) { return a->name() < b->name(); });
  for (Family const* f : sorted) {
    Provenance const p = provenance_for(*f);
    families.push_back({{"name", std::string(f->name())},
                        {"template_hash", p.template_hash},
                        {"compile_options", p.compile_options}});
  }
  Provenance const v = vendor_provenance();
  nlohmann::json const j{
      {"families", families},
      {"strategy", options.strategy},
      {"budget", {{"evaluations", options.budget.evaluations},
                  {"seconds", options.budget.seconds}}},
      {"seed", options.seed},
      {"timing", options.timing},
      {"final_timing", options.final_timing},
      {"retime", {{"top", options.retime_top},
                  {"rounds", options.retime_rounds},
                  {"settle_ms", options.retime_settle_ms}}},
      {"early_stop", options.early_stop ? options.early_stop_factor : 0.0},
      {"warm_start", options.warm_start},
      {"roofline_start", options.roofline_start},
      {"vendor_candidates", options.vendor_candidates},
      {"compile_ahead", options.compile_ahead},
      {"versions", {{"driver", v.driver},
                    {"cuda_runtime", v.cuda_runtime},
                    {"nvrtc", nvrtc_version()},
                    {"cublas", v.cublas},
                    {"gemmtune", std::string(gemmtune_version())}}}};
  return j.dump();
}

ProblemOutcome SearchSession::finished_outcome(Problem const& problem,
                                               SearchOptions const& options, std::int64_t by) {
  ProblemOutcome o;
  o.problem = problem;
  o.finished_by = by;
  o.strategy = "finished";
  o.candidates = static_cast<int>(
      valid_candidates(options.families, problem, device_.limits, &o.pruned).size());
  // The newest verified trial of each config, as the store's best() ranks them.
  std::vector<Trial> const trials = store_.trials_for(device_.gpu, problem);  // newest first
  std::vector<Trial> const verified = newest_verified(trials);
  std::vector<Trial> own;
  std::copy_if(verified.begin(), verified.end(), std::back_inserter(own),
               [](Trial const& t) { return !is_vendor(t.config); });
  if (!verified.empty()) o.best = verified[pick_trial(verified)];
  if (!own.empty()) o.best_own = own[pick_trial(own)];
  if (std::optional<BaselineResult> const b = store_.find_baseline(device_.gpu, problem)) {
    o.baseline = *b;
  }
  // The vendor's verdicts live in its trials, not the baseline row: the newest of the default
  // call, and of cuBLASLt the newest verified algorithm (the one a pick may have taken), else
  // the newest tried.
  std::set<std::string> seen;
  for (Trial const& t : trials) {
    if (!seen.insert(t.config.family).second && t.disposition != Disposition::kOk) continue;
    if (t.config.family == kCublasFamily && o.baseline.cublas_verdict == Disposition::kSkipped) {
      o.baseline.cublas_verdict = t.disposition;
      o.baseline.cublas_err_ratio = t.max_err_ratio;
    } else if (t.config.family == kCublasLtFamily &&
               o.baseline.cublaslt_verdict != Disposition::kOk) {
      o.baseline.cublaslt_verdict = t.disposition;
      o.baseline.cublaslt_err_ratio = t.max_err_ratio;
      o.baseline.cublaslt_kernel = t.config.id();
    }
  }
  return o;
}

ProblemOutcome SearchSession::tune_problem(Problem const& problem, SearchOptions const& options,
                                           PhaseTimes& phases, std::int64_t search_id) {
  auto const start = Clock::now();
  ProblemOutcome outcome;
  outcome.problem = problem;

  auto candidates = valid_candidates(options.families, problem, device_.limits, &outcome.pruned);
  outcome.candidates = static_cast<int>(candidates.size());
  std::map<std::string, Family const*> family_by_name;
  std::vector<KernelConfig> configs;
  configs.reserve(candidates.size());
  for (auto const& [f, cfg] : candidates) {
    family_by_name[std::string(f->name())] = f;
    configs.push_back(cfg);
  }
  if (progress_) progress_->problem_started(problem, outcome.candidates, outcome.pruned);

  // The baseline first: every ratio of this run is against cuBLAS timed in this worker.
  std::vector<Trial> vendor_quick;  // the vendor candidates it recorded
  {
    auto const t = Clock::now();
    BaselineJob job{problem, options.seed, options.timing, {}, false};
    job.verify = options.vendor_candidates;
    // A resumed search keeps the cuBLASLt algorithm it chose before (its figures are stored):
    // choosing again could land on another of near-equal speed and re-time for nothing.
    if (options.vendor_candidates) job.cublaslt_kernel = stored_cublaslt(problem);
    outcome.baseline = gpu_.baseline(job, options.job_timeout_s * 4);
    phases.baseline_s += seconds_since(t);
    if (outcome.baseline.ok) {
      store_.record_baseline(device_.gpu, problem, outcome.baseline, vendor_provenance());
      if (options.vendor_candidates) {
        vendor_quick =
            record_vendor_trials(problem, outcome.baseline, outcome.baseline, 1, true, search_id);
        outcome.vendor_trials += static_cast<int>(vendor_quick.size());
      }
    } else if (progress_) {
      progress_->message("cuBLAS baseline failed for " + problem.describe() + ": " +
                         outcome.baseline.reason);
    }
  }

  // A time budget is the search's own: the baselines before it (cuBLAS, and cuBLASLt's
  // candidates, which take seconds on large shapes) do not eat into it.
  auto const search_start = Clock::now();
  StrategyPlan const plan = plan_strategy(options.strategy, options.budget, configs.size());
  Budget const& budget = plan.budget;
  outcome.strategy = plan.strategy;
  StrategyContext context;
  context.seed = options.seed;
  context.grid = ParamGrid::of_families(options.families);
  context.lag = options.compile_ahead;
  context.budget_evaluations = budget.evaluations;
  if (options.roofline_start) {
    for (auto const& [f, cfg] : candidates) {
      context.predicted.push_back(roofline_breakdown(*f, cfg, problem, device_.limits).total);
    }
  }
  if (options.warm_start && outcome.strategy != "exhaustive" && outcome.strategy != "random") {
    std::set<std::string> ids;
    for (KernelConfig const& c : configs) ids.insert(c.id());
    std::set<std::string> warm;
    auto offer = [&](KernelConfig const& c) {
      if (warm.insert(c.id()).second) context.warm_start.push_back(c);
    };
    for (KernelConfig const& c : warm_start_configs(store_, device_.gpu, problem)) {
      if (ids.count(c.id())) {
        offer(c);
        continue;
      }
      // Not valid here (or a family not searched: no candidate is one step away then).
      for (KernelConfig const& r : one_step_valid(c, configs, kWarmStandIns)) offer(r);
    }
    for (KernelConfig const& c :
         split_to_fill(context.warm_start, configs, problem, device_.limits.sm_count)) {
      context.warm_start.push_back(c);
    }
    outcome.warm_start = static_cast<int>(context.warm_start.size());
  }
  auto strategy = make_strategy(outcome.strategy, configs, context);
  std::deque<Pending> pending;
  int unreported = 0;  // taken off `pending` for the GPU, result not yet reported
  std::optional<double> best_ms;
  {
    // The newest row of each config counts (a re-time supersedes the quick figure).
    // Our own kernels only: the early stop and the progress line follow the search's own
    // best; the vendor's figures join at the final pick.
    std::set<std::string> seen;
    for (Trial const& t : store_.trials_for(device_.gpu, problem)) {
      if (is_vendor(t.config) || !seen.insert(t.config.id()).second) continue;
      if (t.disposition == Disposition::kOk && (!best_ms || t.time_ms < *best_ms)) {
        best_ms = t.time_ms;
        outcome.best = t;
      }
    }
  }
  long long const eval_cap = budget.evaluations;
  // The strategy's first proposal (a warm start, or the config predicted fastest) is timed
  // whatever the time budget: its compile can outlast a short budget on a large problem, and
  // the quick compile of a later, worse proposal would otherwise be all the search measured
  // (fp32 8192³ under --budget 3s timed one ladder kernel, at 0.29 of the vendor).
  bool first_proposed = false;
  bool first_timed = false;
  int planned = outcome.candidates;
  if (eval_cap > 0 && eval_cap < planned) planned = static_cast<int>(eval_cap);
  bool strategy_done = false;

  auto budget_left = [&]() {
    if (eval_cap > 0 && outcome.evaluated + outcome.resumed >= eval_cap) return false;
    if (budget.seconds > 0 && seconds_since(search_start) >= budget.seconds) return false;
    return true;
  };

  auto refill = [&]() {
    while (!strategy_done && static_cast<int>(pending.size()) < options.compile_ahead &&
           (eval_cap == 0 || outcome.evaluated + outcome.resumed +
                                     static_cast<long long>(pending.size()) + unreported <
                                 eval_cap)) {
      std::optional<KernelConfig> cfg = strategy->next();
      if (!cfg) {
        // With results outstanding, the strategy may be waiting for them; ask again later.
        if (pending.empty() && unreported == 0) strategy_done = true;
        break;
      }
      Family const* fam = family_by_name.at(cfg->family);
      Provenance const prov = provenance_for(*fam);
      if (auto done = store_.find_trial(device_.gpu, problem, *cfg, prov)) {
        ++outcome.resumed;
        strategy->report(*cfg, done->disposition == Disposition::kOk
                                   ? std::optional<double>(done->time_ms)
                                   : std::nullopt);
        continue;
      }
      Pending p;
      p.family = fam;
      p.config = *cfg;
      p.first = !first_proposed;
      first_proposed = true;
      p.compiled = compile_(fam->compile_request(*cfg, problem, device_.limits.arch));
      pending.push_back(std::move(p));
    }
  };

  refill();
  while (!pending.empty()) {
    if (interrupted() || gpu_.stopped()) break;
    // Past the budget only the first proposal is still to be timed, if it has not been.
    std::size_t only = pending.size();
    if (!budget_left()) {
      if (first_timed) break;
      for (std::size_t i = 0; i < pending.size(); ++i) {
        if (pending[i].first) only = i;
      }
      if (only == pending.size()) break;
    }
    // The GPU takes the oldest proposal whose compile is done, and waits only when none is:
    // a cubin-cache hit or a short compile behind a long one goes first.
    auto const wait_start = Clock::now();
    std::size_t pick = pending.size();
    while (pick == pending.size() && !interrupted()) {
      for (std::size_t i = 0; i < pending.size(); ++i) {
        if (only != pending.size() && i != only) continue;
        if (pending[i].compiled.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
          pick = i;
          break;
        }
      }
      if (pick == pending.size()) {
        pending[only != pending.size() ? only : 0].compiled.wait_for(std::chrono::milliseconds(2));
      }
    }
    phases.compile_wait_s += seconds_since(wait_start);
    if (pick == pending.size()) break;  // interrupted while waiting
    Pending p = std::move(pending[pick]);
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(pick));
    ++unreported;
    first_timed = first_timed || p.first;

    Trial trial;
    trial.search_id = search_id;
    trial.gpu = device_.gpu;
    trial.problem = problem;
    trial.config = p.config;
    trial.provenance = provenance_for(*p.family);
    trial.cublas_ms = outcome.baseline.cublas_ms;
    trial.cublaslt_ms = outcome.baseline.cublaslt_ms;

    CompileResult cr = p.compiled.get();
    phases.compile_s += cr.compile_ms / 1000.0;
    refill();  // keep the pool busy while the GPU works on this one
    trial.compile_ms = cr.compile_ms;

    if (!cr.ok) {
      trial.disposition = Disposition::kCompileError;
      trial.reason = log_head(cr.log);
    } else {
      int const spills = spill_bytes(cr);
      if (!cr.resources.empty()) trial.registers = cr.resources.front().registers;
      trial.spill_bytes = spills;
      trial.smem_bytes = p.family->smem_bytes(p.config, problem);
      if (spills > 0) {
        // A spilling config is never timed: local-memory traffic makes it a loser anyway.
        trial.disposition = Disposition::kSkipped;
        trial.reason = "spills " + std::to_string(spills) + " bytes of registers";
      } else {
        EvalJob job = make_eval_job(*p.family, p.config, problem, cr, cubin_dir_, options.seed,
                                    options.timing);
        if (options.early_stop && best_ms) job.timing.early_stop_ms = *best_ms * options.early_stop_factor;
        auto const gpu_start = Clock::now();
        EvalResult r = gpu_.evaluate(job, options.job_timeout_s);
        phases.gpu_s += seconds_since(gpu_start);
        // Cut short by Ctrl-C or a stopped device, the candidate never ran: storing it as
        // skipped would make every resumed search pass it over for good.
        if (r.disposition == Disposition::kSkipped && (interrupted() || gpu_.stopped())) break;
        phases.add_steps(r.steps);
        trial.disposition = r.disposition;
        trial.reason = r.reason;
        trial.time_ms = r.median_ms;
        trial.min_ms = r.min_ms;
        if (r.disposition == Disposition::kOk) {
          trial.spread_lo_ms = r.min_ms;
          trial.spread_hi_ms = r.max_ms;
          trial.spread_rounds = 1;
        }
        trial.max_abs_err = r.max_abs_err;
        trial.max_err_ratio = r.max_err_ratio;
        trial.rel_fro_err = r.rel_fro_err;
        trial.exact_mismatches = r.exact_mismatches;
        if (r.registers > 0) trial.registers = r.registers;
        if (r.disposition == Disposition::kOk && r.median_ms > 0) {
          trial.tflops = problem.flops() / (r.median_ms * 1e-3) / 1e12;
        }
      }
    }
    trial.created_at = unix_now();
    auto const store_start = Clock::now();
    trial.id = store_.record_trial(trial);
    phases.store_s += seconds_since(store_start);
    ++outcome.evaluated;
    ++outcome.dispositions[std::string(to_string(trial.disposition))];
    bool const ok = trial.disposition == Disposition::kOk;
    strategy->report(trial.config, ok ? std::optional<double>(trial.time_ms) : std::nullopt);
    --unreported;
    if (ok && (!best_ms || trial.time_ms < *best_ms)) {
      best_ms = trial.time_ms;
      outcome.best = trial;
    }
    if (progress_) progress_->trial_done(trial, outcome.best, outcome.evaluated, planned);
    refill();  // a strategy that waited for this report proposes again
  }
  // Compiles still in flight are abandoned; their futures finish in the pool.
  for (auto& p : pending) {
    if (p.compiled.valid()) p.compiled.wait();
  }
  outcome.best_own = outcome.best;
  // A run that evaluated nothing new (a finished search run again) has nothing to re-time,
  // unless vendor candidates joined only now: they must meet the own kernels in the same rounds.
  if (options.retime_top > 0 && (outcome.evaluated > 0 || outcome.vendor_trials > 0) &&
      !interrupted() && !gpu_.stopped()) {
    auto const t = Clock::now();
    retime_top(problem, options, family_by_name, outcome, phases, search_id);
    phases.retime_s += seconds_since(t);
  }
  // Without a re-timed pick (none asked for, nothing of ours verified, or cut short before a
  // candidate finished its rounds), the pick is the same rule over the quick figures, the
  // vendor's included, as the store's best() answers then.
  if (!outcome.best || outcome.best->spread_rounds < 2) {
    std::vector<Trial> quick;
    if (outcome.best_own) quick.push_back(*outcome.best_own);
    for (Trial const& t : vendor_quick) {
      if (t.disposition == Disposition::kOk) quick.push_back(t);
    }
    if (!quick.empty()) outcome.best = quick[pick_trial(quick)];
  }
  outcome.wall_s = seconds_since(start);
  return outcome;
}

void SearchSession::retime_by_requests(std::vector<EvalJob> const& jobs,
                                       BaselineJob const& base_job, int rounds,
                                       SearchOptions const& options,
                                       std::vector<std::vector<double>>& times,
                                       std::vector<EvalResult>& last, std::vector<double>& cublas,
                                       std::vector<double>& cublaslt, BaselineResult& last_base) {
  // Rounds of (baselines, candidate 1, candidate 2, ...), each round starting one place further
  // along that list: clocks and temperature drift between rounds and a run can warm the board
  // for the next, so every entry takes every position once in as many rounds. The figure is the
  // median of its rounds and the spread their fastest and slowest (DESIGN.md §5).
  std::size_t const slots = jobs.size() + 1;  // slot 0: the baselines
  for (int round = 0; round < rounds && !interrupted() && !gpu_.stopped(); ++round) {
    for (std::size_t step = 0; step < slots && !interrupted() && !gpu_.stopped(); ++step) {
      std::size_t const slot = (step + static_cast<std::size_t>(round)) % slots;
      if (slot == 0) {
        BaselineResult const b = gpu_.baseline(base_job, options.job_timeout_s * 4);
        if (b.ok) {
          last_base = b;
          cublas.push_back(b.cublas_ms);
          if (b.cublaslt_ms > 0) cublaslt.push_back(b.cublaslt_ms);
        }
        continue;
      }
      std::size_t const i = slot - 1;
      if (!times[i].empty() && last[i].disposition != Disposition::kOk) continue;
      EvalResult const r = gpu_.evaluate(jobs[i], options.job_timeout_s);
      last[i] = r;
      if (r.disposition == Disposition::kOk) times[i].push_back(r.median_ms);
    }
  }
}

void SearchSession::retime_top(Problem const& problem, SearchOptions const& options,
                               std::map<std::string, Family const*> const& families,
                               ProblemOutcome& outcome, PhaseTimes& phases,
                               std::int64_t search_id) {
  // The newest trial of each config under the current provenance; the fastest few are re-timed.
  std::map<std::string, Trial> newest;
  for (Trial const& t : store_.trials_for(device_.gpu, problem)) {
    auto const f = families.find(t.config.family);
    if (f == families.end() || t.provenance != provenance_for(*f->second)) continue;
    newest.try_emplace(t.config.id(), t);  // trials_for is newest first
  }
  std::vector<Trial> top;
  for (auto const& [id, t] : newest) {
    if (t.disposition == Disposition::kOk) top.push_back(t);
  }
  std::sort(top.begin(), top.end(),
            [](Trial const& a, Trial const& b) {
              if (a.time_ms != b.time_ms) return a.time_ms < b.time_ms;
              return a.config.id() < b.config.id();  // ties: a fixed order, so runs repeat
            });
  if (top.size() > static_cast<std::size_t>(options.retime_top)) {
    top.resize(static_cast<std::size_t>(options.retime_top));
  }
  if (top.empty()) return;
  // The rounds decide among near-equals: a candidate more than kRetimeWithin slower than the
  // fastest figure so far cannot be the pick, and a slow kernel's low power lifts the clock for
  // whatever runs next. The fastest of ours always stays, for its re-timed figure.
  double fastest = top.front().time_ms;
  for (double v : {outcome.baseline.cublas_ms, outcome.baseline.cublaslt_ms}) {
    if (v > 0.0) fastest = std::min(fastest, v);
  }
  top.erase(std::remove_if(top.begin() + 1, top.end(),
                           [&](Trial const& t) { return t.time_ms > kRetimeWithin * fastest; }),
            top.end());

  std::vector<EvalJob> jobs;
  std::vector<Trial> compiled;
  auto note = [&outcome](std::string const& why) {
    outcome.retime_note += (outcome.retime_note.empty() ? "" : "; ") + why;
  };
  for (Trial const& t : top) {
    Family const* fam = families.at(t.config.family);
    CompileResult const cr = compile_(fam->compile_request(t.config, problem, device_.limits.arch)).get();
    if (!cr.ok) {
      // It compiled for its quick figure; the rest of the re-time need not wait on it.
      note(t.config.id() + " did not compile again: " + log_head(cr.log));
      continue;
    }
    compiled.push_back(t);
    jobs.push_back(make_eval_job(*fam, t.config, problem, cr, cubin_dir_, options.seed,
                                 options.final_timing));
  }
  top = std::move(compiled);
  if (top.empty()) return;
  // The next-fastest cuBLASLt algorithms of the first baseline's short timings are candidates
  // in the rounds too: algorithms a few per cent apart swap places in short timings, and the
  // rounds, not one short figure, should decide among them.
  if (options.vendor_candidates) {
    for (std::string const& id : outcome.baseline.cublaslt_runners_up) {
      std::optional<LtAlgoConfig> const lt = parse_lt_algo(id);
      if (!lt || id == outcome.baseline.cublaslt_kernel) continue;
      Trial t;
      t.gpu = device_.gpu;
      t.problem = problem;
      t.config = to_kernel_config(*lt);
      t.provenance = vendor_provenance();
      t.disposition = Disposition::kOk;
      top.push_back(t);
      jobs.push_back(make_vendor_eval_job(t.config, problem, options.seed, options.final_timing));
    }
  }
  // The rounds time the cuBLASLt algorithm the first baseline chose, so its figure is one
  // algorithm's median, comparable with the candidates'.
  BaselineJob base_job{problem, options.seed, options.final_timing, {}, false};
  if (options.vendor_candidates && parse_lt_algo(outcome.baseline.cublaslt_kernel)) {
    base_job.cublaslt_kernel = outcome.baseline.cublaslt_kernel;
  }
  BaselineResult const verdicts = outcome.baseline;
  int const rounds = std::max(1, options.retime_rounds);
  std::vector<std::vector<double>> times(top.size());
  std::vector<EvalResult> last(top.size());
  std::vector<double> cublas, cublaslt;
  BaselineResult last_base;
  // One request: the candidates and both baselines in one worker, settled, their repeats in
  // turn (RetimeJob). The interleaving at repeat scale is what lets a 1% tie band hold: under
  // the power cap the board's clock swings with about a second's period, and entries timed one
  // after another for 200 ms each landed on different phases of it.
  RetimeJob one{jobs, base_job, rounds, options.retime_settle_ms};
  if (parse_lt_algo(outcome.baseline.cublaslt_kernel)) {
    one.baselines.cublaslt_kernel = outcome.baseline.cublaslt_kernel;
  }
  double const deadline_s = options.job_timeout_s * static_cast<double>(4 + 2 * jobs.size());
  std::optional<RetimeResult> const together =
      interrupted() || gpu_.stopped() ? std::nullopt : gpu_.retime(one, deadline_s);
  bool const one_request = together && together->candidates.size() == top.size();
  std::pair<int, int> const board = one_request ? board_of(together->round_board)
                                                : std::pair<int, int>{0, 0};
  if (!one_request && !interrupted() && !gpu_.stopped()) {
    note(together ? "the re-time request answered for " +
                        std::to_string(together->candidates.size()) + " of " +
                        std::to_string(top.size()) + " entries"
                  : "the re-time request failed; timed one request per entry and round");
  }
  if (one_request) {
    for (std::size_t i = 0; i < top.size(); ++i) {
      last[i] = together->candidates[i];
      if (last[i].disposition == Disposition::kOk) times[i] = together->candidate_rounds_ms[i];
    }
    if (together->baselines.ok) {
      last_base = verdicts;
      BaselineResult const& b = together->baselines;
      last_base.protocol = b.protocol;
      last_base.cublas_host_us = b.cublas_host_us;
      last_base.cublas_power = b.cublas_power;
      if (!together->cublaslt_rounds_ms.empty()) {
        last_base.cublaslt_host_us = b.cublaslt_host_us;
        last_base.cublaslt_power = b.cublaslt_power;
      }
      cublas = together->cublas_rounds_ms;
      cublaslt = together->cublaslt_rounds_ms;
    }
    if (!together->baselines.reason.empty()) note("baselines: " + together->baselines.reason);
  } else {
    retime_by_requests(jobs, base_job, rounds, options, times, last, cublas, cublaslt, last_base);
  }
  auto lowest = [](std::vector<double> const& v) {
    return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
  };
  auto highest = [](std::vector<double> const& v) {
    return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
  };
  // Vendor figures count only when every round timed them, as the candidates' do; cut short,
  // the first baseline's figures stand.
  bool const all_rounds = cublas.size() == static_cast<std::size_t>(rounds) &&
                          (!options.vendor_candidates || outcome.baseline.cublaslt_kernel.empty() ||
                           cublaslt.size() == static_cast<std::size_t>(rounds));
  if (!all_rounds && !interrupted() && !gpu_.stopped()) {
    note("the baselines were timed in " + std::to_string(cublas.size()) + " (cuBLAS) and " +
         std::to_string(cublaslt.size()) + " (cuBLASLt) of " + std::to_string(rounds) +
         " rounds, so the quick figures stand");
  }
  if (all_rounds) {
    outcome.baseline = last_base;
    outcome.baseline.cublas_ms = median_of(cublas);
    outcome.baseline.cublas_min_ms = lowest(cublas);
    outcome.baseline.cublas_max_ms = highest(cublas);
    outcome.baseline.cublaslt_ms = cublaslt.empty() ? 0.0 : median_of(cublaslt);
    outcome.baseline.cublaslt_min_ms = lowest(cublaslt);
    outcome.baseline.cublaslt_max_ms = highest(cublaslt);
  }
  std::vector<Trial> stored;
  for (std::size_t i = 0; i < top.size(); ++i) {
    // Interrupted before or during this candidate's turn: nothing new was measured, and a
    // stored "skipped" row would supersede its verified figure.
    if (last[i].disposition == Disposition::kSkipped) continue;
    Trial t = top[i];
    t.id = 0;
    t.search_id = search_id;
    t.disposition = last[i].disposition;
    t.reason = last[i].disposition == Disposition::kOk
                   ? "re-timed: median of " + std::to_string(times[i].size()) +
                         (one_request
                              ? " rounds, its repeats in turn with cuBLAS's and cuBLASLt's"
                              : " rounds interleaved with cuBLAS and cuBLASLt in rotated order")
                   : last[i].reason;
    if (all_rounds && times[i].size() == static_cast<std::size_t>(rounds) &&
        last[i].disposition == Disposition::kOk) {
      t.time_ms = median_of(times[i]);
      t.min_ms = std::min(lowest(times[i]), last[i].min_ms);
      t.spread_lo_ms = lowest(times[i]);
      t.spread_hi_ms = highest(times[i]);
      t.spread_rounds = rounds;
      t.tflops = problem.flops() / (t.time_ms * 1e-3) / 1e12;
    } else if (t.disposition == Disposition::kOk) {
      // Interrupted between rounds: keep the quick figure rather than a partial median, and
      // keep every figure of the re-time out when the baselines missed a round, so no re-timed
      // own figure is ranked against vendor figures of the quick protocol.
      continue;
    }
    t.max_err_ratio = std::max(t.max_err_ratio, last[i].max_err_ratio);
    t.cublas_ms = outcome.baseline.cublas_ms;
    t.cublaslt_ms = outcome.baseline.cublaslt_ms;
    t.created_at = unix_now();
    t.board_sm_clock_mhz = board.first;
    t.board_temperature_c = board.second;
    auto const store_start = Clock::now();
    t.id = store_.record_trial(t);
    phases.store_s += seconds_since(store_start);
    ++outcome.retimed;
    if (t.disposition == Disposition::kOk) stored.push_back(t);
  }
  // The own figure is our kernels' alone: the cuBLASLt runners-up were re-timed beside them.
  std::vector<Trial> own;
  std::copy_if(stored.begin(), stored.end(), std::back_inserter(own),
               [](Trial const& t) { return !is_vendor(t.config); });
  if (!own.empty()) outcome.best_own = own[pick_trial(own)];
  if (all_rounds) {
    store_.record_baseline(device_.gpu, problem, outcome.baseline, vendor_provenance());
    if (options.vendor_candidates) {
      for (Trial const& t : record_vendor_trials(problem, outcome.baseline, verdicts, rounds, false,
                                                 search_id, board)) {
        ++outcome.vendor_trials;
        if (t.disposition == Disposition::kOk) stored.push_back(t);
      }
    }
  }
  // The search reports what the store's best() will answer: the same pick over the re-timed.
  if (!stored.empty()) outcome.best = stored[pick_trial(stored)];
}

}  // namespace gemmtune
