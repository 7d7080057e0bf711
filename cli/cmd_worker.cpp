// `gemmtune __worker` (hidden): the isolated GPU worker process. Started only by the search's
// supervisor, which owns the pipes on fds 3 and 4.
#include "cli/commands.hpp"
#include "tuner/worker/gpu_handlers.hpp"
#include "tuner/worker/worker_main.hpp"

namespace gemmtune {

void setup_worker(CLI::App& app, AppContext&) {
  CLI::App* sub = app.add_subcommand("__worker", "");
  sub->group("");  // hidden from --help
  sub->callback([] {
    command_status() = worker_main(worker_handlers());
  });
}

}  // namespace gemmtune
