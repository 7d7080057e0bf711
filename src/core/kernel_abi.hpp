// Host view of the kernel ABI: the GemmArgs struct every template takes, and what one launch
// of a candidate looks like (kernel name, grid, block, dynamic shared memory).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/gemm_args.cuh"

namespace gemmtune {

static_assert(sizeof(GemmArgs) == 88, "GemmArgs layout must match the device side");

/// A 3-D launch extent.
struct Dim3 {
  std::int64_t x = 1, y = 1, z = 1;
  bool operator==(Dim3 const&) const = default;
};

/// One kernel launch of a candidate. `name_expression` is what the template registers with
/// NVRTC (e.g. "gemmtune::naive<32,8,false,false>"); `lowered_name` is filled in by the compiler.
struct KernelLaunch {
  std::string name_expression;
  std::string lowered_name;
  Dim3 grid;
  Dim3 block;
  int dynamic_smem = 0;  ///< bytes; above 48 KiB the runner raises the kernel's limit first
  bool operator==(KernelLaunch const&) const = default;
};

/// How to run a candidate on a problem: launches in order on one stream, all from one cubin,
/// all taking the same GemmArgs.
struct LaunchPlan {
  std::vector<KernelLaunch> launches;
  std::int64_t workspace_bytes = 0;
  bool zero_workspace = false;  ///< memset the workspace to 0 before the first launch
  bool operator==(LaunchPlan const&) const = default;
};

}  // namespace gemmtune
