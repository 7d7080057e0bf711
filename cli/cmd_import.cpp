// `gemmtune import FILE`: merges a tuning table (JSON) or another cache (SQLite) into the cache,
// after validating all of it; kernels must name a family and values this build knows.
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/kernel_check.hpp"
#include "db/cache_import.hpp"
#include "db/cache_path.hpp"
#include "src/core/error.hpp"
#include "src/core/tuning_table.hpp"

namespace gemmtune {
namespace {

struct ImportArgs {
  std::string file;
};

void run_import(ImportArgs const& a, AppContext& ctx) {
  std::filesystem::path const file = a.file;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw UsageError("cannot import '" + a.file + "': not a readable file (expected a tuning "
                     "table .json from gemmtune export, or a gemmtune cache file)");
  }
  std::filesystem::path const cache = ctx.db_path();
  ImportReport const r = is_sqlite_file(file)
                              ? import_cache(cache, file, check_kernel)
                              : import_table(cache, read_tuning_table(file), a.file, check_kernel);
  if (ctx.options.json) {
    std::cout << nlohmann::json{{"source", r.source},
                                {"kind", r.kind},
                                {"cache", cache.string()},
                                {"search_id", r.search_id},
                                {"offered", r.offered},
                                {"added", r.added},
                                {"duplicates", r.duplicates},
                                {"kept_local", r.kept_local},
                                {"new_best", r.new_best},
                                {"not_best", r.not_best},
                                {"baselines_added", r.baselines_added},
                                {"baselines_duplicate", r.baselines_duplicate},
                                {"ceilings_added", r.ceilings_added},
                                {"ceilings_duplicate", r.ceilings_duplicate}}
                     .dump(2)
              << std::endl;
    return;
  }
  std::cout << "imported " << r.kind << " " << r.source << " into " << cache.string() << ": "
            << r.offered << " trials read, " << r.added << " added (" << r.new_best
            << " now fastest for their problem, " << r.not_best << " slower than a stored trial), "
            << r.duplicates << " already stored, " << r.kept_local
            << " kept as stored (same kernel and provenance, other outcome)";
  if (r.kind == "cache") {
    std::cout << "; baselines: " << r.baselines_added << " added, " << r.baselines_duplicate
              << " already stored";
    if (r.ceilings_added + r.ceilings_duplicate > 0) {
      std::cout << "; device ceilings: " << r.ceilings_added << " added, "
                << r.ceilings_duplicate << " already stored";
    }
  }
  std::cout << std::endl;
}

}  // namespace

void setup_import(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<ImportArgs>();
  CLI::App* sub = app.add_subcommand(
      "import", "Merge a tuning table (JSON) or another cache file into the cache");
  sub->add_option("file", a->file, "Table from gemmtune export, or another gemmtune cache")
      ->required();
  sub->callback([a, &ctx] { run_import(*a, ctx); });
}

}  // namespace gemmtune
