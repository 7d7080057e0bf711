// Lazily opened services and shape collection for the subcommands.
#include "cli/app_context.hpp"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_set>
#include <thread>

#include "db/cache_path.hpp"
#include "db/sqlite_trial_store.hpp"
#include "src/core/error.hpp"
#include "src/nvrtc/compile_pool.hpp"
#include "src/nvrtc/compiler.hpp"
#include "tuner/search/worker_evaluator.hpp"
#include "tuner/shapes/shape_sweep.hpp"

namespace gemmtune {

AppContext::AppContext() = default;
AppContext::~AppContext() = default;

std::string AppContext::db_path() const {
  std::optional<std::filesystem::path> opt;
  if (!options.db_path.empty()) opt = options.db_path;
  return resolve_cache_path(opt).string();
}

SqliteTrialStore& AppContext::store() {
  if (!store_) {
    std::filesystem::path const path = db_path();
    create_cache_parent(path);
    store_ = std::make_unique<SqliteTrialStore>(path);
  }
  return *store_;
}

SqliteTrialStore& AppContext::store_for_reading() {
  if (!store_) {
    std::filesystem::path const path = db_path();
    if (!std::filesystem::exists(path)) {
      throw Error("no tuning cache at " + path.string() + " (run gemmtune search first, or pass --db)", 3);
    }
    store_ = std::make_unique<SqliteTrialStore>(path, SqliteTrialStore::Access::kReadOnly);
  }
  return *store_;
}

std::string AppContext::cubin_dir() const {
  if (!options.cache_dir.empty()) return options.cache_dir;
  if (char const* env = std::getenv("GEMMTUNE_CUBIN_CACHE"); env && *env) return env;
  std::filesystem::path const db = db_path();
  return (db.parent_path() / "cubins").string();
}

CompilePool& AppContext::pool() {
  if (!pool_) {
    CompilerSettings settings;
    settings.cache_dir = cubin_dir();
    compiler_ = std::make_unique<Compiler>(settings);
    int threads = options.compile_threads;
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    pool_ = std::make_unique<CompilePool>(*compiler_, threads);
  }
  return *pool_;
}

CompileFn AppContext::compile_fn() {
  CompilePool& p = pool();
  return [&p](CompileRequest req) { return p.submit(std::move(req)); };
}

std::vector<std::string> AppContext::worker_argv() const {
  char buf[PATH_MAX];
  ssize_t const n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) throw Error("cannot find this program's path (/proc/self/exe) to start a GPU worker");
  buf[n] = '\0';
  return {std::string(buf), "__worker"};
}

WorkerEvaluator& AppContext::gpu() {
  if (!gpu_) gpu_ = std::make_unique<WorkerEvaluator>(worker_argv(), options.device);
  return *gpu_;
}

DeviceReport const& AppContext::require_gpu() {
  if (!device_) {
    DeviceReport d = gpu().device();
    if (!d.present) throw Error("no GPU available: " + d.reason, 1);
    device_ = d;
  }
  return *device_;
}

int check_align(int align, Precision precision) {
  if (align == 0) return 0;
  if (align != 1 && align != 2 && align != 4 && align != 8 && align != 16) {
    throw UsageError("bad --align " + std::to_string(align) + ": expected 1, 2, 4, 8 or 16 bytes");
  }
  if (align < input_bytes(precision)) {
    throw UsageError("bad --align " + std::to_string(align) + ": " +
                     std::string(to_string(precision)) + " elements need at least " +
                     std::to_string(input_bytes(precision)) + "-byte alignment");
  }
  return align;
}

std::vector<Problem> collect_problems(std::vector<std::string> const& shapes,
                                      std::string const& shapes_file, Precision precision,
                                      Layout layout, int align) {
  std::vector<Problem> out;
  // A shapes-file line may name its own precision and layout; align is the same for all.
  std::unordered_set<std::string> seen;
  auto add_one = [&](std::string const& text, Precision line_precision, Layout line_layout) {
    Problem p = parse_shape(text, line_precision, line_layout);
    p.align = align;
    if (std::string const why = p.unsupported_reason(); !why.empty()) {
      throw UsageError("shape " + p.shape() + ": " + why);
    }
    if (align != 0 && p.packed_alignment() < align) {
      throw UsageError("shape " + p.shape() + " cannot be " + std::to_string(align) +
                       "-byte aligned with packed leading dimensions (its class is " +
                       std::to_string(p.packed_alignment()) + ")");
    }
    // A problem given twice is tuned once.
    if (!seen.insert(p.describe()).second) return;
    out.push_back(p);
  };
  // A shape may sweep its dimensions (1:8192:pow2x4096x4096).
  auto add = [&](std::string const& text, Precision line_precision, Layout line_layout) {
    for (std::string const& one : expand_shape_sweep(text)) add_one(one, line_precision, line_layout);
  };
  for (auto const& s : shapes) add(s, precision, layout);
  if (!shapes_file.empty()) {
    // An ifstream opens a directory without complaint and then reads nothing, which would
    // end in a misleading "no shape given".
    std::error_code ec;
    if (std::filesystem::is_directory(shapes_file, ec)) {
      throw UsageError("cannot read shapes file '" + shapes_file + "': it is a directory");
    }
    std::ifstream in(shapes_file);
    if (!in) throw UsageError("cannot read shapes file '" + shapes_file + "'");
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      // A UTF-8 byte-order mark (editors on some systems write one) is not part of the text.
      if (lineno == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
      if (line.find('\0') != std::string::npos) {
        throw UsageError(shapes_file + ":" + std::to_string(lineno) +
                         ": a NUL byte in the line (expected text: M N K per line)");
      }
      if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
        line.pop_back();
      }
      std::size_t first = line.find_first_not_of(" \t");
      if (first == std::string::npos) continue;
      std::istringstream stream(line.substr(first));
      std::vector<std::string> words;
      for (std::string word; stream >> word;) words.push_back(word);
      // "M N K" or "MxNxK", then optionally the line's own precision and layout.
      std::size_t const dims = words[0].find('x') != std::string::npos ? 1 : 3;
      std::string joined;
      for (std::size_t i = 0; i < std::min(dims, words.size()); ++i) {
        joined += (joined.empty() ? "" : "x") + words[i];
      }
      std::string const where = shapes_file + ":" + std::to_string(lineno) + ": ";
      Precision line_precision = precision;
      Layout line_layout = layout;
      if (words.size() > dims + 2) {
        throw UsageError(where + "'" + words[dims + 2] +
                         "' after the precision and layout (expected M N K [precision] [layout])");
      }
      try {
        if (words.size() > dims) line_precision = parse_precision(words[dims]);
        if (words.size() > dims + 1) line_layout = parse_layout(words[dims + 1]);
        add(joined, line_precision, line_layout);
      } catch (Error const& e) {
        throw UsageError(where + e.what());
      }
    }
  }
  if (out.empty()) throw UsageError("no shape given: use --shape MxNxK or --shapes-file FILE");
  return out;
}

}  // namespace gemmtune
