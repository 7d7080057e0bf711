// The runtime's cuBLASLt handles: one per device, made on first need. A cuBLASLt handle holds
// no per-call state (the workspace and the stream are arguments of each matmul), so every
// thread of a device shares it.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include <cublasLt.h>

namespace gemmtune {

class CublasLtHandles {
 public:
  CublasLtHandles() = default;
  ~CublasLtHandles();
  CublasLtHandles(CublasLtHandles const&) = delete;
  CublasLtHandles& operator=(CublasLtHandles const&) = delete;

  /// The handle of the current device `device`, or nullptr with `why` set.
  cublasLtHandle_t get(int device, std::string& why);

 private:
  std::mutex mutex_;
  std::map<int, cublasLtHandle_t> handles_;
};

}  // namespace gemmtune
