// The subcommands: each setup_* adds one CLI11 subcommand whose callback does the work.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/app_context.hpp"

namespace gemmtune {

void setup_search(CLI::App& app, AppContext& ctx);
void setup_query(CLI::App& app, AppContext& ctx);
void setup_export(CLI::App& app, AppContext& ctx);
void setup_import(CLI::App& app, AppContext& ctx);
void setup_check(CLI::App& app, AppContext& ctx);
void setup_cache_mode(CLI::App& app, AppContext& ctx);
void setup_emit(CLI::App& app, AppContext& ctx);
void setup_list(CLI::App& app, AppContext& ctx);
void setup_show(CLI::App& app, AppContext& ctx);
void setup_report(CLI::App& app, AppContext& ctx);
void setup_bench(CLI::App& app, AppContext& ctx);
void setup_regret(CLI::App& app, AppContext& ctx);
void setup_space(CLI::App& app, AppContext& ctx);
void setup_ladder(CLI::App& app, AppContext& ctx);
void setup_devices(CLI::App& app, AppContext& ctx);
void setup_worker(CLI::App& app, AppContext& ctx);
void setup_replay(CLI::App& app, AppContext& ctx);
void setup_shapes(CLI::App& app, AppContext& ctx);

/// Exit status a subcommand's callback asks for (3 = no result); main returns it.
int& command_status();

/// Shared problem options: --shape (repeatable), --shapes-file, --precision, --layout, --align.
struct ProblemOptions {
  std::vector<std::string> shapes;
  std::string shapes_file;
  std::string precision = "fp32";
  std::string layout = "NN";
  int align = 0;
  std::vector<Problem> collect() const;
};
void add_problem_options(CLI::App& sub, ProblemOptions& opts, bool many);

}  // namespace gemmtune
