// Reads ptxas's verbose report (--ptxas-options=-v) out of an NVRTC program log: registers,
// spills, stack and static shared memory for every entry function, keyed by lowered name.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "src/nvrtc/compiler.hpp"

namespace gemmtune {

/// Every entry function the log reports, in log order. A function's figures come from the
/// lines after its "Compiling entry function '<name>'" line ("Function properties for <name>",
/// "N bytes stack frame, N bytes spill stores, N bytes spill loads", "Used N registers, ...,
/// N bytes smem"); figures ptxas omits stay 0.
std::vector<KernelResources> parse_ptxas_log(std::string_view log);

/// The figures of the entry function with this lowered name, or nullopt when the log has none.
std::optional<KernelResources> find_kernel_resources(std::string_view log,
                                                     std::string_view lowered_name);

}  // namespace gemmtune
