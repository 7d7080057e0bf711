// NVRTC compile and cudaLibrary load of the runtime's kernels.
#include "src/runtime/kernel_library.hpp"

#include <exception>

#include "src/nvrtc/content_hash.hpp"

namespace gemmtune {
namespace {

/// The last lines of a compile log, enough to say why without flooding a status line.
std::string log_tail(std::string const& log) {
  constexpr std::size_t kMax = 400;
  if (log.size() <= kMax) return log;
  return "..." + log.substr(log.size() - kMax);
}

std::string request_key(CompileRequest const& r) {
  ContentHash h;
  h.add(r.source_name).add(r.source).add(r.arch);
  for (auto const& n : r.name_expressions) h.add(n);
  for (auto const& o : r.extra_options) h.add("opt:" + o);
  return h.hex();
}

}  // namespace

KernelLibrary::KernelLibrary(CompilerSettings settings) {
  try {
    cache_dir_ = settings.cache_dir;
    compiler_ = std::make_unique<Compiler>(settings);
  } catch (std::exception const& e) {
    // An unwritable cache directory costs compile time, not correctness: compile without it.
    cache_problem_ = e.what();
    cache_dir_.clear();
    settings.cache_dir.clear();
    compiler_ = std::make_unique<Compiler>(settings);
  }
}

KernelLibrary::~KernelLibrary() {
  for (auto& [key, module] : modules_) {
    if (module->library != nullptr) (void)cudaLibraryUnload(module->library);
  }
  (void)cudaGetLastError();
}

LoadedModule KernelLibrary::build(CompileRequest const& request) const {
  LoadedModule m;
  CompileResult result;
  try {
    result = compiler_->compile(request);
  } catch (std::exception const& e) {
    m.error = std::string("NVRTC compile failed: ") + e.what();
    return m;
  }
  if (!result.ok) {
    m.error = "NVRTC compile failed: " + log_tail(result.log);
    return m;
  }
  if (result.lowered_names.size() != request.name_expressions.size()) {
    m.error = "NVRTC returned " + std::to_string(result.lowered_names.size()) +
              " kernel names for " + std::to_string(request.name_expressions.size()) + " requested";
    return m;
  }
  m.image = std::move(result.cubin);
  cudaError_t e = cudaLibraryLoadData(&m.library, m.image.data(), nullptr, nullptr, 0, nullptr,
                                      nullptr, 0);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    m.library = nullptr;
    m.error = std::string("cudaLibraryLoadData failed: ") + cudaGetErrorName(e);
    return m;
  }
  for (std::size_t i = 0; i < request.name_expressions.size(); ++i) {
    cudaKernel_t kernel = nullptr;
    e = cudaLibraryGetKernel(&kernel, m.library, result.lowered_names[i].c_str());
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      m.error = "cudaLibraryGetKernel '" + request.name_expressions[i] + "' failed: " +
                cudaGetErrorName(e);
      return m;  // the library stays loaded and is unloaded with the others
    }
    m.kernels[request.name_expressions[i]] = kernel;
  }
  return m;
}

LoadedModule const& KernelLibrary::get(CompileRequest const& request) {
  std::string const key = request_key(request);
  std::lock_guard<std::mutex> lock(mutex_);  // one compile at a time; callers already hold none
  auto it = modules_.find(key);
  if (it == modules_.end()) {
    it = modules_.emplace(key, std::make_unique<LoadedModule>(build(request))).first;
  }
  return *it->second;
}

}  // namespace gemmtune
