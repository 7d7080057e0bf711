// Candidate loading and launching. Every CUDA refusal is returned with its code so the session
// can tell a launch-time resource error (the worker lives on) from a sticky one.
#include "gpu/candidate_runner.hpp"

#include <fstream>
#include <iterator>
#include <limits>

#include "core/error.hpp"
#include "gpu/cuda_errors.hpp"
#include "gpu/kernel_launch.hpp"

namespace gemmtune {
namespace {


LaunchStatus cuda_failure(cudaError_t e, std::string const& what) {
  // Clear the runtime's last-error slot; a sticky error stays whatever we do.
  (void)cudaGetLastError();
  return {static_cast<int>(e), what + ": " + cuda_error_text(e)};
}

bool to_dim3(Dim3 const& d, dim3& out) {
  constexpr std::int64_t kMax = std::numeric_limits<unsigned int>::max();
  if (d.x < 1 || d.y < 1 || d.z < 1 || d.x > kMax || d.y > kMax || d.z > kMax) return false;
  out = dim3(static_cast<unsigned>(d.x), static_cast<unsigned>(d.y), static_cast<unsigned>(d.z));
  return true;
}

std::string text(Dim3 const& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
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
    Prepared p;
    p.name = l.lowered_name.empty() ? l.name_expression : l.lowered_name;
    if (cudaError_t e = cudaLibraryGetKernel(&p.kernel, library, p.name.c_str()); e != cudaSuccess) {
      return cuda_failure(e, "cudaLibraryGetKernel '" + p.name + "'");
    }
    void const* const fn = reinterpret_cast<void const*>(p.kernel);
    cudaFuncAttributes attr{};
    if (cudaError_t e = cudaFuncGetAttributes(&attr, fn); e != cudaSuccess) {
      return cuda_failure(e, "cudaFuncGetAttributes '" + p.name + "'");
    }
    if (i == 0) {
      first.registers = attr.numRegs;
      first.local_bytes = static_cast<int>(attr.localSizeBytes);
      first.static_smem = static_cast<int>(attr.sharedSizeBytes);
    }
    if (l.dynamic_smem < 0) {
      return {static_cast<int>(cudaErrorInvalidValue),
              "negative dynamic shared memory " + std::to_string(l.dynamic_smem)};
    }
    if (l.dynamic_smem > kSmemWithoutOptIn) {
      cudaError_t const e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 l.dynamic_smem);
      if (e != cudaSuccess) {
        return cuda_failure(e, "cudaFuncSetAttribute(MaxDynamicSharedMemorySize=" +
                                   std::to_string(l.dynamic_smem) + ") for '" + p.name + "'");
      }
    }
    if (!to_dim3(l.grid, p.grid) || !to_dim3(l.block, p.block)) {
      return {static_cast<int>(cudaErrorInvalidConfiguration),
              "launch " + std::to_string(i) + " grid " + text(l.grid) + " or block " +
                  text(l.block) + " out of range (each extent 1 … 2^32−1)"};
    }
    p.dynamic_smem = static_cast<std::size_t>(l.dynamic_smem);
    p.takes_tensor_maps = l.takes_tensor_maps;
    p.programmatic = l.waits_for_prior_grids && overlaps;
    if (p.takes_tensor_maps && plan.tensor_maps.empty()) {
      return {static_cast<int>(cudaErrorInvalidValue),
              "launch " + std::to_string(i) + " takes tensor maps but the plan describes none"};
    }
    prepared_.push_back(std::move(p));
  }
  return {};
}

LaunchStatus CandidateRunner::launch(GemmArgs const& args, cudaStream_t stream) const {
  GemmArgs copy = args;
  TensorMaps maps{};
  if (!tensor_maps_.empty()) {
    if (std::string why = encoder_.encode(tensor_maps_, problem_, args, maps); !why.empty()) {
      return {static_cast<int>(cudaErrorInvalidValue), why};
    }
  }
  void* params[] = {&copy, &maps};  // cudaLaunchKernel copies the arguments before returning
  for (Prepared const& p : prepared_) {
    cudaError_t e = launch_kernel(p.kernel, p.grid, p.block, p.dynamic_smem, stream, params,
                                  p.programmatic);
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) {
      return cuda_failure(e, "launch of '" + p.name + "' grid (" +
                                 std::to_string(p.grid.x) + "," + std::to_string(p.grid.y) +
                                 "," + std::to_string(p.grid.z) + ") block (" +
                                 std::to_string(p.block.x) + "," + std::to_string(p.block.y) +
                                 "," + std::to_string(p.block.z) + ") smem " +
                                 std::to_string(p.dynamic_smem));
    }
  }
  return {};
}

}  // namespace gemmtune
