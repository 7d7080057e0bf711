// Kernel ids from files (tables, other caches, the cache in use) checked against the families
// this build knows, for the precision they are stored under.
#include "cli/kernel_check.hpp"

#include "src/core/error.hpp"
#include "src/core/vendor_kernel.hpp"
#include "src/kernels/family.hpp"

namespace gemmtune {

std::string check_kernel(KernelConfig const& cfg, Precision precision) {
  if (is_vendor(cfg)) return vendor_reject_reason(cfg);
  Family const* family = find_family(cfg.family);
  if (!family) {
    std::string known;
    for (Family const* f : all_families()) known += (known.empty() ? "" : ", ") + std::string(f->name());
    return "kernel family '" + cfg.family + "' is not known to this build (known: " + known + ")";
  }
  if (!family->supports(precision)) {
    return "kernel family '" + cfg.family + "' has no " + std::string(to_string(precision)) +
           " kernel";
  }
  try {
    (void)family->canonical(cfg);
  } catch (UsageError const& e) {
    return e.what();
  }
  return {};
}

}  // namespace gemmtune
