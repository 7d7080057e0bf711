// A report's data from the tuning cache: picks and own figures as `best` answers them, every
// search's best-so-far, one family's landscape and the provenance of what was measured.
#pragma once

#include "db/sqlite_trial_store.hpp"
#include "src/report/report_data.hpp"

namespace gemmtune {

/// Gathers what `query` asks for from `store` (the first GPU with trials; others are named in
/// `missing`). An empty or partial cache gives data whose `missing` says what is absent.
ReportData report_from_cache(SqliteTrialStore& store, ReportQuery const& query);

}  // namespace gemmtune
