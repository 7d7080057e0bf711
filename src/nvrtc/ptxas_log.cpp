// Line-by-line parser for ptxas -v output. ptxas prints a "Function properties for X" block for
// non-inlined device functions too, so stack and spill lines are attributed to the function
// the nearest preceding properties line names, not blindly to the current entry.
#include "src/nvrtc/ptxas_log.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace gemmtune {
namespace {

/// The integer immediately before `label` in `line` (e.g. "32" in "Used 32 registers"), or -1.
int number_before(std::string_view line, std::string_view label) {
  std::size_t const at = line.find(label);
  if (at == std::string_view::npos) return -1;
  std::size_t end = at;
  while (end > 0 && line[end - 1] == ' ') --end;
  std::size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1]))) --begin;
  if (begin == end) return -1;
  long value = 0;
  for (std::size_t i = begin; i < end; ++i) {
    value = value * 10 + (line[i] - '0');
    if (value > (1L << 30)) return -1;
  }
  return static_cast<int>(value);
}

/// The text after `prefix` up to the next quote or end of line, trimmed, or "" when absent.
std::string_view name_after(std::string_view line, std::string_view prefix) {
  std::size_t const at = line.find(prefix);
  if (at == std::string_view::npos) return {};
  std::string_view rest = line.substr(at + prefix.size());
  if (!rest.empty() && rest.front() == '\'') rest.remove_prefix(1);
  std::size_t end = 0;
  while (end < rest.size() && rest[end] != '\'' && rest[end] != ' ' && rest[end] != '\r') ++end;
  return rest.substr(0, end);
}

}  // namespace

std::vector<KernelResources> parse_ptxas_log(std::string_view log) {
  std::vector<KernelResources> out;
  bool in_entry = false;                   // out.back() is the entry being compiled
  std::string properties_of;               // whom the next stack/spill line describes
  std::size_t pos = 0;
  while (pos < log.size()) {
    std::size_t nl = log.find('\n', pos);
    if (nl == std::string_view::npos) nl = log.size();
    std::string_view const line = log.substr(pos, nl - pos);
    pos = nl + 1;

    if (std::string_view name = name_after(line, "Compiling entry function "); !name.empty()) {
      out.push_back(KernelResources{});
      out.back().lowered_name = std::string(name);
      in_entry = true;
      properties_of.clear();
      continue;
    }
    if (std::string_view name = name_after(line, "Function properties for "); !name.empty()) {
      properties_of = std::string(name);
      continue;
    }
    if (line.find("bytes stack frame") != std::string_view::npos) {
      if (in_entry && properties_of == out.back().lowered_name) {
        KernelResources* entry = &out.back();
        entry->stack_bytes = std::max(0, number_before(line, "bytes stack frame"));
        entry->spill_stores = std::max(0, number_before(line, "bytes spill stores"));
        entry->spill_loads = std::max(0, number_before(line, "bytes spill loads"));
      }
      continue;
    }
    if (in_entry && line.find("Used ") != std::string_view::npos &&
        line.find(" registers") != std::string_view::npos) {
      KernelResources* entry = &out.back();
      entry->registers = std::max(0, number_before(line, "registers"));
      entry->static_smem = std::max(0, number_before(line, "bytes smem"));
    }
  }
  return out;
}

std::optional<KernelResources> find_kernel_resources(std::string_view log,
                                                     std::string_view lowered_name) {
  for (KernelResources& r : parse_ptxas_log(log)) {
    if (r.lowered_name == lowered_name) return std::move(r);
  }
  return std::nullopt;
}

}  // namespace gemmtune
