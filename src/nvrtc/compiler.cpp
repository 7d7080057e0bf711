// NVRTC straight to CUBIN. Every embedded template file is handed to NVRTC as an in-memory
// header, so `#include "common/gemm_args.cuh"` never touches the disk; ptxas -v output is read
// from the program log for per-kernel registers, spills, stack and shared memory.
#include "src/nvrtc/compiler.hpp"

#include <nvrtc.h>

#include <array>
#include <chrono>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "src/nvrtc/content_hash.hpp"
#include "src/nvrtc/cubin_cache.hpp"
#include "src/nvrtc/embedded_sources.hpp"
#include "src/nvrtc/ptxas_log.hpp"

#ifndef GEMMTUNE_CUDA_INCLUDE_DIR
#error "GEMMTUNE_CUDA_INCLUDE_DIR must name the CUDA include directory"
#endif

namespace gemmtune {
namespace {

constexpr std::array<std::string_view, 5> kArchs = {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"};
constexpr char kStandard[] = "-std=c++17";

/// Owns an nvrtcProgram for the length of one compile.
class Program {
 public:
  explicit Program(nvrtcProgram p) : p_(p) {}
  ~Program() { nvrtcDestroyProgram(&p_); }
  Program(Program const&) = delete;
  Program& operator=(Program const&) = delete;
  nvrtcProgram get() const { return p_; }

 private:
  nvrtcProgram p_;
};

std::string program_log(nvrtcProgram p) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(p, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(p, log.data()) != NVRTC_SUCCESS) return {};
  log.resize(size - 1);  // drop the terminating NUL
  return log;
}

CompileResult failure(std::string log) {
  CompileResult r;
  r.ok = false;
  r.log = std::move(log);
  return r;
}

std::vector<std::string> split_dirs(std::string const& text) {
  std::vector<std::string> dirs;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) dirs.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return dirs;
}

}  // namespace

std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

bool is_supported_arch(std::string_view arch) {
  for (auto a : kArchs) {
    if (a == arch) return true;
  }
  return false;
}

std::string_view supported_archs() { return "sm_80, sm_86, sm_89, sm_90, sm_90a"; }

std::string cuda_include_dir() {
  if (char const* env = std::getenv("GEMMTUNE_CUDA_INCLUDE"); env != nullptr && *env != '\0') {
    return env;
  }
  return GEMMTUNE_CUDA_INCLUDE_DIR;
}

Compiler::Compiler(CompilerSettings settings) : settings_(std::move(settings)) {
  for (std::string const& dir : split_dirs(cuda_include_dir())) {
    include_dirs_.push_back(dir);
    include_dirs_.push_back(dir + "/cccl");
  }
  for (std::string const& dir : settings_.include_dirs) include_dirs_.push_back(dir);
  if (!settings_.cache_dir.empty()) cache_ = std::make_unique<CubinCache>(settings_.cache_dir);
}

Compiler::~Compiler() = default;
Compiler::Compiler(Compiler&&) noexcept = default;
Compiler& Compiler::operator=(Compiler&&) noexcept = default;

