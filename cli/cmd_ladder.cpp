// `gemmtune ladder`: the seed ladder's stages measured on this GPU, each against cuBLAS.
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "cli/output.hpp"
#include "cli/run_candidate.hpp"
#include "src/core/error.hpp"
#include "src/core/file_output.hpp"
#include "src/kernels/ladder_presets.hpp"
#include "tuner/search/worker_evaluator.hpp"

namespace gemmtune {
namespace {

struct LadderArgs {
  std::string shape = "4096x4096x4096";
  std::string markdown;
  std::string json_out;
  double timeout_s = 300.0;
  std::uint64_t seed = 1;
};

void run_ladder(LadderArgs const& a, AppContext& ctx) {
  Problem const problem = parse_shape(a.shape).resolved();
  DeviceReport const& dev = ctx.require_gpu();
  TimingSpec timing;
  BaselineResult base = ctx.gpu().baseline(BaselineJob{problem, a.seed, timing, {}, false}, a.timeout_s);
  if (!base.ok) throw Error("cuBLAS baseline failed: " + base.reason);

  TextTable t({"stage", "kernel", "time", "TFLOP/s", "% of cuBLAS", "% of cuBLASLt", "result"});
  nlohmann::json rows = nlohmann::json::array();
  t.add({"0 cuBLAS", "cublasGemmEx (pedantic fp32)", format_ms(base.cublas_ms),
         fixed(problem.flops() / (base.cublas_ms * 1e-3) / 1e12, 2), "100.0", "-", "ok"});
  t.add({"0 cuBLASLt", "best of top-" + std::to_string(base.cublaslt_algos_tried) + " heuristics",
         format_ms(base.cublaslt_ms), fixed(problem.flops() / (base.cublaslt_ms * 1e-3) / 1e12, 2),
         fixed(100.0 * base.cublas_ms / base.cublaslt_ms, 1), "100.0", "ok"});
  bool any_ok = false;
  for (LadderPreset const& stage : ladder_presets()) {
    if (!ctx.options.quiet) std::cerr << "ladder: " << stage.display_name << " " << stage.config.id() << std::endl;
    CandidateRun run = run_candidate(ctx, *stage.family, stage.config, problem, timing, a.seed,
                                     a.timeout_s);
    EvalResult const& r = run.result;
    bool const ok = r.disposition == Disposition::kOk;
    any_ok = any_ok || ok;
    double const tflops = ok ? problem.flops() / (r.median_ms * 1e-3) / 1e12 : 0.0;
    t.add({stage.display_name, stage.config.id(), ok ? format_ms(r.median_ms) : "-",
           ok ? fixed(tflops, 2) : "-", ok ? fixed(100.0 * base.cublas_ms / r.median_ms, 1) : "-",
           ok ? fixed(100.0 * base.cublaslt_ms / r.median_ms, 1) : "-",
           ok ? "ok" : std::string(to_string(r.disposition)) + ": " + r.reason.substr(0, 80)});
    rows.push_back({{"stage", stage.display_name},
                    {"kernel", stage.config.id()},
                    {"disposition", to_string(r.disposition)},
                    {"reason", r.reason},
                    {"time_ms", r.median_ms},
                    {"tflops", tflops},
                    {"registers", r.registers},
                    {"pct_cublas", ok ? 100.0 * base.cublas_ms / r.median_ms : 0.0},
                    {"pct_cublaslt", ok ? 100.0 * base.cublaslt_ms / r.median_ms : 0.0},
                    {"max_err_ratio", r.max_err_ratio}});
  }
  nlohmann::json doc{{"gpu", dev.gpu.describe()},
                     {"driver", dev.driver},
                     {"cuda_runtime", dev.cuda_runtime},
                     {"cublas", dev.cublas},
                     {"gemmtune", gemmtune_version()},
                     {"problem", problem},
                     {"cublas_ms", base.cublas_ms},
                     {"cublaslt_ms", base.cublaslt_ms},
                     {"timing", timing},
                     {"stages", rows}};
  if (ctx.options.json) {
    std::cout << doc.dump(2) << std::endl;
  } else {
    std::cout << "ladder on " << dev.gpu.describe() << ", " << problem.describe() << "\n";
    t.print(std::cout);
  }
  if (!a.markdown.empty()) {
    std::ostringstream md;
    md << "# gemmtune ladder: " << problem.describe() << " on " << dev.gpu.describe() << "\n\n"
       << "Driver " << dev.driver << ", CUDA runtime " << dev.cuda_runtime << ", cuBLAS "
       << dev.cublas << ", gemmtune " << gemmtune_version() << ". Median of " << timing.repeats
       << " repeats of ~" << timing.target_ms << " ms each, inputs rotated past 2x L2; cuBLAS "
       << "and cuBLASLt timed in the same worker with the same protocol.\n\n";
    t.print_markdown(md);
    write_file_safely(a.markdown, md.str(), "the --markdown file");
  }
  if (!a.json_out.empty()) write_file_safely(a.json_out, doc.dump(2) + "\n", "the --json file");
  if (!any_ok) command_status() = 3;
}

}  // namespace

void setup_ladder(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<LadderArgs>();
  CLI::App* sub = app.add_subcommand("ladder", "The seed ladder's stages measured on this GPU against cuBLAS");
  sub->add_option("--shape", a->shape, "Problem shape MxNxK (fp32, NN)")->capture_default_str();
  sub->add_option("--markdown", a->markdown, "Also write the table as Markdown to this file");
  sub->add_option("--json-out", a->json_out, "Also write the figures as JSON to this file");
  sub->add_option("--timeout", a->timeout_s, "Deadline per stage in seconds")
      ->check(finite_in(0.001, 86400.0))
      ->capture_default_str();
  sub->add_option("--seed", a->seed, "Input seed")->check(seed_value())->capture_default_str();
  sub->callback([a, &ctx] { run_ladder(*a, ctx); });
}

}  // namespace gemmtune
