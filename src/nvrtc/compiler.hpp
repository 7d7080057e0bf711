// NVRTC compilation straight to CUBIN, with ptxas resource figures parsed from the log.
// A compile error is a result carrying the log, never an exception.
#pragma once

#include <string>
#include <vector>

namespace gemmtune {

/// One translation unit to compile.
struct CompileRequest {
  std::string source_name;                 ///< e.g. "naive.cuh", for diagnostics
  std::string source;                      ///< full text of the main source
  std::vector<std::string> name_expressions;  ///< kernels to instantiate and look up
  std::string arch;                        ///< "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"
  std::vector<std::string> extra_options;  ///< validated options only (no user text)
};

/// ptxas figures for one kernel.
struct KernelResources {
  std::string lowered_name;
  int registers = 0;
  int spill_stores = 0;   ///< bytes
  int spill_loads = 0;    ///< bytes
  int stack_bytes = 0;
  int static_smem = 0;    ///< bytes
};

/// The outcome of one compile.
struct CompileResult {
  bool ok = false;
  std::string log;                     ///< NVRTC + ptxas log (always kept)
  std::string cubin;                   ///< bytes; empty when !ok
  std::vector<std::string> lowered_names;  ///< parallel to name_expressions
  std::vector<KernelResources> resources;  ///< parallel to name_expressions
  std::string options;                 ///< the options used, space-separated
  std::string cache_key;               ///< hex hash of (source, options, arch, NVRTC version)
  double compile_ms = 0.0;             ///< 0 when served from the cache
  bool from_cache = false;
  std::string cubin_path;              ///< where the cubin lies in the cache ("" without cache)
};

}  // namespace gemmtune
