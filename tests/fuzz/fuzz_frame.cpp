// libFuzzer target: check_frame (fuzz_checks.hpp) on every input, the body of one worker frame;
// a finding aborts with its text.
#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/fuzz_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string const finding = gemmtune::fuzz::check_frame(gemmtune::fuzz::as_text(data, size));
  if (!finding.empty()) {
    std::fprintf(stderr, "finding: %s\n", finding.c_str());
    std::abort();
  }
  return 0;
}
