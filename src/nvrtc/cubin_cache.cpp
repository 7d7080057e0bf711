// On-disk cubin cache. The .json sidecar records the cubin's size and hash, so a truncated or
// foreign .cubin is detected and treated as a miss instead of being loaded onto a GPU.
#include "src/nvrtc/cubin_cache.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <system_error>
#include <thread>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/nvrtc/content_hash.hpp"

namespace gemmtune {
namespace {

namespace fs = std::filesystem;

constexpr char kFormat[] = "gemmtune-cubin-entry";
constexpr int kVersion = 2;  // 2: the key material is kept and checked

std::optional<std::string> read_file(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return data;
}

/// Writes `data` next to `path` under a name unique to this process and thread, then renames it
/// over `path`; rename within one directory is atomic on POSIX file systems.
bool publish(std::string const& path, std::string const& data) {
  static std::atomic<unsigned long> counter{0};
  std::ostringstream tmp;
  tmp << path << ".tmp-" << ::getpid() << '-'
      << std::hash<std::thread::id>{}(std::this_thread::get_id()) << '-' << counter++;
  {
    std::ofstream out(tmp.str(), std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp.str(), ec);
      return false;
    }
  }
  std::error_code ec;
  fs::rename(tmp.str(), path, ec);
  if (ec) {
    fs::remove(tmp.str(), ec);
    return false;
  }
  return true;
}

nlohmann::json resources_to_json(KernelResources const& r) {
  return {{"lowered_name", r.lowered_name}, {"registers", r.registers},
          {"spill_stores", r.spill_stores}, {"spill_loads", r.spill_loads},
          {"stack_bytes", r.stack_bytes},   {"static_smem", r.static_smem}};
}

KernelResources resources_from_json(nlohmann::json const& j) {
  KernelResources r;
  r.lowered_name = j.at("lowered_name").get<std::string>();
  r.registers = j.at("registers").get<int>();
  r.spill_stores = j.at("spill_stores").get<int>();
  r.spill_loads = j.at("spill_loads").get<int>();
  r.stack_bytes = j.at("stack_bytes").get<int>();
  r.static_smem = j.at("static_smem").get<int>();
  return r;
}

}  // namespace

CubinCache::CubinCache(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  // Another process may create it at the same moment; only its absence afterwards is an error.
  std::error_code probe;
  if (!fs::is_directory(dir_, probe)) {
    throw Error("cannot create the cubin cache directory '" + dir_ + "': " +
                (ec ? ec.message() : std::string("not a directory")));
  }
}

std::string CubinCache::cubin_path(std::string const& key) const {
  return (fs::path(dir_) / (key + ".cubin")).string();
}

std::string CubinCache::json_path(std::string const& key) const {
  return (fs::path(dir_) / (key + ".json")).string();
}

std::optional<CompileResult> CubinCache::load(std::string const& key,
                                              std::string const& material) const {
  auto const meta_text = read_file(json_path(key));
  if (!meta_text) return std::nullopt;
  auto const cubin = read_file(cubin_path(key));
  if (!cubin || cubin->empty()) return std::nullopt;
  nlohmann::json const meta = nlohmann::json::parse(*meta_text, nullptr, /*allow_exceptions=*/false);
  if (!meta.is_object()) return std::nullopt;
  try {
    if (meta.at("format").get<std::string>() != kFormat || meta.at("version").get<int>() != kVersion ||
        meta.at("key").get<std::string>() != key ||
        meta.at("key_material").get<std::string>() != material) {
      return std::nullopt;
    }
    if (meta.at("cubin_bytes").get<std::size_t>() != cubin->size() ||
        meta.at("cubin_hash").get<std::string>() != content_hash(*cubin)) {
      return std::nullopt;
    }
    CompileResult r;
    r.ok = true;
    r.cubin = *cubin;
    r.lowered_names = meta.at("lowered_names").get<std::vector<std::string>>();
    for (auto const& j : meta.at("resources")) r.resources.push_back(resources_from_json(j));
    if (r.resources.size() != r.lowered_names.size()) return std::nullopt;
    r.options = meta.at("options").get<std::string>();
    r.log = meta.at("log").get<std::string>();
    r.cache_key = key;
    r.compile_ms = 0.0;
    r.from_cache = true;
    r.cubin_path = cubin_path(key);
    return r;
  } catch (nlohmann::json::exception const&) {
    return std::nullopt;  // a field missing or of the wrong type: a corrupt entry, i.e. a miss
  }
}

std::string CubinCache::store(std::string const& key, std::string const& material,
                              CompileResult const& result) const {
  if (!result.ok || result.cubin.empty()) return {};
  nlohmann::json meta = {{"format", kFormat},
                         {"version", kVersion},
                         {"key", key},
                         {"key_material", material},
                         {"cubin_bytes", result.cubin.size()},
                         {"cubin_hash", content_hash(result.cubin)},
                         {"lowered_names", result.lowered_names},
                         {"resources", nlohmann::json::array()},
                         {"options", result.options},
                         {"log", result.log},
                         {"compile_ms", result.compile_ms}};
  for (auto const& r : result.resources) meta["resources"].push_back(resources_to_json(r));
  // The cubin goes first: a reader that finds the .json finds a complete cubin beside it.
  std::string const path = cubin_path(key);
  if (!publish(path, result.cubin)) return {};
  if (!publish(json_path(key), meta.dump(1, ' ', false, nlohmann::json::error_handler_t::replace))) {
    return {};
  }
  return path;
}

}  // namespace gemmtune
