// JSON and table-row forms of stored trials, for list and show.
#pragma once

#include <nlohmann/json.hpp>

#include "cli/output.hpp"
#include "src/core/trial.hpp"

namespace gemmtune {

/// Every field of a trial, for --json output.
nlohmann::json trial_to_json(Trial const& t);
/// Columns: id, gpu, problem, kernel, disposition, time, TFLOP/s, vs cuBLAS, vs cuBLASLt, regs, reason.
TextTable trial_table();
void add_trial_row(TextTable& table, Trial const& t);

}  // namespace gemmtune
