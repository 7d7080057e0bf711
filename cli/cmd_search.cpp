// `gemmtune search`: tune problems on the local GPU, or compile-check a space with --dry-run.
#include <algorithm>
#include <iostream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "cli/output.hpp"
#include "cli/progress_bar.hpp"
#include "cli/range_progress.hpp"
#include "db/sqlite_trial_store.hpp"
#include "src/core/error.hpp"
#include "src/core/vendor_kernel.hpp"
#include "src/kernels/family.hpp"
#include "src/nvrtc/compile_pool.hpp"
#include "src/core/tie_rule.hpp"
#include "tuner/search/dry_run.hpp"
#include "tuner/search/range_plan.hpp"
#include "tuner/search/strategy.hpp"
#include "tuner/search/worker_evaluator.hpp"
#include "tuner/shapes/shape_sweep.hpp"
#include "tuner/worker/interrupt.hpp"

namespace gemmtune {
namespace {

/// Configs a dry run compiles per family and shape unless told otherwise: on two cores the
/// default dry run of one shape ends within two minutes, and the sample still spans the space.
constexpr long long kDryRunSample = 24;

struct SearchArgs {
  ProblemOptions problem;
  std::string family = "all";
  std::string strategy = "auto";
  std::string budget;
  std::uint64_t seed = 1;
  std::string arch;
  bool dry_run = false;
  bool list = false;
  long long max_configs = 0;
  bool whole_space = false;
  double timeout_s = 120.0;
  double target_ms = quick_timing().target_ms;
  int repeats = quick_timing().repeats;
  int retime = 3;
  bool no_early_stop = false;
  bool random_start = false;
  bool no_vendor = false;
  bool again = false;
  std::string command_line;
};

void print_dry_run(DryRunReport const& r, GlobalOptions const& o) {
  if (o.json) {
    nlohmann::json j{{"arch", r.arch},
                     {"wall_s", r.wall_s},
                     {"interrupted", r.interrupted},
                     {"families", nlohmann::json::array()}};
    if (!r.configs.empty()) {
      nlohmann::json configs = nlohmann::json::array();
      for (DryRunConfig const& c : r.configs) {
        configs.push_back({{"problem", c.problem}, {"kernel", c.kernel}, {"outcome", c.outcome},
                           {"registers", c.registers}, {"spill_bytes", c.spill_bytes},
                           {"reason", c.reason}});
      }
      j["configs"] = std::move(configs);
    }
    for (auto const& f : r.families) {
      j["families"].push_back({{"family", f.family}, {"valid", f.valid},
                               {"candidates", f.candidates},
                               {"pruned", f.pruned}, {"compiled", f.compiled},
                               {"failed", f.failed}, {"spilling", f.spilling},
                               {"min_registers", f.min_registers},
                               {"max_registers", f.max_registers},
                               {"compile_s", f.compile_s}, {"first_error", f.first_error},
                               {"prune_reasons", f.prune_reasons}});
    }
    std::cout << j.dump(2) << std::endl;
    return;
  }
  // --list: one line per config first (what this arch runs, then why each other one is not run).
  std::vector<DryRunConfig const*> ordered;
  for (DryRunConfig const& c : r.configs) ordered.push_back(&c);
  auto const rank = [](DryRunConfig const* c) {
    return c->outcome == "rejected" ? 2 : c->outcome == "not_compiled" ? 1 : 0;
  };
  std::stable_sort(ordered.begin(), ordered.end(),
                   [&](DryRunConfig const* x, DryRunConfig const* y) { return rank(x) < rank(y); });
  // Under --csv stdout is one table: the configs with --list, else the families.
  std::ostream& out = prose(o);
  TextTable configs({"kernel", "problem", "outcome", "registers", "spill_bytes", "reason"});
  for (DryRunConfig const* cp : ordered) {
    if (o.csv) {
      bool const compiled = cp->outcome == "ok" || cp->outcome == "spills";
      configs.add({cp->kernel, cp->problem, cp->outcome,
                   compiled ? std::to_string(cp->registers) : "",
                   compiled ? std::to_string(cp->spill_bytes) : "", compiled ? "" : cp->reason});
      continue;
    }
    DryRunConfig const& c = *cp;
    std::cout << c.kernel << '\t' << c.problem << '\t' << c.outcome;
    if (c.outcome == "ok" || c.outcome == "spills") {
      std::cout << "\tregisters=" << c.registers << " spill_bytes=" << c.spill_bytes;
    } else {
      std::string reason = c.reason;
      std::replace(reason.begin(), reason.end(), '\n', ' ');
      std::cout << '\t' << reason;
    }
    std::cout << '\n';
  }
  TextTable t({"family", "valid", "candidates", "pruned", "compiled", "failed", "spilling",
               "registers", "compile s"});
  int total = 0, ok = 0, valid = 0;
  for (auto const& f : r.families) {
    t.add({f.family, std::to_string(f.valid), std::to_string(f.candidates), std::to_string(f.pruned),
           std::to_string(f.compiled), std::to_string(f.failed), std::to_string(f.spilling),
           f.compiled ? std::to_string(f.min_registers) + "-" + std::to_string(f.max_registers) : "-",
           fixed(f.compile_s, 1)});
    total += f.candidates;
    valid += f.valid;
    ok += f.compiled - f.spilling;
  }
  out << "dry run for " << r.arch << " over " << r.problems.size() << " problem(s): " << ok
      << " of " << total << " candidates compile without spills (";
  if (total < valid) out << "a sample of the " << valid << " valid, --whole-space for all; ";
  out << fixed(r.wall_s, 1) << " s wall)"
      << (r.interrupted ? " — INTERRUPTED: partial counts" : "") << "\n";
  if (o.csv && !r.configs.empty()) {
    configs.print(std::cout, TableFormat::kCsv);
    t.print(out);
  } else {
    t.print(std::cout, table_format(o));
  }
  for (auto const& f : r.families) {
    if (!f.first_error.empty()) out << "first error in " << f.family << ":\n" << f.first_error << "\n";
  }
  if (r.configs.empty()) {
    out << "(--list prints every config: compiled with registers and spills, or rejected "
                 "with the constraint that rejects it)\n";
  }
}

void print_report(SearchReport const& r, bool json) {
  if (json) {
    nlohmann::json j{{"search_id", r.search_id},
                     {"interrupted", r.interrupted},
                     {"device_stopped", r.device_stopped},
                     {"worker_restarts", r.worker_restarts},
                     {"phases", nlohmann::json::parse(r.phases.to_json())},
                     {"problems", nlohmann::json::array()}};
    for (auto const& p : r.problems) {
      nlohmann::json pj{{"problem", p.problem},
                        {"candidates", p.candidates},
                        {"pruned", p.pruned},
                        {"evaluated", p.evaluated},
                        {"resumed", p.resumed},
                        {"retimed", p.retimed},
                        {"strategy", p.strategy},
                        {"warm_start", p.warm_start},
                        {"dispositions", p.dispositions},
                        {"wall_s", p.wall_s},
                        {"finished_by", p.finished_by > 0 ? nlohmann::json(p.finished_by)
                                                          : nlohmann::json(nullptr)},
                        {"cublas_ms", p.baseline.cublas_ms},
                        {"cublaslt_ms", p.baseline.cublaslt_ms}};
      auto figure = [&p](std::optional<Trial> const& t) -> nlohmann::json {
        if (!t) return nullptr;
        nlohmann::json f{
            {"kernel", t->config.id()},
            {"vendor", is_vendor(t->config)},
            {"time_ms", t->time_ms},
            {"tflops", t->tflops},
            {"ratio_cublas", p.baseline.cublas_ms > 0 ? p.baseline.cublas_ms / t->time_ms : 0.0},
            {"ratio_cublaslt",
             p.baseline.cublaslt_ms > 0 ? p.baseline.cublaslt_ms / t->time_ms : 0.0}};
        if (t->spread_rounds > 0) {
          f["spread"] = {{"lo_ms", t->spread_lo_ms},
                         {"hi_ms", t->spread_hi_ms},
                         {"rounds", t->spread_rounds}};
        }
        if (t->board_sm_clock_mhz > 0) {
          f["board"] = {{"sm_clock_mhz", t->board_sm_clock_mhz},
                        {"temperature_c", t->board_temperature_c}};
        }
        return f;
      };
      pj["cublaslt_kernel"] = p.baseline.cublaslt_kernel;
      // A vendor figure that failed the tolerance pass is no competitor a pick must match; its
      // verdict goes with the figure so a summary can tell.
      pj["cublas_verdict"] = to_string(p.baseline.cublas_verdict);
      pj["cublaslt_verdict"] = to_string(p.baseline.cublaslt_verdict);
      if (!p.baseline.cublaslt_rejected.empty()) {
        nlohmann::json& rejected = pj["cublaslt_rejected"] = nlohmann::json::array();
        for (VendorRejection const& x : p.baseline.cublaslt_rejected) {
          rejected.push_back({{"kernel", x.kernel}, {"err_ratio", x.err_ratio}});
        }
      }
      pj["vendor_trials"] = p.vendor_trials;
      pj["best"] = figure(p.best);
      pj["best_own"] = figure(p.best_own);
      if (!p.retime_note.empty()) pj["retime_note"] = p.retime_note;
      j["problems"].push_back(pj);
    }
    std::cout << j.dump(2) << std::endl;
    return;
  }
  TextTable t({"problem", "pick", "time", "TFLOP/s", "vs cuBLAS", "vs cuBLASLt", "own vs cuBLAS",
               "own vs best", "trials", "failed", "resumed"});
  for (auto const& p : r.problems) {
    int failed = 0;
    for (auto const& [d, n] : p.dispositions) {
      if (d != "ok") failed += n;
    }
    // The own column keeps our kernels' progress visible when the pick is the vendor's.
    std::string const own =
        p.best_own ? ratio(p.baseline.cublas_ms, p.best_own->time_ms) : std::string("-");
    // Against the best vendor figure that passed its tolerance pass, as the suites count it.
    auto const verified = [](double ms, Disposition verdict) {
      return verdict == Disposition::kWrongResult ? 0.0 : ms;
    };
    std::string const own_best =
        p.best_own
            ? ratio(best_vendor_ms(verified(p.baseline.cublas_ms, p.baseline.cublas_verdict),
                                   verified(p.baseline.cublaslt_ms, p.baseline.cublaslt_verdict)),
                    p.best_own->time_ms)
            : std::string("-");
    if (p.best) {
      t.add({p.problem.describe(), p.best->config.id(), format_ms(p.best->time_ms),
             fixed(p.best->tflops, 2), ratio(p.baseline.cublas_ms, p.best->time_ms),
             ratio(p.baseline.cublaslt_ms, p.best->time_ms), own, own_best,
             std::to_string(p.evaluated),
             std::to_string(failed), std::to_string(p.resumed)});
    } else {
      t.add({p.problem.describe(), "(none)", "-", "-", "-", "-", own, own_best,
             std::to_string(p.evaluated),
             std::to_string(failed), std::to_string(p.resumed)});
    }
  }
  t.print(std::cout);
  for (auto const& p : r.problems) {
    if (!p.retime_note.empty()) {
      std::cerr << "re-time of " << p.problem.describe() << ": " << p.retime_note << "\n";
    }
  }
  std::cerr << "search " << r.search_id << ": wall " << fixed(r.phases.wall_s, 1) << " s, gpu "
            << fixed(r.phases.gpu_s, 1) << " s, baseline " << fixed(r.phases.baseline_s, 1)
            << " s, compile " << fixed(r.phases.compile_s, 1) << " s (waited "
            << fixed(r.phases.compile_wait_s, 1) << " s; load " << fixed(r.phases.load_s, 1)
            << " s, verify " << fixed(r.phases.verify_s, 1) << " s, time "
            << fixed(r.phases.time_s, 1) << " s, idle " << fixed(r.phases.idle_s(), 1)
            << " s, GPU busy " << fixed(100.0 * r.phases.gpu_busy(), 0) << "%), store "
            << fixed(r.phases.store_s, 2)
            << " s, worker restarts " << r.worker_restarts
            << (r.interrupted ? " — interrupted; run the same command again to resume" : "")
            << (r.device_stopped ? " — device stopped after repeated worker failures" : "")
            << std::endl;
}

/// Adds a later run's problems and figures to `report` (its stop flags are the later run's).
void append_report(SearchReport& report, SearchReport const& next) {
  if (report.search_id == 0) report.search_id = next.search_id;
  report.problems.insert(report.problems.end(), next.problems.begin(), next.problems.end());
  report.interrupted = next.interrupted;
  report.device_stopped = next.device_stopped;
  report.worker_restarts += next.worker_restarts;
  report.phases.wall_s += next.phases.wall_s;
  report.phases.gpu_s += next.phases.gpu_s;
  report.phases.baseline_s += next.phases.baseline_s;
  report.phases.retime_s += next.phases.retime_s;
}

/// One layer of a range: the range's points of one precision, layout and alignment measured so
/// far, with `q` a problem of the layer (its M aside) and the Ms it holds.
struct RangeLayer {
  Problem q;
  std::vector<RangePoint> points;
  std::set<std::int64_t> have;
};

/// Every layer of the ranges among `problems`, its points read from the cache.
std::vector<RangeLayer> range_layers(std::vector<RangeShape> const& ranges,
                                     std::vector<Problem> const& problems, GpuIdentity const& gpu,
                                     AppContext& ctx) {
  std::vector<RangeLayer> out;
  std::set<std::string> layers;
  for (Problem const& q : problems) {
    for (RangeShape const& r : ranges) {
      if (q.n != r.n || q.k != r.k || q.m < r.m_lo || q.m > r.m_hi) continue;
      std::string const layer = std::to_string(r.m_lo) + "-" + std::to_string(r.m_hi) + "/" +
                                std::string(to_string(q.precision)) + "/" +
                                std::string(to_string(q.layout)) + "/" + std::to_string(q.align);
      if (!layers.insert(layer).second) continue;
      RangeLayer l{q, {}, {}};
      for (Problem const& x : problems) {
        if (x.n == q.n && x.k == q.k && x.precision == q.precision && x.layout == q.layout &&
            x.align == q.align && x.m >= r.m_lo && x.m <= r.m_hi && l.have.insert(x.m).second) {
          l.points.push_back(range_point(x.m, ctx.store().trials_for(gpu, x.resolved())));
        }
      }
      out.push_back(std::move(l));
    }
  }
  return out;
}

/// The layer's problem at M `m`, unless it holds that M already or (with --align, where a
/// transposed A's leading dimension is M) the alignment class cannot take it.
std::optional<Problem> new_point(RangeLayer& l, std::int64_t m) {
  if (!l.have.insert(m).second) return std::nullopt;
  Problem added = l.q;
  added.m = m;
  if (l.q.align != 0 && added.packed_alignment() < l.q.align) return std::nullopt;
  return added;
}

/// The vendor probes of every layer (vendor_probe_points): at each, the vendor's best and the
/// vendor picks the map would run there, timed as baselines; the probes where a pick is slower
/// than the best beyond the tie band, as new points.
std::vector<Problem> probe_vendor_gaps(std::vector<RangeLayer>& layers, SearchOptions const& opts,
                                       AppContext& ctx) {
  std::vector<Problem> more;
  std::size_t probes = 0;
  for (RangeLayer& l : layers) {
    std::size_t const room =
        kMaxRangePoints > l.points.size() ? kMaxRangePoints - l.points.size() : 0;
    for (VendorProbe const& probe : vendor_probe_points(l.points, kRangeMinRatio, room)) {
      Problem at = l.q;
      at.m = probe.m;
      if (l.have.count(probe.m) > 0 || (l.q.align != 0 && at.packed_alignment() < l.q.align)) {
        continue;
      }
      ++probes;
      at = at.resolved();
      BaselineResult const best = ctx.gpu().baseline(
          BaselineJob{at, opts.seed, opts.timing, {}, false}, opts.job_timeout_s);
      double const best_ms = fastest_vendor_ms(best);
      bool needed = false;
      for (std::string const& pick : probe.picks) {
        double pick_ms = best.ok ? best.cublas_ms : 0.0;
        if (pick == best.cublaslt_kernel) {
          pick_ms = best.cublaslt_ms;  // the autotuned choice at this M is the pick itself
        } else if (pick != "cublas:default") {
          BaselineResult const one = ctx.gpu().baseline(
              BaselineJob{at, opts.seed, opts.timing, pick, false}, opts.job_timeout_s);
          // An algorithm this M cannot run is no pick to keep here either.
          pick_ms = one.cublaslt_ms > 0.0 ? one.cublaslt_ms
                                          : std::numeric_limits<double>::infinity();
        }
        needed = needed || probe_needs_point(pick_ms, best_ms, kTieBand);
      }
      if (needed) {
        if (std::optional<Problem> p = new_point(l, probe.m)) more.push_back(*p);
      }
    }
  }
  if (!ctx.options.quiet && probes > 0) {
    std::cerr << "range search: " << probes << " vendor probes between points; " << more.size()
              << " where a neighbour's vendor pick trails the vendor's best by more than "
              << fixed(100.0 * kTieBand, 0) << "% get points of their own" << std::endl;
  }
  return more;
}

/// The range search's passes after the first (issue "Tune a model"): for each layer of a range,
/// new points where neighbours' picks disagree beyond the tie band, searched with
/// refined_point_options until they agree, kRangePasses passes or kMaxRangePoints points; then
/// one pass of vendor probes (probe_vendor_gaps) whose points are searched the same way.
void refine_ranges(std::vector<RangeShape> const& ranges, std::vector<Problem>& problems,
                   SearchOptions opts, SearchSession& session, SearchReport& report,
                   RangeProgress& progress, AppContext& ctx) {
  GpuIdentity const gpu = ctx.require_gpu().gpu;
  auto const run_pass = [&](int pass, std::vector<Problem> const& more) {
    opts.problems = more;
    progress.start_pass(pass, more.size());
    append_report(report, session.run(opts));
    problems.insert(problems.end(), more.begin(), more.end());
  };
  int pass = 0;
  for (; pass < kRangePasses && !report.interrupted && !report.device_stopped; ++pass) {
    std::vector<Problem> more;
    for (RangeLayer& l : range_layers(ranges, problems, gpu, ctx)) {
      std::size_t const room =
          kMaxRangePoints > l.points.size() ? kMaxRangePoints - l.points.size() : 0;
      for (std::int64_t const m : refine_range_points(l.points, kTieBand, kRangeMinRatio, room)) {
        if (std::optional<Problem> p = new_point(l, m)) more.push_back(*p);
      }
    }
    if (more.empty()) break;
    if (!ctx.options.quiet) {
      std::cerr << "range search: pass " << pass + 1 << " measures " << more.size()
                << " more M where neighbouring picks disagree" << std::endl;
    }
    run_pass(pass + 1, more);
  }
  if (report.interrupted || report.device_stopped) return;
  std::vector<RangeLayer> layers = range_layers(ranges, problems, gpu, ctx);
  std::vector<Problem> const probed = probe_vendor_gaps(layers, opts, ctx);
  if (!probed.empty()) run_pass(pass + 1, probed);
}

/// True when `q` is a point of one of the M ranges (its N and K, M inside).
bool in_a_range(Problem const& q, std::vector<RangeShape> const& ranges) {
  return std::any_of(ranges.begin(), ranges.end(), [&](RangeShape const& r) {
    return q.n == r.n && q.k == r.k && q.m >= r.m_lo && q.m <= r.m_hi;
  });
}

void run_search(SearchArgs const& a, AppContext& ctx) {
  // An M range ("1-16384x4096x4096") starts as its first points; refine_ranges adds the rest.
  ProblemOptions points = a.problem;
  std::vector<RangeShape> ranges;
  points.shapes.clear();
  for (std::string const& text : a.problem.shapes) {
    RangeShape r;
    if (!parse_range_shape(text, r)) {
      points.shapes.push_back(text);
      continue;
    }
    ranges.push_back(r);
    for (std::int64_t const m : initial_range_points(r.m_lo, r.m_hi)) {
      points.shapes.push_back(std::to_string(m) + "x" + std::to_string(r.n) + "x" +
                              std::to_string(r.k));
    }
  }
  std::vector<Problem> problems = points.collect();
  std::vector<Family const*> families = select_families(a.family);
  Budget const budget = a.budget.empty() ? Budget{} : parse_budget(a.budget);
  check_strategy_name(a.strategy);
  if (a.timeout_s <= 0) throw UsageError("bad --timeout: expected seconds > 0");
  if (a.list && !a.dry_run) throw UsageError("--list lists a dry run's configs: add --dry-run");
  if (a.target_ms <= 0 || a.repeats < 1) {
    throw UsageError("bad timing: --target-ms must be > 0 and --repeats ≥ 1");
  }
  install_interrupt_handler();
  // The points of M ranges also get the range's status line; the GPU is known by the time one
  // finishes (a dry run finishes none).
  RangeProgress progress(ctx.options.quiet, ranges, [&ctx](Problem const& q) {
    return range_point(q.m, ctx.store().trials_for(ctx.require_gpu().gpu, q.resolved()));
  });

  if (a.dry_run) {
    std::string const arch = a.arch.empty() ? "sm_90" : a.arch;
    if (a.whole_space && a.max_configs > 0) {
      throw UsageError("--whole-space compiles every config; --max-configs samples them: give one");
    }
    long long cap = a.whole_space ? 0 : a.max_configs > 0 ? a.max_configs : kDryRunSample;
    if (budget.evaluations > 0 && (cap == 0 || budget.evaluations < cap)) cap = budget.evaluations;
    DryRunReport r = dry_run(problems, families, arch, ctx.compile_fn(), cap, &progress, a.list);
    progress.finish();
    print_dry_run(r, ctx.options);
    int compiled = 0;
    for (auto const& f : r.families) compiled += f.compiled;
    if (compiled == 0) command_status() = 3;
    if (r.interrupted) {
      std::cerr << "gemmtune: dry run interrupted; the counts above are partial" << std::endl;
      command_status() = 130;
    }
    return;
  }

  DeviceReport const& dev = ctx.require_gpu();
  for (Problem const& q : problems) {
    if (is_fp8(q.precision) && dev.gpu.cc_major * 10 + dev.gpu.cc_minor < 89) {
      throw UsageError(std::string(to_string(q.precision)) + " needs FP8 tensor cores (compute "
                       "capability 8.9 or later); this GPU is " + dev.gpu.describe());
    }
  }
  if (!a.arch.empty() && a.arch != dev.limits.arch && a.arch != dev.limits.arch + "a") {
    throw UsageError("--arch " + a.arch + " does not match this GPU (" + dev.gpu.describe() +
                     "); use --dry-run to compile for another arch");
  }
  SearchOptions opts;
  opts.problems = problems;
  opts.families = families;
  opts.strategy = a.strategy;
  opts.budget = budget;
  opts.seed = a.seed;
  opts.timing.target_ms = a.target_ms;
  opts.timing.repeats = a.repeats;
  if (a.retime < 0) throw UsageError("bad --retime " + std::to_string(a.retime) + ": expected ≥ 0");
  opts.retime_top = a.retime;
  opts.job_timeout_s = a.timeout_s;
  opts.early_stop = !a.no_early_stop;
  opts.roofline_start = !a.random_start;
  opts.vendor_candidates = !a.no_vendor;
  opts.again = a.again;
  opts.arguments = a.command_line;
  // One compile in flight per compile thread: with fewer, the GPU waited for compiles on the
  // fp32 simt space (70% busy at 8 in flight on the H200's 16 cores), and the replay found
  // the strategy's longer feedback lag no loss (evolution, 30 s, two fp32 and 12 bf16 shapes:
  // worst 98.7% at 16, 91.7% at 8; bench/results/2026-11-29-replay-strategies.md).
  opts.compile_ahead = static_cast<int>(ctx.pool().threads());
  SearchSession session(ctx.gpu(), ctx.store(), ctx.compile_fn(), ctx.cubin_dir() + "/loose",
                        &progress);
  // Plain shapes are searched as given; a range's points with the range options (range_plan).
  std::vector<Problem> plain, ranged;
  for (Problem const& q : problems) (in_a_range(q, ranges) ? ranged : plain).push_back(q);
  SearchReport r;
  if (!plain.empty() || ranged.empty()) {
    opts.problems = plain;
    r = session.run(opts);
  }
  if (!ranged.empty() && !r.interrupted && !r.device_stopped) {
    SearchOptions first = range_point_options(opts);
    first.problems = ranged;
    progress.start_pass(0, ranged.size());
    append_report(r, session.run(first));
    if (!r.interrupted && !r.device_stopped) {
      refine_ranges(ranges, ranged, refined_point_options(opts), session, r, progress, ctx);
    }
  }
  problems = plain;
  problems.insert(problems.end(), ranged.begin(), ranged.end());
  print_report(r, ctx.options.json);
  bool all = !r.problems.empty() && r.problems.size() == problems.size();
  for (auto const& p : r.problems) all = all && p.best.has_value();
  if (r.interrupted) command_status() = 130;
  else if (!all) command_status() = 3;
}

}  // namespace

void setup_search(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<SearchArgs>();
  CLI::App* sub = app.add_subcommand("search", "Tune problems on the local GPU (or --dry-run: compile only)");
  add_problem_options(*sub, a->problem, true);
  sub->add_option("--family", a->family, "Kernel family, group (ladder, all) or comma list")
      ->capture_default_str();
  sub->add_option("--strategy", a->strategy,
                  "auto (evolution with --budget; else exhaustive up to 400 valid configs, evolution for 30 s above), exhaustive, random or evolution")
      ->capture_default_str();
  sub->add_option("--budget", a->budget, "Per problem: evaluations (200) or time (90s, 5m)");
  sub->add_option("--seed", a->seed, "Seed for inputs and the random strategy")
      ->check(seed_value())
      ->capture_default_str();
  sub->add_option("--arch", a->arch, "Target arch (sm_80, sm_86, sm_89, sm_90, sm_90a); with --dry-run no GPU is needed");
  sub->add_flag("--dry-run", a->dry_run, "Compile the space for --arch and report; no GPU, nothing stored");
  sub->add_flag("--list", a->list,
                "With --dry-run: every config, compiled (registers, spills) or rejected (the constraint)");
  sub->add_option("--max-configs", a->max_configs,
                  "Dry run: compile an evenly spread sample of this many configs per family and "
                  "shape (default " + std::to_string(kDryRunSample) + ")")
      ->check(integer_in(1, 1000000000));
  sub->add_flag("--whole-space", a->whole_space,
                "Dry run: compile every valid config (can take many minutes per family)");
  add_timing_options(*sub, a->timeout_s, a->target_ms, a->repeats, "Timing while searching",
                     "Deadline of one candidate in seconds");
  sub->add_option("--retime", a->retime,
                  "Re-time this many of the best at the end with the full protocol, interleaved with cuBLAS")
      ->capture_default_str();
  sub->add_flag("--no-early-stop", a->no_early_stop, "Time every candidate fully");
  sub->add_flag("--random-start", a->random_start,
                "Start without the roofline estimate: evolution from random configs, exhaustive "
                "in canonical order (not the predicted fastest first)");
  sub->add_flag("--no-vendor", a->no_vendor,
                "Time cuBLAS and cuBLASLt as baselines only, not as candidates the pick may take");
  sub->add_flag("--again", a->again,
                "Search shapes a search with the same settings already finished (new trials and "
                "a new re-time); without it they are reported from the cache");
  sub->callback([a, &ctx, sub] {
    std::ostringstream cl;
    cl << "search";
    for (auto const& s : a->problem.shapes) cl << " --shape " << s;
    if (!a->problem.shapes_file.empty()) cl << " --shapes-file " << a->problem.shapes_file;
    cl << " --precision " << a->problem.precision << " --layout " << a->problem.layout
       << " --family " << a->family << " --strategy " << a->strategy;
    if (!a->budget.empty()) cl << " --budget " << a->budget;
    cl << " --seed " << a->seed;
    a->command_line = cl.str();
    (void)sub;
    run_search(*a, ctx);
  });
}

}  // namespace gemmtune
