// `gemmtune devices`: the GPU the worker sees, its limits and the library versions.
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "src/nvrtc/compiler.hpp"
#include "tuner/search/worker_evaluator.hpp"

namespace gemmtune {

void setup_devices(CLI::App& app, AppContext& ctx) {
  CLI::App* sub = app.add_subcommand("devices", "The local GPU, its limits and library versions");
  sub->alias("info");
  sub->callback([&ctx] {
    DeviceReport d = ctx.gpu().device();
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
             std::to_string(d.gpu.sm_count), std::to_string(d.limits.max_smem_per_block_optin / 1024) + " KiB",
             std::to_string(d.limits.l2_bytes / (1024 * 1024)) + " MiB",
             std::to_string(d.memory_bytes / (1024LL * 1024 * 1024)) + " GiB", d.driver,
             d.cuda_runtime, d.cublas, nvrtc_version()});
      t.print(std::cout);
    }
    if (!d.present) {
      // No GPU is an error, as for every command that needs one (README: exit codes).
      std::cerr << "gemmtune: no GPU available: " << d.reason << std::endl;
      command_status() = 1;
    }
  });
}

}  // namespace gemmtune
