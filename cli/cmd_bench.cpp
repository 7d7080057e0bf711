// `gemmtune bench`: re-run one kernel (by id, or the cached best; ours or a vendor candidate)
// against cuBLAS and cuBLASLt.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
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
  std::string protocol = "both";
  std::uint64_t seed = 1;
};

/// The --kernel id, checked before any GPU work: a bad id is the user's error, said at once.
KernelConfig given_kernel(BenchArgs const& a) {
  KernelConfig const cfg = parse_kernel_id(a.kernel);
  if (std::string const why = unknown_kernel_reason(cfg); !why.empty()) {
    throw UsageError(why + " in " + cfg.id());
  }
  return canonical_kernel(cfg);
}

/// The kernel to bench for a problem, canonical: --kernel (`given`), or the cached best (a
/// vendor pick included).
KernelConfig kernel_for(std::optional<KernelConfig> const& given, AppContext& ctx,
                        DeviceReport const& dev, Problem const& problem) {
  if (given) return *given;
  std::optional<Trial> best = ctx.store_for_reading().best(dev.gpu, problem);
  if (!best) {
    throw Error("no tuned kernel for " + problem.describe() + " on " + dev.gpu.describe() +
                " in " + ctx.db_path() + "; give --kernel ID or run search first", 3);
  }
  if (std::string const why = unknown_kernel_reason(best->config); !why.empty()) {
    throw Error("the cached best for " + problem.describe() + " is " + best->config.id() +
                    ": " + why,
                3);
  }
  return canonical_kernel(best->config);
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

/// The figures of one timed thing (the kernel, cuBLAS or cuBLASLt) over the rounds of one
/// protocol: the median of the round medians and their spread (min and max round; with one
/// round, the fastest and slowest repeat), and the host cost per call.
struct Figures {
  double median_ms = 0.0, lo_ms = 0.0, hi_ms = 0.0, host_us = 0.0;
  bool present() const { return median_ms > 0.0; }
};

Figures figures(std::vector<double> const& medians, double repeat_min, double repeat_max,
                std::vector<double> const& host_us) {
  Figures f;
  if (medians.empty()) return f;
  f.median_ms = median_of(medians);
  if (medians.size() > 1) {
    f.lo_ms = *std::min_element(medians.begin(), medians.end());
    f.hi_ms = *std::max_element(medians.begin(), medians.end());
  } else {
    f.lo_ms = repeat_min;
    f.hi_ms = repeat_max;
  }
  if (!host_us.empty()) f.host_us = median_of(host_us);
  return f;
}

/// The spread of one figure over its rounds (or repeats), as fractions of its median.
std::string spread_text(Figures const& f) {
  if (!f.present()) return "-";
  return gemmtune::spread_text(f.lo_ms, f.hi_ms, f.median_ms, 1);
}

nlohmann::json figures_json(Figures const& f) {
  if (!f.present()) return nullptr;
  return {{"median_ms", f.median_ms}, {"min_round_ms", f.lo_ms}, {"max_round_ms", f.hi_ms},
          {"host_us_per_call", f.host_us}};
}

/// Everything timed for one problem under one protocol, over the rounds.
struct ProtocolRun {
  std::vector<double> kernel, cublas, cublaslt;
  std::vector<double> kernel_host, cublas_host, cublaslt_host;
  EvalResult last;
  BaselineResult last_base;
  nlohmann::json rounds = nlohmann::json::array();
  Figures kernel_f() const { return figures(kernel, last.min_ms, last.max_ms, kernel_host); }
  Figures cublas_f() const {
    return figures(cublas, last_base.cublas_min_ms, last_base.cublas_max_ms, cublas_host);
  }
  Figures cublaslt_f() const {
    return figures(cublaslt, last_base.cublaslt_min_ms, last_base.cublaslt_max_ms, cublaslt_host);
  }
};

void run_bench(BenchArgs const& a, AppContext& ctx) {
  std::vector<Problem> const problems = a.problem.collect();
  std::optional<KernelConfig> const given =
      a.kernel.empty() ? std::nullopt : std::optional<KernelConfig>(given_kernel(a));
  DeviceReport const& dev = ctx.require_gpu();
  std::vector<TimingProtocol> protocols;
  if (a.protocol == "both") {
    protocols = {TimingProtocol::kGraph, TimingProtocol::kStream};
  } else {
    protocols = {parse_timing_protocol(a.protocol)};
  }
  nlohmann::json out = nlohmann::json::array();
  TextTable t({"problem", "kernel", "result", "protocol", "GPU time", "spread", "TFLOP/s",
               "vs cuBLAS", "vs cuBLASLt", "host µs/call", "err/bound", "registers", "sensors"});
  bool all_ok = true;
  for (Problem const& raw : problems) {
    Problem const problem = raw.resolved();
    KernelConfig const cfg = kernel_for(given, ctx, dev, problem);
    // Rounds alternate cuBLAS and the kernel (B C B C ...), each protocol in turn, so with long
    // repeats both run after the other as often and see the same power and thermal history;
    // the figures are the medians over the rounds, the spread their min and max, the sensors
    // those of the last round.
    std::vector<ProtocolRun> runs(protocols.size());
    bool failed = false;
    for (int round = 0; round < a.rounds && !failed; ++round) {
      for (std::size_t pi = 0; pi < protocols.size() && !failed; ++pi) {
        TimingSpec timing;
        timing.target_ms = a.target_ms;
        timing.repeats = a.repeats;
        timing.protocol = protocols[pi];
        ProtocolRun& run = runs[pi];
        run.last_base = ctx.gpu().baseline(BaselineJob{problem, a.seed, timing, {}, false}, a.timeout_s);
        run.last = run_any_candidate(ctx, cfg, problem, timing, a.seed, a.timeout_s).result;
        run.rounds.push_back({{"baseline", run.last_base}, {"result", run.last}});
        if (run.last_base.ok) {
          run.cublas.push_back(run.last_base.cublas_ms);
          run.cublas_host.push_back(run.last_base.cublas_host_us);
          if (run.last_base.cublaslt_ms > 0.0) {
            run.cublaslt.push_back(run.last_base.cublaslt_ms);
            run.cublaslt_host.push_back(run.last_base.cublaslt_host_us);
          }
        }
        if (run.last.disposition != Disposition::kOk) {
          failed = true;  // a failed kernel is not run again
          break;
        }
        run.kernel.push_back(run.last.median_ms);
        run.kernel_host.push_back(run.last.host_us_per_call);
      }
    }
    nlohmann::json row = {{"gpu", dev.gpu.describe()}, {"problem", problem}, {"kernel", cfg.id()}};
    nlohmann::json by_protocol = nlohmann::json::object();
    for (std::size_t pi = 0; pi < protocols.size(); ++pi) {
      ProtocolRun const& run = runs[pi];
      EvalResult r = run.last;
      bool const ok = r.disposition == Disposition::kOk && !run.kernel.empty();
      if (pi == 0 || !ok) all_ok = all_ok && ok;
      Figures const k = run.kernel_f(), b = run.cublas_f(), lt = run.cublaslt_f();
      double const tflops = ok ? problem.flops() / (k.median_ms * 1e-3) / 1e12 : 0.0;
      std::string const proto(to_string(protocols[pi]));
      // The row's figures are the medians over the rounds (each round stays in "rounds").
      BaselineResult base = run.last_base;
      if (ok) r.median_ms = k.median_ms;
      if (b.present()) base.cublas_ms = b.median_ms;
      if (lt.present()) base.cublaslt_ms = lt.median_ms;
      nlohmann::json entry = {{"result", r},
                              {"kernel", figures_json(k)},
                              {"cublas", figures_json(b)},
                              {"cublaslt", figures_json(lt)},
                              {"tflops", tflops},
                              {"baseline", base}};
      if (a.rounds > 1) entry["rounds"] = run.rounds;
      by_protocol[proto] = std::move(entry);
      if (r.disposition == Disposition::kSkipped && run.rounds.empty()) continue;
      auto us = [](Figures const& f) { return f.host_us > 0.0 ? fixed(f.host_us, 1) : "-"; };
      t.add({pi == 0 ? problem.describe() : "", pi == 0 ? cfg.id() : "",
             ok ? "ok" : std::string(to_string(r.disposition)), proto, format_ms(k.median_ms),
             spread_text(k), ok ? fixed(tflops, 2) : "-", ratio(b.median_ms, k.median_ms),
             ratio(lt.median_ms, k.median_ms), us(k), fixed(r.max_err_ratio, 3),
             std::to_string(r.registers), ok ? sensors_text(r.power) : "-"});
      if (b.present()) {
        t.add({"", "cuBLAS", "ok", proto, format_ms(b.median_ms), spread_text(b),
               fixed(problem.flops() / (b.median_ms * 1e-3) / 1e12, 2), "1.00x", "-", us(b), "-",
               "-", sensors_text(run.last_base.cublas_power)});
      }
      if (lt.present()) {
        t.add({"", "cuBLASLt (best of " + std::to_string(run.last_base.cublaslt_algos_tried) + ")",
               "ok", proto, format_ms(lt.median_ms), spread_text(lt),
               fixed(problem.flops() / (lt.median_ms * 1e-3) / 1e12, 2), "-", "1.00x", us(lt),
               "-", "-", sensors_text(run.last_base.cublaslt_power)});
      }
      if (!ok && !ctx.options.json) {
        std::cerr << "gemmtune: " << problem.describe() << " (" << proto
                  << "): " << to_string(r.disposition) << ": " << r.reason << std::endl;
      }
    }
    // The figure of record (the first protocol) also at the top level of the row.
    std::string const first(to_string(protocols.front()));
    row["result"] = by_protocol[first]["result"];
    row["tflops"] = by_protocol[first]["tflops"];
    row["baseline"] = by_protocol[first]["baseline"];
    row["protocols"] = std::move(by_protocol);
    out.push_back(std::move(row));
  }
  if (ctx.options.json) {
    std::cout << out.dump(2) << std::endl;
  } else {
    prose(ctx.options) << dev.gpu.describe() << "\n";
    t.print(std::cout, table_format(ctx.options));
  }
  if (!all_ok) command_status() = 3;
}

}  // namespace

void setup_bench(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* sub = app.add_subcommand("bench", "Verify and time one kernel (or the cached best) against cuBLAS");
  add_problem_options(*sub, a->problem, true);
  sub->add_option("--kernel", a->kernel,
                  "Kernel id, ours or a vendor candidate (cublas:default, cublaslt:...; default: "
                  "the cached best for the shape)");
  add_timing_options(*sub, a->timeout_s, a->target_ms, a->repeats, "Timing", "Deadline in seconds");
  sub->add_option("--rounds", a->rounds,
                  "Time cuBLAS and the kernel this many times in alternation; report medians "
                  "(with a long --target-ms: the sustained, power-capped regime)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  sub->add_option("--protocol", a->protocol,
                  "graph: GPU time of launches replayed from a CUDA graph (no host launch cost, "
                  "the figure of record); stream: back-to-back launches; both")
      ->check(CLI::IsMember({"graph", "stream", "both"}))
      ->capture_default_str();
  sub->add_option("--seed", a->seed, "Input seed")->check(seed_value())->capture_default_str();
  sub->callback([a, &ctx] { run_bench(*a, ctx); });
}

}  // namespace gemmtune
