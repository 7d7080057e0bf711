// Reading the cache into report data: one pass over each tuned problem's trials.
#include "db/report_source.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "src/core/even_sample.hpp"
#include "src/core/vendor_kernel.hpp"

namespace gemmtune {
namespace {

/// Best-so-far of our kernels, search by search, for one problem (trials newest first).
void add_curves(std::vector<Trial> const& trials, Problem const& problem,
                std::map<std::int64_t, std::string> const& arguments,
                std::vector<ReportCurve>& curves) {
  std::map<std::int64_t, std::vector<Trial const*>> by_search;
  for (Trial const& t : trials) {
    if (t.search_id <= 0 || is_vendor(t.config)) continue;
    // An import records its trials under a search of its own; they are not evaluations.
    auto const a = arguments.find(t.search_id);
    if (a != arguments.end() && a->second.rfind("import ", 0) == 0) continue;
    by_search[t.search_id].push_back(&t);
  }
  double optimum = 0.0;
  for (auto const& [id, ts] : by_search) {
    auto const a = arguments.find(id);
    if (a == arguments.end() || a->second.find("exhaustive") == std::string::npos) continue;
    for (Trial const* t : ts) {
      if (t->disposition == Disposition::kOk && (optimum == 0.0 || t->time_ms < optimum)) {
        optimum = t->time_ms;
      }
    }
  }
  for (auto& [id, ts] : by_search) {
    std::sort(ts.begin(), ts.end(), [](Trial const* a, Trial const* b) { return a->id < b->id; });
    ReportCurve c;
    c.search_id = id;
    c.problem = problem;
    c.optimum_ms = optimum;
    double best = 0.0;
    std::int64_t const start = ts.front()->created_at;
    for (Trial const* t : ts) {
      // The re-time's rows are figures of a longer protocol, not evaluations of the search.
      if (t->spread_rounds >= 2) continue;
      if (t->disposition == Disposition::kOk && (best == 0.0 || t->time_ms < best)) best = t->time_ms;
      c.best_ms.push_back(best);
      c.elapsed_s.push_back(static_cast<double>(t->created_at - start));
    }
    if (!c.best_ms.empty() && c.best_ms.back() > 0) curves.push_back(std::move(c));
  }
}

/// One family's configs on one problem, newest trial per config, sampled to `cap` points.
ReportLandscape landscape_of(std::vector<Trial> const& trials, Problem const& problem,
                             std::size_t cap) {
  std::map<std::string, std::size_t> per_family;
  for (Trial const& t : trials) {
    if (!is_vendor(t.config) && t.spread_rounds < 2) ++per_family[t.config.family];
  }
  ReportLandscape l;
  l.problem = problem;
  std::size_t most = 0;
  for (auto const& [f, n] : per_family) {
    if (n > most) {
      most = n;
      l.family = f;
    }
  }
  std::set<std::string> seen;
  std::vector<ReportPoint> ok, failed;
  for (Trial const& t : trials) {  // newest first: the first row of a config is its figure
    if (t.config.family != l.family || t.spread_rounds >= 2 || !seen.insert(t.config.id()).second) {
      continue;
    }
    if (l.params.empty()) {
      for (auto const& [name, value] : t.config.params) l.params.push_back(name);
    }
    ReportPoint p;
    for (auto const& [name, value] : t.config.params) p.params[name] = value;
    p.disposition = t.disposition;
    p.time_ms = t.disposition == Disposition::kOk ? t.time_ms : 0.0;
    (t.disposition == Disposition::kOk ? ok : failed).push_back(std::move(p));
  }
  l.total = static_cast<std::int64_t>(ok.size() + failed.size());
  // Every failure stays (they are what the marks show); the ok configs are evenly spaced.
  std::size_t const room = cap > failed.size() ? cap - failed.size() : 0;
  if (ok.size() > room) {
    std::vector<ReportPoint> kept;
    for (std::size_t i : even_sample(ok.size(), room)) kept.push_back(std::move(ok[i]));
    ok = std::move(kept);
  }
  if (failed.size() > cap) failed.resize(cap);
  l.points = std::move(ok);
  l.points.insert(l.points.end(), failed.begin(), failed.end());
  return l;
}

}  // namespace

ReportData report_from_cache(SqliteTrialStore& store, ReportQuery const& query) {
  ReportData d;
  d.source = store.path().string();
  std::vector<GpuIdentity> const gpus = store.list_gpus();
  if (gpus.empty()) {
    d.title = "gemmtune report";
    d.missing.push_back("the cache holds no trials yet: run `gemmtune search` first");
    d.provenance["report written by gemmtune"] = std::string(gemmtune_version());
    return d;
  }
  GpuIdentity const gpu = gpus.front();
  d.gpu = gpu.name;
  d.title = "gemmtune report: " + gpu.name;
  d.ceilings = with_measured_ceilings(known_ceilings(gpu.name, gpu.sm_count), store.ceilings(gpu));
  for (std::size_t i = 1; i < gpus.size(); ++i) {
    d.missing.push_back("the cache also holds trials of " + gpus[i].describe() +
                        "; this report shows " + gpu.describe() + " only");
  }
  std::map<std::int64_t, std::string> arguments;
  for (SearchRecord const& s : store.searches()) arguments[s.id] = s.arguments;

  std::vector<ReportCurve> curves;
  std::optional<Trial> provenance_of;
  // The landscape's shape: the one asked for, else the one with the most quick figures of ours;
  // its trials are kept and drawn once, after the pass.
  std::vector<Trial> landscape_trials;
  std::optional<Problem> landscape_problem;
  std::size_t landscape_size = 0;
  for (ProblemSummary const& ps : store.list_problems(gpu)) {
    Problem const& p = ps.problem;
    if (!report_wants(query, p)) continue;
    std::vector<Trial> trials = store.trials_for(gpu, p);
    std::optional<Trial> const best = store.best(gpu, p);
    if (best) {
      ReportShape s;
      s.problem = p;
      s.pick_id = best->config.id();
      s.pick_vendor = is_vendor(best->config);
      s.pick_ms = best->time_ms;
      if (best->spread_rounds >= 2) {
        s.pick_lo_ms = best->spread_lo_ms;
        s.pick_hi_ms = best->spread_hi_ms;
      }
      if (std::optional<Trial> const own = store.best_own(gpu, p)) {
        s.own_id = own->config.id();
        s.own_ms = own->time_ms;
      }
      // The ratio of one definition: the baselines timed with the pick (as list and export).
      s.cublas_ms = best->cublas_ms;
      s.cublaslt_ms = best->cublaslt_ms;
      if (s.cublas_ms <= 0 || s.cublaslt_ms <= 0) {
        if (std::optional<BaselineResult> const b = store.find_baseline(gpu, p)) {
          if (s.cublas_ms <= 0) s.cublas_ms = b->cublas_ms;
          if (s.cublaslt_ms <= 0) s.cublaslt_ms = b->cublaslt_ms;
        }
      }
      d.shapes.push_back(std::move(s));
      if (!provenance_of || best->created_at > provenance_of->created_at) provenance_of = best;
    }
    add_curves(trials, p, arguments, curves);
    std::size_t const measured = static_cast<std::size_t>(
        std::count_if(trials.begin(), trials.end(), [](Trial const& t) {
          return !is_vendor(t.config) && t.spread_rounds < 2;
        }));
    bool const wanted = query.landscape ? same_shape(*query.landscape, p) : measured > landscape_size;
    if (wanted && measured > 0) {
      landscape_size = measured;
      landscape_problem = p;
      landscape_trials = std::move(trials);
    }
  }
  d.ranges = report_ranges(d.shapes);
  if (landscape_problem) {
    d.landscape = landscape_of(landscape_trials, *landscape_problem, query.max_landscape_points);
  }
  d.curves_total = static_cast<std::int64_t>(curves.size());
  std::sort(curves.begin(), curves.end(), [](ReportCurve const& a, ReportCurve const& b) {
    return a.search_id != b.search_id ? a.search_id > b.search_id
                                      : a.problem.describe() < b.problem.describe();
  });
  if (curves.size() > query.max_curves) curves.resize(query.max_curves);
  d.curves = std::move(curves);

  if (d.shapes.empty()) d.missing.push_back("no tuned shape of the cache matches the shapes asked for");
  if (query.landscape && !d.landscape) {
    d.missing.push_back("no measured configs for the landscape's shape " +
                        query.landscape->describe());
  }
  if (provenance_of) {
    Provenance const& pv = provenance_of->provenance;
    d.provenance["GPU"] = gpu.describe();
    d.provenance["driver"] = pv.driver;
    d.provenance["CUDA runtime"] = pv.cuda_runtime;
    d.provenance["cuBLAS"] = pv.cublas;
    if (!pv.nvrtc.empty()) d.provenance["NVRTC"] = pv.nvrtc;
    d.provenance["measured by gemmtune"] = pv.gemmtune_version;
  }
  d.provenance["report written by gemmtune"] = std::string(gemmtune_version());
  std::set<std::string> seen;
  for (auto const& [id, args] : arguments) {
    if (!args.empty() && seen.insert(args).second && d.commands.size() < 20) {
      d.commands.push_back("gemmtune " + args);
    }
  }
  return d;
}

}  // namespace gemmtune
