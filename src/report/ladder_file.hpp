// A `gemmtune ladder --json-out` file read back for the report: the seed stages of one run,
// checked member by member with errors that name the file and the JSON path.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "src/report/report_data.hpp"

namespace gemmtune {

/// A ladder file is a few kB; far more is not one.
inline constexpr std::uintmax_t kMaxLadderFileBytes = std::uintmax_t{1} << 20;

/// The ladder run in `text`; `source` names it in errors ("<source>: stages[2].time_ms: ...").
ReportLadder parse_ladder_json(std::string_view text, std::string const& source);

/// The ladder run in the file at `path`.
ReportLadder read_ladder_file(std::filesystem::path const& path);

}  // namespace gemmtune
