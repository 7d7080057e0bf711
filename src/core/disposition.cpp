// Text forms of Disposition.
#include "src/core/disposition.hpp"

#include <string>

#include "src/core/error.hpp"

namespace gemmtune {
namespace {

struct Entry {
  Disposition d;
  std::string_view text;
};

constexpr Entry kEntries[] = {
    {Disposition::kOk, "ok"},
    {Disposition::kRejected, "rejected"},
    {Disposition::kCompileError, "compile_error"},
    {Disposition::kLaunchError, "launch_error"},
    {Disposition::kFault, "fault"},
    {Disposition::kTimeout, "timeout"},
    {Disposition::kCrash, "crash"},
    {Disposition::kWrongResult, "wrong_result"},
    {Disposition::kSkipped, "skipped"},
};

}  // namespace

std::string_view to_string(Disposition d) {
  for (auto const& e : kEntries) {
    if (e.d == d) return e.text;
  }
  return "?";
}

Disposition parse_disposition(std::string_view text) {
  for (auto const& e : kEntries) {
    if (e.text == text) return e.d;
  }
  throw Error("unknown disposition '" + std::string(text) +
              "': expected ok, rejected, compile_error, launch_error, fault, timeout, crash, "
              "wrong_result or skipped");
}

}  // namespace gemmtune
