// `gemmtune export`: the versioned JSON tuning table for deployment.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/gpu_choice.hpp"
#include "db/sqlite_trial_store.hpp"
#include "src/core/error.hpp"
#include "src/core/tuning_table.hpp"

namespace gemmtune {
namespace {

struct ExportArgs {
  std::string out;
  std::string gpu;
  std::string precision;
  std::string layout;
  bool own_only = false;
};

void run_export(ExportArgs const& a, AppContext& ctx) {
  SqliteTrialStore& store = ctx.store_for_reading();
  TableFilter filter;
  if (!a.gpu.empty()) filter.gpu = choose_gpu(store.list_gpus(), a.gpu, "cache " + ctx.db_path());
  if (!a.precision.empty()) filter.precision = parse_precision(a.precision);
  if (!a.layout.empty()) filter.layout = parse_layout(a.layout);
  filter.own_only = a.own_only;
  TuningTable const table = store.to_table(filter);
  if (a.out.empty() || a.out == "-") {
    std::cout << format_tuning_table(table);
  } else {
    write_tuning_table(table, a.out);
    std::size_t vendor = 0;
    for (TableEntry const& e : table.entries) vendor += e.vendor() ? 1 : 0;
    std::cerr << "wrote " << table.entries.size() << " entries (" << vendor
              << " of them vendor picks) and " << table.defaults.size() << " defaults for "
              << table.gpus.size() << " GPU(s) to " << a.out << std::endl;
  }
  if (table.entries.empty()) command_status() = 3;
}

}  // namespace

void setup_export(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<ExportArgs>();
  CLI::App* sub = app.add_subcommand("export", "Write the tuning table (JSON) for deployment");
  sub->add_option("--out,-o", a->out, "Output file ('-' or none: stdout)");
  sub->add_option("--gpu", a->gpu, "Only this GPU (substring of its name)");
  sub->add_option("--precision", a->precision, "Only this precision");
  sub->add_option("--layout", a->layout, "Only this layout");
  sub->add_flag("--own-only", a->own_only,
                "Pick among gemmtune's own kernels only (vendor picks left out), to study them");
  sub->callback([a, &ctx] { run_export(*a, ctx); });
}

}  // namespace gemmtune
