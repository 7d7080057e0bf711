// A worker binary with the production handler set (GPU jobs and fake jobs), for tests that must
// not depend on the full CLI.
#include "tuner/worker/gpu_handlers.hpp"
#include "tuner/worker/worker_main.hpp"

int main() { return gemmtune::worker_main(gemmtune::worker_handlers()); }
