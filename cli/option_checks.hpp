// Validators for command-line options. Numbers: CLI11's Range lets NaN through (every comparison
// with NaN is false) and its unsigned parse wraps "-1", so every number an option takes is
// checked here, with the bad value and the expected range in the one-line error; and paths
// that must not be empty.
#pragma once

#include <CLI/CLI.hpp>

namespace gemmtune {

/// A finite number in [lo, hi] (NaN, infinities and values out of range are refused).
CLI::Validator finite_in(double lo, double hi);

/// An integer in [lo, hi] written in decimal digits (with a sign only where lo < 0): no
/// wrapping, no overflow, no fractions.
CLI::Validator integer_in(long long lo, long long hi);

/// A seed: decimal digits of an unsigned 64-bit value (no sign, no wrap past 2^64 − 1).
CLI::Validator seed_value();

/// A non-empty value: an empty path must not quietly mean the default.
CLI::Validator non_empty_text(std::string const& option);

/// The timing options a command that times kernels shares: --timeout (seconds), --target-ms
/// and --repeats, each checked; `what` starts their help ("Timing", "Timing while searching").
void add_timing_options(CLI::App& sub, double& timeout_s, double& target_ms, int& repeats,
                        std::string const& what, std::string const& timeout_help);

}  // namespace gemmtune
