// Error type for environment and input failures (bad text, bad file, no device).
// Candidate failures are never exceptions: they are Dispositions (disposition.hpp).
#pragma once

#include <stdexcept>
#include <string>

namespace gemmtune {

/// What went wrong outside a candidate: bad user input, a missing device, an unreadable file.
/// `exit_code` follows the CLI contract (1 error, 2 usage, 3 no result).
class Error : public std::runtime_error {
 public:
  explicit Error(std::string const& what, int exit_code = 1)
      : std::runtime_error(what), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

/// Bad text given by a user (shape, precision, kernel id, budget): exit code 2.
class UsageError : public Error {
 public:
  explicit UsageError(std::string const& what) : Error(what, 2) {}
};

}  // namespace gemmtune
