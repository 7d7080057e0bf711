// `gemmtune bench`: re-run one kernel (by id, or the cached best) against cuBLAS and cuBLASLt.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/run_candidate.hpp"
#include "db/sqlite_trial_store.hpp"
#include "src/core/error.hpp"
#include "src/core/median.hpp"
#include "src/kernels/family.hpp"
#include "tuner/search/worker_evaluator.hpp"

namespace gemmtune {
namespace {

struct BenchArgs {
  ProblemOptions problem;
  std::string kernel;
  double timeout_s = 120.0;
  double target_ms = 25.0;
  int repeats = 7;
  int rounds = 1;
  std::uint64_t seed = 1;
};

/// The kernel to bench for a problem: --kernel, or the cached best.
KernelConfig kernel_for(BenchArgs const& a, AppContext& ctx, DeviceReport const& dev,
                        Problem const& problem) {
  if (!a.kernel.empty()) return parse_kernel_id(a.kernel);
  std::optional<Trial> best = ctx.store_for_reading().best(dev.gpu, problem);
  if (!best) {
    throw Error("no tuned kernel for " + problem.describe() + " on " + dev.gpu.describe() +
                " in " + ctx.db_path() + "; give --kernel ID or run search first", 3);
  }
  return best->config;
}

/// The sensors' figures of one timed run in a cell: energy per launch, mean power, SM clock and
/// the clock-event mask when any reason was active; "-" when they were not read.
std::string sensors_text(PowerFigures const& p) {
  if (!p.present()) return "-";
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.2f mJ %.0f W %d MHz", p.energy_mj, p.power_w, p.sm_clock_mhz);
  std::string text = buf;
  if (p.clock_events != 0) {
    std::snprintf(buf, sizeof buf, " ev 0x%llx", static_cast<unsigned long long>(p.clock_events));
    text += buf;
  }
  return text;
}

void run_bench(BenchArgs const& a, AppContext& ctx) {
  std::vector<Problem> const problems = a.problem.collect();
  DeviceReport const& dev = ctx.require_gpu();
  TimingSpec timing;
  timing.target_ms = a.target_ms;
  timing.repeats = a.repeats;
  nlohmann::json out = nlohmann::json::array();
  TextTable t({"problem", "kernel", "result", "time", "TFLOP/s", "vs cuBLAS", "vs cuBLASLt",
               "err/bound", "registers", "sensors"});
  bool all_ok = true;
  for (Problem const& raw : problems) {
    Problem const problem = raw.resolved();
    KernelConfig cfg = kernel_for(a, ctx, dev, problem);
    Family const* family = find_family(cfg.family);
    if (!family) throw UsageError("unknown kernel family '" + cfg.family + "' in " + cfg.id());
    cfg = family->canonical(cfg);
    // Rounds alternate cuBLAS and the kernel (B C B C ...), so with long repeats both run after
    // the other as often and see the same power and thermal history; the figures are the
    // medians over the rounds, the sensors those of the last round.
    nlohmann::json rounds = nlohmann::json::array();
    std::vector<double> cublas_ms, cublaslt_ms, kernel_ms;
    BaselineResult base;
    EvalResult r;
    for (int round = 0; round < a.rounds; ++round) {
      base = ctx.gpu().baseline(BaselineJob{problem, a.seed, timing}, a.timeout_s);
      r = run_candidate(ctx, *family, cfg, problem, timing, a.seed, a.timeout_s).result;
      rounds.push_back({{"baseline", base}, {"result", r}});
      if (base.ok) {
        cublas_ms.push_back(base.cublas_ms);
        if (base.cublaslt_ms > 0.0) cublaslt_ms.push_back(base.cublaslt_ms);
      }
      if (r.disposition != Disposition::kOk) break;  // a failed kernel is not run again
      kernel_ms.push_back(r.median_ms);
    }
    if (!cublas_ms.empty()) {
      base.ok = true;
      base.cublas_ms = median_of(cublas_ms);
      base.cublaslt_ms = median_of(cublaslt_ms);
    }
    bool const ok = r.disposition == Disposition::kOk;
    if (ok) r.median_ms = median_of(kernel_ms);
    all_ok = all_ok && ok;
    double const tflops = ok ? problem.flops() / (r.median_ms * 1e-3) / 1e12 : 0.0;
    nlohmann::json row = {{"gpu", dev.gpu.describe()}, {"problem", problem}, {"kernel", cfg.id()},
                          {"result", r}, {"tflops", tflops}, {"baseline", base}};
    if (a.rounds > 1) row["rounds"] = std::move(rounds);
    out.push_back(std::move(row));
    t.add({problem.describe(), cfg.id(), ok ? "ok" : std::string(to_string(r.disposition)),
           format_ms(r.median_ms), ok ? fixed(tflops, 2) : "-", ratio(base.cublas_ms, r.median_ms),
           ratio(base.cublaslt_ms, r.median_ms), fixed(r.max_err_ratio, 3),
           std::to_string(r.registers), ok ? sensors_text(r.power) : "-"});
    if (base.ok) {
      t.add({"", "cuBLAS", "ok", format_ms(base.cublas_ms),
             fixed(problem.flops() / (base.cublas_ms * 1e-3) / 1e12, 2), "1.00x", "-", "-", "-",
             sensors_text(base.cublas_power)});
      t.add({"", "cuBLASLt (best of " + std::to_string(base.cublaslt_algos_tried) + ")", "ok",
             format_ms(base.cublaslt_ms),
             fixed(problem.flops() / (base.cublaslt_ms * 1e-3) / 1e12, 2), "-", "1.00x", "-", "-",
             sensors_text(base.cublaslt_power)});
    }
    if (!ok && !ctx.options.json) {
      std::cerr << "gemmtune: " << problem.describe() << ": " << to_string(r.disposition) << ": "
                << r.reason << std::endl;
    }
  }
  if (ctx.options.json) {
    std::cout << out.dump(2) << std::endl;
  } else {
    std::cout << dev.gpu.describe() << "\n";
    t.print(std::cout);
  }
  if (!all_ok) command_status() = 3;
}

}  // namespace

void setup_bench(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* sub = app.add_subcommand("bench", "Verify and time one kernel (or the cached best) against cuBLAS");
  add_problem_options(*sub, a->problem, true);
  sub->add_option("--kernel", a->kernel, "Kernel id (default: the cached best for the shape)");
  sub->add_option("--timeout", a->timeout_s, "Deadline in seconds")->capture_default_str();
  sub->add_option("--target-ms", a->target_ms, "Timing: duration of one repeat")->capture_default_str();
  sub->add_option("--repeats", a->repeats, "Timing: repeats")->capture_default_str();
  sub->add_option("--rounds", a->rounds,
                  "Time cuBLAS and the kernel this many times in alternation; report medians "
                  "(with a long --target-ms: the sustained, power-capped regime)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  sub->add_option("--seed", a->seed, "Input seed")->capture_default_str();
  sub->callback([a, &ctx] { run_bench(*a, ctx); });
}

}  // namespace gemmtune
