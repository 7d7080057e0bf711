// A worker binary with the production handler set (GPU jobs) plus the tests' fake jobs, for
// tests of a real worker's supervision that must not depend on the full CLI; `gemmtune __worker`
// serves the GPU jobs alone.
#include "tuner/worker/fake_handlers.hpp"
#include "tuner/worker/gpu_handlers.hpp"
#include "tuner/worker/worker_main.hpp"

int main() {
  return gemmtune::worker_main(
      gemmtune::merge_handlers(gemmtune::worker_handlers(), gemmtune::fake_handlers()));
}
