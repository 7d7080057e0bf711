// Per-device cuBLASLt handles (cublaslt_handles.hpp).
#include "src/runtime/cublaslt_handles.hpp"

#include <cuda_runtime_api.h>

#include "src/launch/cublas_contract.hpp"

namespace gemmtune {

CublasLtHandles::~CublasLtHandles() {
  int current = 0;
  bool const restore = cudaGetDevice(&current) == cudaSuccess;
  for (auto const& [device, handle] : handles_) {
    (void)cudaSetDevice(device);
    (void)cublasLtDestroy(handle);
  }
  if (restore) (void)cudaSetDevice(current);
  (void)cudaGetLastError();
}

cublasLtHandle_t CublasLtHandles::get(int device, std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = handles_.find(device); it != handles_.end()) return it->second;
  cublasLtHandle_t handle = nullptr;
  if (cublasStatus_t const s = cublasLtCreate(&handle); s != CUBLAS_STATUS_SUCCESS) {
    (void)cudaGetLastError();
    why = "cublasLtCreate failed: " + cublas_status_text(s);
    return nullptr;
  }
  handles_.emplace(device, handle);
  return handle;
}

}  // namespace gemmtune