CompileResult Compiler::compile(CompileRequest const& request) const {
  if (!is_supported_arch(request.arch)) {
    return failure("unsupported target architecture '" + request.arch + "' (expected one of " +
                   std::string(supported_archs()) + ")");
  }
  if (request.name_expressions.empty()) {
    return failure("no kernel to compile in '" + request.source_name +
                   "' (the request names no name expression)");
  }

  // Options that change the generated code are reported (and stored as provenance); -I paths
  // are machine-specific, so they go only into the cache key.
  std::vector<std::string> options = {"--gpu-architecture=" + request.arch, kStandard,
                                      "--ptxas-options=-v"};
  for (std::string const& o : request.extra_options) options.push_back(o);
  std::string options_text;
  for (std::string const& o : options) {
    if (!options_text.empty()) options_text += ' ';
    options_text += o;
  }
  for (std::string const& dir : include_dirs_) options.push_back("-I" + dir);

  std::vector<std::string> const header_paths = embedded_paths();
  std::vector<char const*> header_names, header_texts;
  // The key material: every input of the compile, the embedded headers by their digests (they
  // are the same for every compile of one build). The key is its hash; the cache keeps the
  // material beside the cubin and checks it on a hit, so a collision is a miss, not another
  // kernel's cubin.
  nlohmann::json headers = nlohmann::json::array();
  for (std::string const& path : header_paths) {
    std::string_view const text = *embedded_source(path);  // NUL-terminated by the generator
    header_names.push_back(path.c_str());
    header_texts.push_back(text.data());
    headers.push_back({path, content_hash(text)});
  }
  nlohmann::json const material = {{"format", "gemmtune-cubin-key-2"},
                                    {"nvrtc", nvrtc_version()},
                                    {"arch", request.arch},
                                    {"options", options},
                                    {"name_expressions", request.name_expressions},
                                    {"source", request.source},
                                    {"headers", headers}};
  std::string const key_material =
      material.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string const key = content_hash(key_material);

  if (cache_) {
    if (auto hit = cache_->load(key, key_material)) return *std::move(hit);
  }

  auto const start = std::chrono::steady_clock::now();
  nvrtcProgram raw = nullptr;
  std::string const source_name = request.source_name.empty() ? "kernel.cu" : request.source_name;
  nvrtcResult rc = nvrtcCreateProgram(&raw, request.source.c_str(), source_name.c_str(),
                                      static_cast<int>(header_names.size()), header_texts.data(),
                                      header_names.data());
  if (rc != NVRTC_SUCCESS) {
    return failure(std::string("nvrtcCreateProgram failed: ") + nvrtcGetErrorString(rc));
  }
  Program program(raw);
  for (std::string const& e : request.name_expressions) {
    rc = nvrtcAddNameExpression(program.get(), e.c_str());
    if (rc != NVRTC_SUCCESS) {
      return failure("nvrtcAddNameExpression('" + e + "') failed: " + nvrtcGetErrorString(rc));
    }
  }
  std::vector<char const*> option_ptrs;
  for (std::string const& o : options) option_ptrs.push_back(o.c_str());
  rc = nvrtcCompileProgram(program.get(), static_cast<int>(option_ptrs.size()), option_ptrs.data());

  CompileResult result;
  result.log = program_log(program.get());
  result.options = options_text;
  result.cache_key = key;
  if (rc != NVRTC_SUCCESS) {
    result.log = std::string("NVRTC: ") + nvrtcGetErrorString(rc) + "\n" + result.log;
    return result;
  }
  for (std::string const& e : request.name_expressions) {
    char const* lowered = nullptr;
    if (nvrtcGetLoweredName(program.get(), e.c_str(), &lowered) != NVRTC_SUCCESS ||
        lowered == nullptr) {
      result.log = "no lowered name for '" + e + "'\n" + result.log;
      result.lowered_names.clear();
      result.resources.clear();
      return result;
    }
    result.lowered_names.emplace_back(lowered);
    KernelResources res;
    if (auto found = find_kernel_resources(result.log, lowered)) res = *std::move(found);
    res.lowered_name = lowered;
    result.resources.push_back(std::move(res));
  }
  std::size_t cubin_size = 0;
  rc = nvrtcGetCUBINSize(program.get(), &cubin_size);
  if (rc != NVRTC_SUCCESS || cubin_size == 0) {
    result.log = "NVRTC produced no cubin\n" + result.log;
    result.lowered_names.clear();
    result.resources.clear();
    return result;
  }
  result.cubin.resize(cubin_size);
  rc = nvrtcGetCUBIN(program.get(), result.cubin.data());
  if (rc != NVRTC_SUCCESS) {
    return failure(std::string("nvrtcGetCUBIN failed: ") + nvrtcGetErrorString(rc));
  }
  result.ok = true;
  result.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (cache_) result.cubin_path = cache_->store(key, key_material, result);
  return result;
}

}  // namespace gemmtune
