// reliability_scripted_search DB SHAPE [EVAL_MS] [JOURNAL]: runs one exhaustive scripted search
// (scripted_search.hpp) of SHAPE into the SQLite cache DB and exits 0 when it finished. The
// kill/resume and concurrency tests start it as a child process and SIGKILL it at will.
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "db/sqlite_trial_store.hpp"
#include "src/core/error.hpp"
#include "tests/reliability/scripted_search.hpp"

int main(int argc, char** argv) {
  using namespace gemmtune;
  using namespace gemmtune::reliability;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s DB SHAPE [EVAL_MS] [JOURNAL]\n", argv[0]);
    return 2;
  }
  try {
    double const eval_ms = argc > 3 ? std::atof(argv[3]) : 2.0;
    int const fd = open_journal(argc > 4 ? argv[4] : "");
    SqliteTrialStore sqlite(argv[1]);
    JournalingStore store(sqlite, fd);
    ScriptedGpu gpu(eval_ms, fd);
    ScriptedFamily family;
    SearchOptions o;
    o.problems = {parse_shape(argv[2])};
    o.families = {&family};
    o.strategy = "exhaustive";  // the whole space, in order, whatever `auto` would choose
    o.retime_top = 0;
    o.compile_ahead = 2;
    o.arguments = std::string("scripted ") + argv[2];
    SearchSession session(gpu, store, immediate_compile(), "/nonexistent");
    SearchReport const r = session.run(o);
    if (r.problems.size() != 1 || !r.problems[0].best) return 3;
    std::printf("evaluated %d resumed %d\n", r.problems[0].evaluated, r.problems[0].resumed);
    return 0;
  } catch (std::exception const& e) {
    std::fprintf(stderr, "reliability_scripted_search: %s\n", e.what());
    return 1;
  }
}
