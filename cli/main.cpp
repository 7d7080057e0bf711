// gemmtune's entry point: builds the CLI, runs the chosen subcommand, and maps failures to the
// documented exit codes (0 ok, 1 error, 2 usage, 3 no result).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "cli/app_context.hpp"
#include "cli/build_info.hpp"
#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "cli/output.hpp"
#include "src/core/error.hpp"
#include "src/core/gpu_identity.hpp"
#include "src/core/precision.hpp"

namespace gemmtune {

namespace {


}  // namespace

int& command_status() {
  static int status = 0;
  return status;
}

std::vector<Problem> ProblemOptions::collect() const {
  Precision const p = parse_precision(precision);
  int const a = check_align(align, p);
  if (layout == "all" || layout == "ALL") {
    std::vector<Problem> out;
    for (Layout l : kAllLayouts) {
      for (Problem const& q : collect_problems(shapes, shapes_file, p, l, a)) out.push_back(q);
    }
    return out;
  }
  return collect_problems(shapes, shapes_file, p, parse_layout(layout), a);
}

void add_problem_options(CLI::App& sub, ProblemOptions& opts, bool many) {
  if (many) {
    sub.add_option("--shape", opts.shapes, "Problem shape MxNxK (repeatable)");
    sub.add_option("--shapes-file", opts.shapes_file, "File of shapes, one 'M N K' or MxNxK per line");
  } else {
    sub.add_option("--shape", opts.shapes, "Problem shape MxNxK")->expected(1);
    sub.add_option("--shapes-file", opts.shapes_file, "File of shapes, one 'M N K' or MxNxK per line");
  }
  sub.add_option("--precision", opts.precision, precision_names())->capture_default_str();
  sub.add_option("--layout", opts.layout, "NN, NT, TN, TT (row-major, as torch.matmul) or all")
      ->capture_default_str();
  sub.add_option("--align", opts.align,
                 "Alignment class in bytes of pointers and leading dimensions (0 = packed)")
      ->capture_default_str();
}

}  // namespace gemmtune

int main(int argc, char** argv) {
  using namespace gemmtune;
  AppContext ctx;
  CLI::App app{"gemmtune: autotuner for CUDA GEMM kernels (NVRTC, cuBLAS-checked, SQLite cache)\n"
               "exit codes: 0 ok, 1 error, 2 usage, 3 no result",
               "gemmtune"};
  app.set_version_flag("--version", [] { return version_text(); },
                       "Version, revision, build type, CUDA, NVRTC and cuBLAS versions, archs");
  app.require_subcommand(1);
  // Global options are accepted after the subcommand too (`gemmtune list shapes --db F`):
  // subcommands made after this inherit it.
  app.fallthrough();
  app.add_option("--db", ctx.options.db_path,
                 "Tuning cache file (default $GEMMTUNE_DB, else $XDG_CACHE_HOME/gemmtune/cache.db)")
      ->check(non_empty_text("--db"));
  app.add_option("--cache-dir", ctx.options.cache_dir, "Cubin cache directory");
  CLI::Option* const json = app.add_flag("--json", ctx.options.json, "Results as JSON on stdout");
  app.add_flag("--csv", ctx.options.csv,
               "The result table as CSV on stdout (list, query, replay, space, search --dry-run, "
               "bench; columns in docs/commands.md)")
      ->excludes(json);
  app.add_flag("-q,--quiet", ctx.options.quiet, "No progress on stderr");
  app.add_option("--device", ctx.options.device, "GPU index for the worker")->capture_default_str();
  app.add_option("-j,--jobs", ctx.options.compile_threads, "Compile threads (0 = all cores)")
      ->check(integer_in(0, 1024));

  setup_search(app, ctx);
  setup_query(app, ctx);
  setup_export(app, ctx);
  setup_import(app, ctx);
  setup_check(app, ctx);
  setup_cache_mode(app, ctx);
  setup_emit(app, ctx);
  setup_list(app, ctx);
  setup_show(app, ctx);
  setup_report(app, ctx);
  setup_shapes(app, ctx);
  setup_bench(app, ctx);
  setup_regret(app, ctx);
  setup_space(app, ctx);
  setup_ladder(app, ctx);
  setup_devices(app, ctx);
  setup_worker(app, ctx);
  setup_replay(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (CLI::CallForHelp const& e) {
    return app.exit(e);
  } catch (CLI::CallForAllHelp const& e) {
    return app.exit(e);
  } catch (CLI::CallForVersion const& e) {
    return app.exit(e);
  } catch (CLI::ParseError const& e) {
    // CLI11's own printer adds a second line; keep the one-line contract.
    std::cerr << "gemmtune: " << printable(e.what()) << " (see gemmtune --help)" << std::endl;
    return 2;
  } catch (UsageError const& e) {
    std::cerr << "gemmtune: " << printable(e.what()) << std::endl;
    return 2;
  } catch (Error const& e) {
    std::cerr << "gemmtune: " << printable(e.what()) << std::endl;
    return e.exit_code();
  } catch (std::exception const& e) {
    std::cerr << "gemmtune: " << printable(e.what()) << std::endl;
    return 1;
  }
  // What a command printed must reach its destination: a full disk, a closed stdout or a
  // broken pipe after the fact is an error, never exit 0 with the result lost. (The worker's
  // stdout is the parent's stderr and carries nothing of its answers.)
  if (app.got_subcommand("__worker")) return command_status();
  std::cout.flush();
  bool const lost = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  if (lost) {
    int const e = errno;
    std::cerr << "gemmtune: cannot write the output to standard output"
              << (e != 0 ? std::string(": ") + std::strerror(e) : std::string()) << std::endl;
    return 1;
  }
  return command_status();
}
