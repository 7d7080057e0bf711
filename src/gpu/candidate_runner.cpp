// Candidate loading and launching. Every CUDA refusal is returned with its code so the session
// can tell a launch-time resource error (the worker lives on) from a sticky one.
#include "src/gpu/candidate_runner.hpp"

#include <fstream>
#include <iterator>

#include "src/core/error.hpp"
#include "src/launch/cuda_errors.hpp"
#include "src/launch/kernel_launch.hpp"
#include "src/launch/plan_launch.hpp"

namespace gemmtune {
namespace {


LaunchStatus cuda_failure(cudaError_t e, std::string const& what) {
  // Clear the runtime's last-error slot; a sticky error stays whatever we do.
  (void)cudaGetLastError();
  return {static_cast<int>(e), what + ": " + cuda_error_text(e)};
}

}  // namespace

CandidateRunner::~CandidateRunner() {
  for (Loaded& l : libraries_) (void)cudaLibraryUnload(l.library);
}

LaunchStatus CandidateRunner::load(std::string const& cubin_path, cudaLibrary_t& library) {
  for (auto it = libraries_.begin(); it != libraries_.end(); ++it) {
    if (it->path == cubin_path) {
      libraries_.splice(libraries_.begin(), libraries_, it);
      library = it->library;
      return {};
    }
  }
  std::ifstream in(cubin_path, std::ios::binary);
  if (!in) {
    throw Error("cannot open cubin '" + cubin_path + "' (expected a file in the cubin cache)");
  }
  Loaded loaded;
  loaded.path = cubin_path;
  loaded.image.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad() || loaded.image.empty()) {
    throw Error("cannot read cubin '" + cubin_path + "' (empty or unreadable)");
  }
  cudaError_t const e = cudaLibraryLoadData(&loaded.library, loaded.image.data(), nullptr,
                                            nullptr, 0, nullptr, nullptr, 0);
  if (e != cudaSuccess) return cuda_failure(e, "cudaLibraryLoadData '" + cubin_path + "'");
  library = loaded.library;
  libraries_.push_front(std::move(loaded));
  while (libraries_.size() > kLibraryCacheSize) {
    (void)cudaLibraryUnload(libraries_.back().library);
    libraries_.pop_back();
  }
  return {};
}

LaunchStatus CandidateRunner::prepare(std::string const& cubin_path, LaunchPlan const& plan,
                                      Problem const& problem, KernelFigures& first) {
  prepared_.clear();
  tensor_maps_ = plan.tensor_maps;
  problem_ = problem;
  if (plan.launches.empty()) return {0, "launch plan has no launches"};
  cudaLibrary_t library = nullptr;
  if (LaunchStatus s = load(cubin_path, library); !s.ok()) return s;
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) {
    return cuda_failure(e, "cudaGetDevice");
  }
  bool const overlaps = device_overlaps_launches(device);

  for (std::size_t i = 0; i < plan.launches.size(); ++i) {
    KernelLaunch const& l = plan.launches[i];
    std::string name = l.lowered_name.empty() ? l.name_expression : l.lowered_name;
    cudaKernel_t kernel = nullptr;
    if (cudaError_t e = cudaLibraryGetKernel(&kernel, library, name.c_str()); e != cudaSuccess) {
      return cuda_failure(e, "cudaLibraryGetKernel '" + name + "'");
    }
    if (i == 0) {
      cudaFuncAttributes attr{};
      if (cudaError_t e = cudaFuncGetAttributes(&attr, reinterpret_cast<void const*>(kernel));
          e != cudaSuccess) {
        return cuda_failure(e, "cudaFuncGetAttributes '" + name + "'");
      }
      first.registers = attr.numRegs;
      first.local_bytes = static_cast<int>(attr.localSizeBytes);
      first.static_smem = static_cast<int>(attr.sharedSizeBytes);
    }
    PreparedLaunch p;
    if (LaunchStatus s = prepare_launch(plan, i, kernel, std::move(name), overlaps, p); !s.ok()) {
      return s;
    }
    prepared_.push_back(std::move(p));
  }
  return {};
}

LaunchStatus CandidateRunner::launch(GemmArgs const& args, cudaStream_t stream) const {
  TensorMaps maps{};
  if (!tensor_maps_.empty()) {
    if (std::string why = encoder_.encode(tensor_maps_, problem_, args, maps); !why.empty()) {
      return {static_cast<int>(cudaErrorInvalidValue), why};
    }
  }
  std::size_t queued = 0;
  return queue_launches(prepared_, args, maps, stream, LaunchCheck::kLastError, queued);
}

}  // namespace gemmtune
