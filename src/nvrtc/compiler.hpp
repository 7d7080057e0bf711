// NVRTC compilation straight to CUBIN, with ptxas resource figures parsed from the log.
// A compile error is a result carrying the log, never an exception.
#pragma once

#include <memory>
#include <string>
#include <string_view>
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
  std::string options;                 ///< the options used, space-separated (-I paths left out)
  std::string cache_key;               ///< hex hash of (source, options, arch, NVRTC version)
  double compile_ms = 0.0;             ///< 0 when served from the cache
  bool from_cache = false;
  std::string cubin_path;              ///< where the cubin lies in the cache ("" without cache)
};

class CubinCache;

/// How a Compiler finds headers and caches cubins.
struct CompilerSettings {
  /// Extra -I directories, searched after the embedded templates and the CUDA include dirs.
  std::vector<std::string> include_dirs;
  /// Directory of the on-disk cubin cache; "" = no disk cache.
  std::string cache_dir;
};

/// NVRTC front end: compiles a request straight to CUBIN with every embedded kernel template
/// available as an in-memory header, reads back lowered names and ptxas figures, and serves
/// repeated requests from the cubin cache. compile() is safe to call from many threads.
class Compiler {
 public:
  /// Throws Error when the cache directory cannot be created.
  explicit Compiler(CompilerSettings settings);
  ~Compiler();
  Compiler(Compiler&&) noexcept;
  Compiler& operator=(Compiler&&) noexcept;

  /// Compiles (or fetches from the cache) one request. A bad arch, a source error or a missing
  /// kernel is a result with ok == false and the reason in `log`, never an exception.
  CompileResult compile(CompileRequest const& request) const;

  CompilerSettings const& settings() const { return settings_; }
  /// Every -I directory passed to NVRTC, in order (CUDA include dir, its cccl/, then settings).
  std::vector<std::string> const& include_dirs() const { return include_dirs_; }

 private:
  CompilerSettings settings_;
  std::vector<std::string> include_dirs_;
  std::unique_ptr<CubinCache> cache_;
};

/// NVRTC's version, "13.0".
std::string nvrtc_version();
/// True for the archs the compiler targets: sm_80, sm_86, sm_89, sm_90, sm_90a.
bool is_supported_arch(std::string_view arch);
/// The supported archs, comma-separated, for messages.
std::string_view supported_archs();
/// The CUDA include directory NVRTC is given: $GEMMTUNE_CUDA_INCLUDE when set, otherwise the
/// one found at build time.
std::string cuda_include_dir();

}  // namespace gemmtune
