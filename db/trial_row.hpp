// The one INSERT of a trial row, shared by the store and the importer, so the column list and
// its binding cannot drift apart; and the column groups (problem, GPU, provenance) every reader
// of the cache reads alike.
#pragma once

#include <cstdint>
#include <string_view>

#include "db/sqlite_handle.hpp"
#include "src/core/trial.hpp"

namespace gemmtune {

/// INSERT INTO trials with parameters ?1..?31 in the order bind_trial_row() binds them.
extern char const* const kInsertTrialSql;

/// Where a trial row points besides the trial itself.
struct TrialRowKeys {
  std::int64_t search_id = 0;  ///< 0 binds NULL
  std::int64_t gpu_id = 0;
  std::int64_t provenance_id = 0;
  std::int64_t attempt = 1;
  std::int64_t created_at = 0; ///< used when the trial has none
};

/// The problem of a row from six columns starting at `first`: m, n, k, precision, layout,
/// align (the schema's CHECK constraints hold precision and layout to known names).
Problem read_problem(Statement const& s, int first);

/// The GPU of a row from four columns starting at `first`: name, cc_major, cc_minor, sm_count.
GpuIdentity read_gpu(Statement const& s, int first);

/// The provenance of a row from seven columns starting at `first`: driver, cuda_runtime,
/// nvrtc, cublas, gemmtune_version, template_hash, compile_options.
Provenance read_provenance(Statement const& s, int first);

/// Binds every column of `trial` to `s` (prepared from kInsertTrialSql); the caller runs it.
void bind_trial_row(Statement& s, Trial const& trial, std::string_view kernel_id,
                    TrialRowKeys const& keys);

}  // namespace gemmtune
