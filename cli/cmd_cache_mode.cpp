// `gemmtune cache-mode [shared|private]`: how the cache is meant to be used. Private (the
// default) writes ahead to a log, which every reader needs beside the file; shared uses a
// rollback journal and group permissions, so a team's cache in a common directory, or one
// baked read-only into an image, is read by anyone without files left behind.
#include <filesystem>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "db/cache_sharing.hpp"
#include "src/core/error.hpp"

namespace gemmtune {
namespace {

struct CacheModeArgs {
  std::string mode;  ///< "" = report only
};

char const* mode_name(CacheJournal j) {
  switch (j) {
    case CacheJournal::kWal: return "private";
    case CacheJournal::kRollback: return "shared";
    case CacheJournal::kUnknown: break;
  }
  return "unknown";
}

void run_cache_mode(CacheModeArgs const& a, AppContext& ctx) {
  std::filesystem::path const path = ctx.db_path();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw Error("no tuning cache at " + path.string() + " (run gemmtune search first, or pass --db)", 3);
  }
  if (!a.mode.empty()) set_cache_shared(path, a.mode == "shared");
  CacheJournal const j = cache_journal(path);
  if (j == CacheJournal::kUnknown) {
    throw Error("'" + path.string() + "' is not a gemmtune cache (no SQLite header); use --db to pick another file");
  }
  if (ctx.options.json) {
    std::cout << nlohmann::json{{"cache", path.string()}, {"mode", mode_name(j)}}.dump(2) << std::endl;
    return;
  }
  std::cout << printable(path.string()) << ": " << mode_name(j);
  if (j == CacheJournal::kRollback) {
    std::cout << " (rollback journal; readers write nothing beside it; writers need write "
                 "permission on the file, which its group has, and on its directory, for the "
                 "journal)";
  } else {
    std::cout << " (write-ahead log, for one user; readers who cannot write beside it read it "
                 "as of the last finished write; gemmtune cache-mode shared for a cache several "
                 "users share)";
  }
  std::cout << std::endl;
}

}  // namespace

void setup_cache_mode(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<CacheModeArgs>();
  CLI::App* sub = app.add_subcommand(
      "cache-mode", "Show or set how the cache is shared: private (one user) or shared (several)");
  sub->add_option("mode", a->mode, "shared or private; omitted: show the current mode")
      ->check(CLI::IsMember({"shared", "private"}));
  sub->callback([a, &ctx] { run_cache_mode(*a, ctx); });
}

}  // namespace gemmtune
