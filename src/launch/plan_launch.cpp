// prepare_launch() and queue_launches() (see plan_launch.hpp).
#include "src/launch/plan_launch.hpp"

#include <limits>

#include "src/launch/cuda_errors.hpp"
#include "src/launch/kernel_launch.hpp"

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

std::string text(dim3 const& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

}  // namespace

LaunchStatus prepare_launch(LaunchPlan const& plan, std::size_t index, cudaKernel_t kernel,
                            std::string name, bool overlaps, PreparedLaunch& out) {
  KernelLaunch const& l = plan.launches.at(index);
  out = PreparedLaunch{};
  out.name = std::move(name);
  out.kernel = kernel;
  if (l.dynamic_smem < 0) {
    return {static_cast<int>(cudaErrorInvalidValue),
            "negative dynamic shared memory " + std::to_string(l.dynamic_smem)};
  }
  if (!to_dim3(l.grid, out.grid) || !to_dim3(l.block, out.block)) {
    return {static_cast<int>(cudaErrorInvalidConfiguration),
            "launch " + std::to_string(index) + " grid " + text(l.grid) + " or block " +
                text(l.block) + " out of range (each extent 1 … 2^32−1)"};
  }
  if (l.takes_tensor_maps && plan.tensor_maps.empty()) {
    return {static_cast<int>(cudaErrorInvalidValue),
            "launch " + std::to_string(index) + " takes tensor maps but the plan describes none"};
  }
  if (l.dynamic_smem > kSmemWithoutOptIn) {
    cudaError_t const e = cudaFuncSetAttribute(reinterpret_cast<void const*>(kernel),
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               l.dynamic_smem);
    if (e != cudaSuccess) {
      return cuda_failure(e, "cudaFuncSetAttribute(MaxDynamicSharedMemorySize=" +
                                 std::to_string(l.dynamic_smem) + ") for '" + out.name + "'");
    }
  }
  out.dynamic_smem = static_cast<std::size_t>(l.dynamic_smem);
  out.takes_tensor_maps = l.takes_tensor_maps;
  out.programmatic = l.waits_for_prior_grids && overlaps;
  return {};
}

LaunchStatus queue_launches(std::vector<PreparedLaunch> const& launches, GemmArgs const& args,
                            TensorMaps const& maps, cudaStream_t stream, LaunchCheck check,
                            std::size_t& queued) {
  queued = 0;
  // cudaLaunchKernel copies the arguments before returning, so locals are fine.
  GemmArgs copy = args;
  TensorMaps maps_copy = maps;
  void* params[] = {&copy, &maps_copy};
  for (PreparedLaunch const& p : launches) {
    cudaError_t e =
        launch_kernel(p.kernel, p.grid, p.block, p.dynamic_smem, stream, params, p.programmatic);
    if (e == cudaSuccess && check == LaunchCheck::kLastError) e = cudaGetLastError();
    if (e != cudaSuccess) {
      return cuda_failure(e, "launch of '" + p.name + "' grid " + text(p.grid) + " block " +
                                 text(p.block) + " smem " + std::to_string(p.dynamic_smem));
    }
    ++queued;
  }
  return {};
}

}  // namespace gemmtune
