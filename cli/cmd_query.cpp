// `gemmtune query`: the best kernel for a shape from the cache or a table, through the shared
// fallback chain (exact → nearest → GPU default → arch default → none), saying which rule matched.
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/gpu_choice.hpp"
#include "cli/output.hpp"
#include "cli/shape_hint.hpp"
#include "db/sqlite_trial_store.hpp"
#include "src/core/error.hpp"
#include "src/core/table_lookup.hpp"
#include "src/core/tuning_table.hpp"
#include "src/core/vendor_kernel.hpp"
#include "src/kernels/family.hpp"

namespace gemmtune {
namespace {

struct QueryArgs {
  ProblemOptions problem;
  std::string table;
  std::string gpu;
};

void run_query(QueryArgs const& a, AppContext& ctx) {
  std::vector<Problem> problems = a.problem.collect();
  TuningTable table;
  std::string where;
  if (!a.table.empty()) {
    table = read_tuning_table(a.table);
    where = "table " + a.table;
  } else {
    table = ctx.store_for_reading().to_table();
    where = "cache " + ctx.db_path();
  }
  std::vector<GpuIdentity> gpus;
  for (auto const& g : table.gpus) gpus.push_back(g.gpu);
  GpuIdentity const gpu = choose_gpu(gpus, a.gpu, where);
  TableIndex const index(std::move(table));

  nlohmann::json out = nlohmann::json::array();
  TextTable t({"problem", "kernel", "rule", "time", "spread", "TFLOP/s", "vs cuBLAS",
               "vs cuBLASLt", "own vs cuBLAS", "own vs best"});
  bool any = false;
  for (Problem const& raw : problems) {
    Problem const p = raw.resolved();
    // The chain offers only kernels that can run the shape on this GPU's arch (limits from the
    // arch table and the GPU's SM count: the parent never opens the device).
    DeviceLimits limits = arch_limits(gpu.arch()).value_or(DeviceLimits{});
    limits.sm_count = gpu.sm_count;
    LookupResult r = index.lookup(
        gpu, p,
        [&](KernelConfig const& k, Problem const& q) {
          return limits.arch.empty() ? std::string() : runnable_reason(k, q, limits);
        },
        [&](KernelConfig const& k, Problem const& q) {
          return limits.arch.empty() ? 0.0 : wave_cost(k, q, limits);
        });
    nlohmann::json j{{"problem", p},
                     {"gpu", gpu.describe()},
                     {"rule", to_string(r.rule)},
                     {"explanation", r.explanation}};
    std::vector<std::string> row{p.describe(), r.kernel ? r.kernel->id() : "(none: use cuBLAS)",
                                 std::string(to_string(r.rule)), "-", "-", "-", "-", "-", "-",
                                 "-"};
    if (r.kernel) {
      any = true;
      j["kernel"] = r.kernel->id();
      j["vendor"] = is_vendor(*r.kernel);
    }
    if ((r.rule == LookupRule::kNearest || r.rule == LookupRule::kRange) && r.entry_index >= 0) {
      // The figures of another shape would mislead: say where the kernel was measured and
      // what the cost model predicts here.
      TableEntry const& e = index.table().entries[static_cast<std::size_t>(r.entry_index)];
      j["tuned_shape"] = e.problem.shape();
      if (r.range_index >= 0) {
        TableRange const& range = index.table().ranges[static_cast<std::size_t>(r.range_index)];
        for (TableRangeBucket const& b : range.buckets) {
          if (b.m == e.problem.m) j["bucket"] = {{"m_lo", b.m_lo}, {"m_hi", b.m_hi}, {"m", b.m}};
        }
      }
      if (r.predicted_ms > 0) {
        j["predicted_ms"] = r.predicted_ms;
        row[3] = "~" + format_ms(r.predicted_ms);
      }
    } else if (r.entry_index >= 0) {
      TableEntry const& e = index.table().entries[static_cast<std::size_t>(r.entry_index)];
      j["time_ms"] = e.time_ms;
      j["tflops"] = e.tflops;
      j["tuned_shape"] = e.problem.shape();
      if (auto rc = e.ratio_cublas()) j["ratio_cublas"] = *rc;
      if (auto rl = e.ratio_cublaslt()) j["ratio_cublaslt"] = *rl;
      if (e.spread) {
        j["spread"] = {{"lo_ms", e.spread->lo_ms},
                       {"hi_ms", e.spread->hi_ms},
                       {"rounds", e.spread->rounds}};
        row[4] = spread_text(e.spread->lo_ms, e.spread->hi_ms, e.time_ms, e.spread->rounds);
      }
      row[3] = format_ms(e.time_ms);
      row[5] = fixed(e.tflops, 2);
      row[6] = e.ratio_cublas() ? fixed(*e.ratio_cublas(), 2) + "x" : "-";
      row[7] = e.ratio_cublaslt() ? fixed(*e.ratio_cublaslt(), 2) + "x" : "-";
      // A vendor pick is not a win of ours: our best kernel's own figure beside it.
      if (e.own) {
        j["own"] = {{"kernel", e.own->kernel.id()}, {"time_ms", e.own->time_ms}};
        if (auto o = e.own_ratio_cublas()) j["own"]["ratio_cublas"] = *o;
      }
      std::optional<double> const own = e.vendor() ? e.own_ratio_cublas() : e.ratio_cublas();
      row[8] = own ? fixed(*own, 2) + "x" : "-";
      std::optional<double> const own_best = e.own_ratio_best_vendor();
      if (own_best) j["own_ratio_best_vendor"] = *own_best;
      row[9] = own_best ? fixed(*own_best, 2) + "x" : "-";
    }
    if (r.rule != LookupRule::kExact) {
      // Tuned in another precision or layout: say so, as the default precision is fp32.
      std::vector<Problem> held;
      for (TableEntry const& e : index.table().entries) {
        TableGpu const* g = index.table().find_gpu(e.gpu);
        if (g != nullptr && g->gpu == gpu) held.push_back(e.problem);
      }
      if (std::string const hint = other_variants_hint(p, held, "the " + where); !hint.empty()) {
        j["other_variants"] = hint;
        if (!ctx.options.json) std::cerr << p.describe() << ": " << printable(hint) << std::endl;
      }
    }
    out.push_back(j);
    t.add(row);
    if (!ctx.options.json) std::cerr << p.describe() << ": " << printable(r.explanation) << std::endl;
  }
  if (ctx.options.json) {
    std::cout << out.dump(2) << std::endl;
  } else {
    prose(ctx.options) << "from " << printable(where) << ", " << printable(gpu.describe()) << "\n";
    t.print(std::cout, table_format(ctx.options));
  }
  if (!any) command_status() = 3;
}

}  // namespace

void setup_query(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<QueryArgs>();
  CLI::App* sub = app.add_subcommand("query", "Best kernel for a shape, from the cache or a table");
  add_problem_options(*sub, a->problem, true);
  sub->add_option("--table", a->table, "Read this exported table instead of the cache");
  sub->add_option("--gpu", a->gpu, "GPU name (substring; default: the only GPU there)");
  sub->callback([a, &ctx] { run_query(*a, ctx); });
}

}  // namespace gemmtune
