// Where the tuning cache lives: --db, else $GEMMTUNE_DB, else $XDG_CACHE_HOME/gemmtune/cache.db,
// else $HOME/.cache/gemmtune/cache.db; and creating its directory.
#pragma once

#include <filesystem>
#include <optional>

namespace gemmtune {

/// The cache file to use. `db_option` (the CLI's --db) wins over everything; empty environment
/// variables count as unset, and a relative $XDG_CACHE_HOME is ignored (the XDG spec says
/// only absolute paths are valid). Throws Error when no location can be determined.
std::filesystem::path resolve_cache_path(
    std::optional<std::filesystem::path> const& db_option = std::nullopt);

/// Creates the missing parent directories of a cache file, private to the user (0700), since
/// rows in the cache become kernels that run. Throws Error naming the directory on failure.
void create_cache_parent(std::filesystem::path const& db_file);

}  // namespace gemmtune
