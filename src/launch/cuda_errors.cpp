// Sticky-error table and error text, from the doc comments of cudaError in driver_types.h
// ("the process must be terminated and relaunched").
#include "src/launch/cuda_errors.hpp"

#include <cuda_runtime_api.h>

namespace gemmtune {

bool is_sticky(int cuda_error) {
  switch (cuda_error) {
    case cudaErrorECCUncorrectable:     // 214: hardware, context lost
    case cudaErrorNvlinkUncorrectable:  // 220
    case cudaErrorContained:            // 226
    case cudaErrorIllegalAddress:       // 700
    case cudaErrorLaunchTimeout:        // 702
    case cudaErrorContextIsDestroyed:   // 709
    case cudaErrorAssert:               // 710
    case cudaErrorHardwareStackError:   // 714
    case cudaErrorIllegalInstruction:   // 715
    case cudaErrorMisalignedAddress:    // 716
    case cudaErrorInvalidAddressSpace:  // 717
    case cudaErrorInvalidPc:            // 718
    case cudaErrorLaunchFailure:        // 719
    case cudaErrorTensorMemoryLeak:     // 721
    case cudaErrorMpsClientTerminated:  // 810
    case cudaErrorExternalDevice:       // 911
    case cudaErrorUnknown:              // 999: nothing known, assume the worst
      return true;
    default:
      return false;
  }
}

std::string cuda_error_text(int cuda_error) {
  auto const e = static_cast<cudaError_t>(cuda_error);
  // Both calls only look up static strings; they work without a driver.
  return std::string(cudaGetErrorName(e)) + " (" + std::to_string(cuda_error) +
         "): " + cudaGetErrorString(e);
}

void check_cuda(int cuda_error, std::string_view what) {
  if (cuda_error != 0) throw CudaFailure(what, cuda_error);
}

}  // namespace gemmtune
