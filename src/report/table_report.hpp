// A report's data from an exported tuning table: the picks, own figures and vendor figures it
// records. A table holds no searches or landscapes; the report says so.
#pragma once

#include <string>

#include "src/core/tuning_table.hpp"
#include "src/report/report_data.hpp"

namespace gemmtune {

/// The shapes of `table` that `query` asks for, with the sections a table cannot fill listed
/// in `missing`. `source` names the file on the page.
ReportData report_from_table(TuningTable const& table, ReportQuery const& query,
                             std::string const& source);

}  // namespace gemmtune
