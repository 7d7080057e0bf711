// `gemmtune regret`: what the table's M buckets cost (issue "Tune a model"). For M drawn
// log-uniformly inside a range of one layer, it times the table's pick for that M against the
// picks of the range's bucket points near that M and against the vendor (cuBLAS default and
// cuBLASLt autotuned), all verified, and reports the regret of the pick: its time over the best
// there.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/gpu_choice.hpp"
#include "cli/option_checks.hpp"
#include "cli/output.hpp"
#include "cli/run_candidate.hpp"
#include "db/sqlite_trial_store.hpp"
#include "src/core/error.hpp"
#include "src/core/fixed_text.hpp"
#include "src/core/precision.hpp"
#include "src/core/table_lookup.hpp"
#include "src/core/tuning_table.hpp"
#include "src/core/vendor_kernel.hpp"
#include "src/kernels/family.hpp"
#include "tuner/shapes/shape_sweep.hpp"
#include "tuner/search/worker_evaluator.hpp"

namespace gemmtune {
namespace {

struct RegretArgs {
  std::string shape;
  std::string precision = "bf16";
  std::string layout = "NT";
  std::string table;
  int samples = 64;
  std::uint64_t seed = 1;
  double target_ms = 5.0;
  int repeats = 5;
  double timeout_s = 120.0;
};

/// How far in M (as a ratio) a bucket point's pick counts as a candidate at a sampled M.
constexpr double kRegretReach = 4.0;

/// The q-quantile (0 ≤ q ≤ 1) of `v`, by the nearest rank.
double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  auto const rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

void run_regret(RegretArgs const& a, AppContext& ctx) {
  RangeShape range;
  if (!parse_range_shape(a.shape, range)) {
    throw UsageError("bad --shape '" + a.shape + "': regret takes an M range, A-BxNxK");
  }
  Precision const precision = parse_precision(a.precision);
  Layout const layout = parse_layout(a.layout);
  TuningTable table = a.table.empty() ? ctx.store_for_reading().to_table()
                                      : read_tuning_table(a.table);
  std::string const where = a.table.empty() ? "cache " + ctx.db_path() : "table " + a.table;
  DeviceReport const& dev = ctx.require_gpu();
  // The candidates: every kernel a range of this layer names on this GPU, with the M of the
  // bucket points that pick it.
  std::set<std::string> kernels;
  std::vector<std::pair<std::int64_t, std::string>> kernel_at;  // (bucket point's M, kernel)
  int gpu_id = -1;
  for (TableGpu const& g : table.gpus) {
    if (g.gpu == dev.gpu) gpu_id = g.id;
  }
  std::set<std::pair<int, std::int64_t>> bucket_points;  // (align, M) the buckets name
  for (TableRange const& r : table.ranges) {
    if (r.gpu != gpu_id || r.n != range.n || r.k != range.k || r.precision != precision ||
        r.layout != layout) {
      continue;
    }
    for (TableRangeBucket const& b : r.buckets) bucket_points.insert({r.align, b.m});
  }
  for (TableEntry const& e : table.entries) {
    if (e.gpu == gpu_id && e.problem.n == range.n && e.problem.k == range.k &&
        e.problem.precision == precision && e.problem.layout == layout &&
        bucket_points.count({e.problem.align, e.problem.m})) {
      kernels.insert(e.kernel.id());
      kernel_at.emplace_back(e.problem.m, e.kernel.id());
    }
  }
  if (kernels.empty()) {
    throw Error("no M range of " + std::to_string(range.n) + "x" + std::to_string(range.k) + " " +
                    a.precision + " " + a.layout + " on " + dev.gpu.describe() + " in " + where +
                    "; run search --shape A-Bx" + std::to_string(range.n) + "x" +
                    std::to_string(range.k) + " and export first",
                3);
  }
  TableIndex const index(std::move(table));

  // M log-uniform in [A, B], seeded; a repeated M is timed once.
  std::mt19937_64 rng(a.seed);
  std::uniform_real_distribution<double> u(std::log(static_cast<double>(range.m_lo)),
                                           std::log(static_cast<double>(range.m_hi)));
  std::set<std::int64_t> ms;
  for (int i = 0; i < a.samples; ++i) {
    auto const m = static_cast<std::int64_t>(std::llround(std::exp(u(rng))));
    ms.insert(std::clamp(m, range.m_lo, range.m_hi));
  }
  TimingSpec timing;
  timing.target_ms = a.target_ms;
  timing.repeats = a.repeats;
  timing.protocol = TimingProtocol::kGraph;

  std::vector<double> regrets, vs_vendor;
  // The M below 0.99× the vendor, by what the bucket ran there: a vendor call carried from a
  // neighbouring point, or one of our kernels (they call for different fixes).
  std::size_t below_vendor_picks = 0, below_own_picks = 0;
  nlohmann::json rows = nlohmann::json::array();
  TextTable t({"M", "pick", "rule", "pick ms", "best", "best ms", "regret", "vs vendor"});
  for (std::int64_t const m : ms) {
    Problem p;
    p.m = m;
    p.n = range.n;
    p.k = range.k;
    p.precision = precision;
    p.layout = layout;
    p = p.resolved();
    LookupResult const pick = index.lookup(dev.gpu, p, [&](KernelConfig const& k, Problem const& q) {
      return runnable_reason(k, q, dev.limits);
    });
    std::map<std::string, double> times;  // verified kernels at this M
    std::map<std::string, std::string> failed;
    // The candidates at M: the picks of the bucket points within kRegretReach of it in M (the
    // fastest kernel at M is one of its neighbours' picks: a point's pick won among everything
    // searched there), the table's pick and the vendor. Timing every kernel of the range at
    // every M made a 256-sample run of a 38-point range take longer than its search.
    std::set<std::string> near{pick.kernel ? pick.kernel->id() : std::string("cublas:default")};
    for (auto const& [at, id] : kernel_at) {
      double const ratio = static_cast<double>(std::max(at, m)) / static_cast<double>(std::min(at, m));
      if (ratio <= kRegretReach) near.insert(id);
    }
    if (!ctx.options.quiet) {
      std::cerr << "regret: M=" << m << " (" << rows.size() + 1 << " of " << ms.size() << "), "
                << near.size() << " candidates and the vendor" << std::endl;
    }
    for (std::string const& id : near) {
      KernelConfig const cfg = parse_kernel_id(id);
      EvalResult const r = run_any_candidate(ctx, cfg, p, timing, a.seed, a.timeout_s).result;
      if (r.disposition == Disposition::kOk && r.median_ms > 0) times[id] = r.median_ms;
      else failed[id] = std::string(to_string(r.disposition));
    }
    BaselineResult const base =
        ctx.gpu().baseline(BaselineJob{p, a.seed, timing, {}, true}, a.timeout_s * 4);
    double vendor = 0.0;
    if (base.cublas_verdict == Disposition::kOk && base.cublas_ms > 0) {
      times["cublas:default"] = base.cublas_ms;
      vendor = base.cublas_ms;
    }
    if (base.cublaslt_verdict == Disposition::kOk && base.cublaslt_ms > 0) {
      // The autotuned algorithm may also be a bucket's pick, timed above: the faster figure.
      auto [it, fresh] = times.emplace(base.cublaslt_kernel, base.cublaslt_ms);
      if (!fresh) it->second = std::min(it->second, base.cublaslt_ms);
      vendor = vendor > 0 ? std::min(vendor, base.cublaslt_ms) : base.cublaslt_ms;
    }
    std::string const pick_id = pick.kernel ? pick.kernel->id() : "cublas:default";
    auto const best = std::min_element(times.begin(), times.end(),
                                       [](auto const& x, auto const& y) { return x.second < y.second; });
    auto const mine = times.find(pick_id);
    nlohmann::json row{{"m", m}, {"pick", pick_id}, {"rule", to_string(pick.rule)}};
    if (mine == times.end() || best == times.end()) {
      row["error"] = "the pick did not verify here: " +
                     (failed.count(pick_id) ? failed[pick_id] : std::string("not timed"));
      t.add({std::to_string(m), pick_id, std::string(to_string(pick.rule)), "-", "-", "-", "-", "-"});
    } else {
      double const regret = mine->second / best->second - 1.0;
      regrets.push_back(regret);
      row["pick_ms"] = mine->second;
      row["best"] = best->first;
      row["best_ms"] = best->second;
      row["regret"] = regret;
      if (vendor > 0) {
        vs_vendor.push_back(vendor / mine->second);
        row["vs_vendor"] = vendor / mine->second;
        if (vendor / mine->second < 0.99) {
          ++(pick.kernel && !is_vendor(*pick.kernel) ? below_own_picks : below_vendor_picks);
        }
      }
      t.add({std::to_string(m), pick_id, std::string(to_string(pick.rule)),
             format_ms(mine->second), best->first, format_ms(best->second),
             fixed(100.0 * regret, 1) + "%", vendor > 0 ? fixed(vendor / mine->second, 3) : "-"});
    }
    row["times"] = times;
    if (!failed.empty()) row["failed"] = failed;
    rows.push_back(std::move(row));
  }
  std::size_t const at_vendor = static_cast<std::size_t>(
      std::count_if(vs_vendor.begin(), vs_vendor.end(), [](double v) { return v >= 0.99; }));
  nlohmann::json summary{{"shape", a.shape},
                         {"precision", a.precision},
                         {"layout", a.layout},
                         {"gpu", dev.gpu.describe()},
                         {"source", where},
                         {"samples", a.samples},
                         {"distinct_m", ms.size()},
                         {"measured", regrets.size()},
                         {"candidates", kernels},
                         {"reach", kRegretReach},
                         {"median_regret", quantile(regrets, 0.5)},
                         {"p95_regret", quantile(regrets, 0.95)},
                         {"at_least_099_vendor", at_vendor},
                         {"below_099_vendor_picks", below_vendor_picks},
                         {"below_099_own_picks", below_own_picks},
                         {"rows", rows}};
  if (ctx.options.json) {
    std::cout << summary.dump(2) << std::endl;
  } else {
    t.print(std::cout, table_format(ctx.options));
    std::cout << "regret over " << regrets.size() << " M in [" << range.m_lo << ", "
              << range.m_hi << "]: median " << fixed(100.0 * quantile(regrets, 0.5), 2)
              << "%, P95 " << fixed(100.0 * quantile(regrets, 0.95), 2) << "%; pick ≥ 0.99× the "
              << "vendor at " << at_vendor << " of " << vs_vendor.size();
    if (below_vendor_picks + below_own_picks > 0) {
      std::cout << " (below it: " << below_vendor_picks << " vendor picks, " << below_own_picks
                << " of our kernels)";
    }
    std::cout << std::endl;
  }
  if (regrets.size() != ms.size()) command_status() = 3;
}

}  // namespace

void setup_regret(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<RegretArgs>();
  CLI::App* sub = app.add_subcommand(
      "regret", "What a table's M buckets cost: the pick against every bucket kernel and the "
                "vendor at M drawn inside a range");
  sub->add_option("--shape", a->shape, "The layer's M range, A-BxNxK")->required();
  sub->add_option("--precision", a->precision, precision_names())->capture_default_str();
  sub->add_option("--layout", a->layout, "NN, NT, TN or TT")->capture_default_str();
  sub->add_option("--table", a->table, "Read this exported table instead of the cache");
  sub->add_option("--samples", a->samples, "M drawn log-uniformly in the range")
      ->check(integer_in(1, 4096))
      ->capture_default_str();
  sub->add_option("--seed", a->seed, "Seed of the M draw and the inputs")
      ->check(seed_value())
      ->capture_default_str();
  add_timing_options(*sub, a->timeout_s, a->target_ms, a->repeats, "Timing",
                     "Deadline of one timing in seconds");
  sub->callback([a, &ctx] { run_regret(*a, ctx); });
}

}  // namespace gemmtune
