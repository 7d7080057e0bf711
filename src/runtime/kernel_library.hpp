// Kernels the runtime has compiled and loaded: one NVRTC compile (through the on-disk cubin
// cache) and one cudaLibraryLoadData per distinct compile request, remembered for the life of
// the Runtime, failures included, so a kernel that cannot be built is tried once.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "src/nvrtc/compiler.hpp"

namespace gemmtune {

/// A loaded cubin and its kernels by NVRTC name expression.
struct LoadedModule {
  std::string error;  ///< "" when loaded; else why not (compile log excerpt or CUDA error)
  std::string image;  ///< the cubin; kept alive with the library (lazy loading reads it again)
  cudaLibrary_t library = nullptr;
  std::map<std::string, cudaKernel_t> kernels;  ///< name expression → kernel
};

/// Compiles and loads on demand. Thread-safe.
class KernelLibrary {
 public:
  explicit KernelLibrary(CompilerSettings settings);
  ~KernelLibrary();
  KernelLibrary(KernelLibrary const&) = delete;
  KernelLibrary& operator=(KernelLibrary const&) = delete;

  /// The module for a request, compiling and loading it on first use. Never throws: every
  /// failure is in LoadedModule::error.
  LoadedModule const& get(CompileRequest const& request);

  /// Where cubins are cached ("" when the disk cache could not be set up).
  std::string const& cache_dir() const { return cache_dir_; }
  /// Why there is no disk cache, or "".
  std::string const& cache_problem() const { return cache_problem_; }

 private:
  LoadedModule build(CompileRequest const& request) const;

  std::unique_ptr<Compiler> compiler_;
  std::string cache_dir_;
  std::string cache_problem_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<LoadedModule>> modules_;
};

}  // namespace gemmtune
