// Classification of CUDA runtime errors: which ones leave the context unusable (sticky) and
// which only refuse one launch. Header is CUDA-free so host-only code and tests can use it.
#pragma once

#include <string>
#include <string_view>

#include "src/core/error.hpp"

namespace gemmtune {

/// True for errors after which the CUDA context cannot be used again in this process
/// (illegal address, launch timeout, device assert, 714–719, ...): the worker must exit.
bool is_sticky(int cuda_error);

/// "cudaErrorIllegalAddress (700): an illegal memory access was encountered".
std::string cuda_error_text(int cuda_error);

/// A CUDA runtime call outside the candidate failed (allocation, copy, stream). Carries the
/// code so a caller can tell a context poisoned by an earlier fault from a plain failure.
class CudaFailure : public Error {
 public:
  CudaFailure(std::string_view what, int cuda_error)
      : Error(std::string(what) + ": " + cuda_error_text(cuda_error)), cuda_error_(cuda_error) {}
  int cuda_error() const { return cuda_error_; }

 private:
  int cuda_error_;
};

/// Throws CudaFailure naming `what` when `cuda_error` is not success (0).
void check_cuda(int cuda_error, std::string_view what);

}  // namespace gemmtune
