// NVTX ranges of the worker (see profile_range.hpp). NVTX v3 is header-only: it finds a
// profiler's injection library at the first call and is a no-op without one.
#include "src/gpu/profile_range.hpp"

#include <nvtx3/nvToolsExt.h>

namespace gemmtune {
namespace {

nvtxDomainHandle_t domain() {
  static nvtxDomainHandle_t const d = nvtxDomainCreateA("gemmtune");
  return d;
}

}  // namespace

ProfileRange::ProfileRange(char const* name) {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = name;
  nvtxDomainRangePushEx(domain(), &a);
}

ProfileRange::~ProfileRange() { nvtxDomainRangePop(domain()); }

}  // namespace gemmtune
