// `gemmtune devices`: the GPU the worker sees, its limits and the library versions; with
// --ceilings, the device's roofline ceilings measured and stored in the cache.
#include <algorithm>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "cli/output.hpp"
#include "db/sqlite_trial_store.hpp"
#include "src/core/error.hpp"
#include "src/nvrtc/compiler.hpp"
#include "tuner/search/worker_evaluator.hpp"

namespace gemmtune {
namespace {

struct DevicesArgs {
  bool ceilings = false;
  std::int64_t ceiling_size = 8192;  ///< M = N = K of the compute ceilings' GEMMs
  double timeout_s = 600.0;
};

void print_device(DeviceReport const& d, AppContext& ctx) {
  if (ctx.options.json) {
    nlohmann::json j = d;
    j["nvrtc"] = nvrtc_version();
    j["gemmtune"] = gemmtune_version();
    j["db"] = ctx.db_path();
    std::cout << j.dump(2) << std::endl;
  } else if (d.present) {
    TextTable t({"device", "gpu", "arch", "SMs", "smem/block", "L2", "memory", "driver",
                 "runtime", "cuBLAS", "NVRTC"});
    t.add({std::to_string(ctx.options.device), d.gpu.name, d.limits.arch,
           std::to_string(d.gpu.sm_count),
           std::to_string(d.limits.max_smem_per_block_optin / 1024) + " KiB",
           std::to_string(d.limits.l2_bytes / (1024 * 1024)) + " MiB",
           std::to_string(d.memory_bytes / (1024LL * 1024 * 1024)) + " GiB", d.driver,
           d.cuda_runtime, d.cublas, nvrtc_version()});
    t.print(std::cout);
  }
}

/// The copy's size: far past L2 so the figure is DRAM's, and at most an eighth of the memory
/// (two buffers of it leave room for whatever else runs).
std::int64_t copy_bytes(DeviceReport const& d) {
  std::int64_t bytes = std::max<std::int64_t>(std::int64_t{1} << 30, 16 * d.limits.l2_bytes);
  if (d.memory_bytes > 0) bytes = std::min<std::int64_t>(bytes, d.memory_bytes / 8);
  return bytes / 4096 * 4096;
}

/// Measures and stores the roofline's ceilings: the copy bandwidth, and per precision the rate
/// of the faster of cuBLAS and cuBLASLt-autotuned on one large square problem (what a tuned
/// library sustains on this board, not the datasheet's peak).
void measure_ceilings(DevicesArgs const& a, DeviceReport const& d, AppContext& ctx) {
  Provenance const prov = vendor_provenance(d);
  SqliteTrialStore& store = ctx.store();
  TextTable t({"ceiling", "value", "how"});
  nlohmann::json rows = nlohmann::json::array();
  int failed = 0;
  auto keep = [&](DeviceCeiling c, std::string const& what, std::string const& value) {
    store.record_ceiling(d.gpu, prov, c);
    t.add({what, value, c.method});
    rows.push_back({{"ceiling", what}, {"value", c.value}, {"method", c.method}});
  };
  auto fail = [&](std::string const& what, std::string const& why) {
    ++failed;
    t.add({what, "-", "failed: " + why});
    rows.push_back({{"ceiling", what}, {"error", why}});
  };

  if (!ctx.options.quiet) std::cerr << "ceilings: copy bandwidth" << std::endl;
  CopyJob copy;
  copy.bytes = copy_bytes(d);
  CopyResult const c = ctx.gpu().copy_bandwidth(copy, a.timeout_s);
  if (c.ok) {
    keep({std::nullopt, c.gbps(),
          "device-to-device copy of " + std::to_string(c.bytes >> 20) + " MiB, reads and writes "
          "counted, median of " + std::to_string(copy.timing.repeats) + " repeats (" +
          std::string(to_string(c.protocol)) + " protocol)", 0},
         "copy", fixed(c.gbps(), 0) + " GB/s");
  } else {
    fail("copy", c.reason);
  }
  int const cc = d.gpu.cc_major * 10 + d.gpu.cc_minor;
  for (Precision p : kAllPrecisions) {
    std::string const name(to_string(p));
    if (is_fp8(p) && cc < 89) continue;  // no FP8 tensor cores before sm_89
    Problem problem{a.ceiling_size, a.ceiling_size, a.ceiling_size, p,
                    is_fp8(p) ? Layout::kNT : Layout::kNN};
    problem = problem.resolved();
    if (!ctx.options.quiet) std::cerr << "ceilings: " << problem.describe() << std::endl;
    BaselineResult const b =
        ctx.gpu().baseline(BaselineJob{problem, 1, TimingSpec{}, {}, false}, a.timeout_s);
    double const best_ms = fastest_vendor_ms(b);
    if (best_ms <= 0) {
      fail(name, b.reason.empty() ? "cuBLAS timed nothing" : b.reason);
      continue;
    }
    double const tflops = problem.flops() / (best_ms * 1e-3) / 1e12;
    bool const lt = b.cublaslt_ms > 0 && b.cublaslt_ms == best_ms;
    keep({p, tflops,
          "the faster of cuBLAS and cuBLASLt-autotuned at " + problem.shape() + " " +
              std::string(to_string(problem.layout)) + " (" + (lt ? "cuBLASLt" : "cuBLAS") + ", " +
              fixed(best_ms * 1e3, 1) + " µs, " + std::string(to_string(b.protocol)) +
              " protocol)",
          0},
         name, fixed(tflops, 1) + " TFLOP/s");
  }
  if (ctx.options.json) {
    nlohmann::json const doc{{"gpu", d.gpu.describe()}, {"db", ctx.db_path()}, {"ceilings", rows}};
    std::cout << doc.dump(2) << std::endl;
  } else {
    std::cout << "ceilings of " << d.gpu.describe() << ", stored in " << ctx.db_path() << "\n";
    t.print(std::cout);
  }
  if (failed > 0) command_status() = 3;
}

}  // namespace

void setup_devices(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<DevicesArgs>();
  CLI::App* sub = app.add_subcommand("devices", "The local GPU, its limits and library versions");
  sub->alias("info");
  sub->add_flag("--ceilings", a->ceilings,
                "Also measure the roofline's ceilings (copy bandwidth; the vendor's rate per "
                "precision at --ceiling-size cubed) and store them in the cache for `report`");
  sub->add_option("--ceiling-size", a->ceiling_size, "M = N = K of the compute ceilings' GEMMs")
      ->check(CLI::Range(std::int64_t{256}, std::int64_t{32768}))
      ->capture_default_str();
  sub->add_option("--timeout", a->timeout_s, "Deadline per measurement in seconds")
      ->check(finite_in(1.0, 86400.0))
      ->capture_default_str();
  sub->callback([a, &ctx] {
    DeviceReport d = ctx.gpu().device();
    if (!(a->ceilings && ctx.options.json)) print_device(d, ctx);
    if (!d.present) {
      // No GPU is an error, as for every command that needs one (README: exit codes).
      std::cerr << "gemmtune: no GPU available: " << d.reason << std::endl;
      command_status() = 1;
      return;
    }
    if (a->ceilings) measure_ceilings(*a, d, ctx);
  });
}

}  // namespace gemmtune
