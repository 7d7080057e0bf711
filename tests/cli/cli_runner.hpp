// Runs the gemmtune binary with arguments and captures its exit code, stdout and stderr.
#pragma once

#include <string>
#include <vector>

namespace gemmtune::test {

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs the gemmtune binary (test::gemmtune_binary()) with `args` (no shell), with GEMMTUNE_DB pointing at `db` when given.
CliRun run_cli(std::vector<std::string> const& args, std::string const& db = "");

/// A fresh temporary directory for one test.
std::string temp_dir(std::string const& name);

}  // namespace gemmtune::test
