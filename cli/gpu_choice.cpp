// GPU selection for query, export and list.
#include "cli/gpu_choice.hpp"

#include <algorithm>
#include <cctype>

#include "src/core/error.hpp"

namespace gemmtune {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

GpuIdentity choose_gpu(std::vector<GpuIdentity> const& gpus, std::string const& wanted,
                       std::string const& where) {
  std::vector<GpuIdentity> match;
  for (auto const& g : gpus) {
    if (wanted.empty() || lower(g.describe()).find(lower(wanted)) != std::string::npos) {
      match.push_back(g);
    }
  }
  if (match.size() == 1) return match.front();
  std::string choices;
  for (auto const& g : gpus) choices += (choices.empty() ? "" : "; ") + g.describe();
  if (gpus.empty()) throw Error(where + " holds no GPU yet", 3);
  if (match.empty()) {
    throw Error("no GPU matching '" + wanted + "' in " + where + " (it has: " + choices + ")", 3);
  }
  throw Error("several GPUs in " + where + " (" + choices + "): pick one with --gpu NAME", 2);
}

}  // namespace gemmtune
