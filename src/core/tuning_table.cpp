// Tuning table: strict JSON reader (path-naming errors, size/depth/duplicate-key caps), stable
// writer, and the builder behind the cache export.
#include "src/core/tuning_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <tuple>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/core/file_input.hpp"
#include "src/core/file_output.hpp"
#include "src/core/json_reader.hpp"
#include "src/core/json_structure.hpp"
#include "src/core/vendor_kernel.hpp"

namespace gemmtune {
namespace {

// The reader's documents keep their objects as vectors: a table is many small objects, and a
// tree node per key made a 200 000-entry table cost 670 MB and seconds to build.
using Json = nlohmann::ordered_json;
using OrderedJson = nlohmann::ordered_json;

constexpr std::int64_t kMaxId = (std::int64_t{1} << 31) - 1;
// A table's objects have at most 19 keys; far more is no table (and would make the reader's
// vector-backed objects quadratic).
constexpr std::size_t kMaxTableObjectKeys = 64;
constexpr std::int64_t kMaxSmCount = 100000;
constexpr std::int64_t kMaxBoardClockMhz = 10000;      // far above any GPU clock
constexpr std::int64_t kMaxBoardTemperatureC = 200;   // far above any throttle point
constexpr std::int64_t kMaxShapes = (std::int64_t{1} << 31) - 1;
constexpr std::size_t kMaxNameLength = 256;
constexpr std::size_t kMaxShortText = 64;
// An alternative measured faster than its winner by more than this is not a measurement.
constexpr double kMaxRelative = 100.0;
// Ratios are derived values; a hand-edited table may round them a little.
constexpr double kRatioTolerance = 1e-6;

using json_path::describe;
using json_path::join;

/// Reads one table, failing with "<source>: <path>: <what>" on the first problem.
class TableReader : public JsonReader {
 public:
  using JsonReader::JsonReader;

  int gpu_ref(Json const& obj, std::string const& path, TuningTable const& table) const {
    auto const id = static_cast<int>(integer(obj, path, "gpu", 0, kMaxId));
    if (!table.find_gpu(id)) {
      fail(join(path, "gpu"), "no GPU with id " + std::to_string(id) + " in gpus");
    }
    return id;
  }

  Json const& array(Json const& root, std::string_view key) const {
    Json const& v = member(root, "", key, "an array");
    if (!v.is_array()) expected(std::string(key), "an array", v);
    return v;
  }

  TableGpu read_gpu(Json const& g, std::string const& path) const {
    object(g, path, {"id", "name", "cc", "sm_count"});
    TableGpu out;
    out.id = static_cast<int>(integer(g, path, "id", 0, kMaxId));
    out.gpu.name = text(g, path, "name", kMaxNameLength);
    std::string const what = "a compute capability such as \"9.0\"";
    Json const& cc = member(g, path, "cc", what);
    bool ok = cc.is_string();
    if (ok) {
      auto const& s = cc.get_ref<std::string const&>();
      std::size_t const dot = s.find('.');
      ok = (dot == 1 || dot == 2) && s.size() == dot + 2 &&
           std::all_of(s.begin(), s.end(),
                       [](char c) { return c == '.' || (c >= '0' && c <= '9'); }) &&
           s[0] != '0';
      if (ok) {
        out.gpu.cc_major = std::stoi(s.substr(0, dot));
        out.gpu.cc_minor = s[dot + 1] - '0';
      }
    }
    if (!ok) expected(join(path, "cc"), what, cc);
    out.gpu.sm_count = static_cast<int>(integer(g, path, "sm_count", 1, kMaxSmCount));
    return out;
  }

  TableEntry read_entry(Json const& e, std::string const& path, TuningTable const& table) const {
    object(e, path,
           {"gpu", "precision", "layout", "m", "n", "k", "align", "kernel", "time_ms", "tflops",
            "cublas_ms", "cublaslt_ms", "ratio_cublas", "ratio_cublaslt", "alternatives",
            "spread", "vendor", "own", "cublas_version", "board"});
    TableEntry out;
    out.gpu = gpu_ref(e, path, table);
    out.problem.precision = precision(e, path);
    out.problem.layout = layout(e, path);
    out.problem.m = integer(e, path, "m", 1, kMaxDim);
    out.problem.n = integer(e, path, "n", 1, kMaxDim);
    out.problem.k = integer(e, path, "k", 1, kMaxDim);
    out.problem.align = align(e, path);
    out.kernel = kernel(e, path);
    out.time_ms = positive(e, path, "time_ms");
    out.tflops = positive(e, path, "tflops");
    out.cublas_ms = optional_positive(e, path, "cublas_ms");
    out.cublaslt_ms = optional_positive(e, path, "cublaslt_ms");
    check_ratio(e, path, "ratio_cublas", "cublas_ms", out.ratio_cublas());
    check_ratio(e, path, "ratio_cublaslt", "cublaslt_ms", out.ratio_cublaslt());
    out.alternatives = alternatives(e, path, out.kernel);
    out.spread = spread(e, path, out.time_ms);
    out.board = board(e, path);
    vendor_fields(e, path, out);
    return out;
  }

  /// The optional "board" of an entry: {sm_clock_mhz, temperature_c}, both positive integers.
  std::optional<TableBoard> board(Json const& e, std::string const& path) const {
    auto it = e.find("board");
    if (it == e.end() || it->is_null()) return std::nullopt;
    std::string const p = join(path, "board");
    object(*it, p, {"sm_clock_mhz", "temperature_c"});
    TableBoard b;
    b.sm_clock_mhz = static_cast<int>(integer(*it, p, "sm_clock_mhz", 1, kMaxBoardClockMhz));
    b.temperature_c = static_cast<int>(integer(*it, p, "temperature_c", 1, kMaxBoardTemperatureC));
    return b;
  }

  /// "vendor" (true exactly when the kernel is a vendor call), "cublas_version" (required for a
  /// cublaslt pick, digits) and "own" ({kernel, time_ms}, only beside a vendor pick).
  void vendor_fields(Json const& e, std::string const& path, TableEntry& out) const {
    bool const vendor = out.vendor();
    auto const mark = e.find("vendor");
    if (mark != e.end()) {
      if (!mark->is_boolean()) expected(join(path, "vendor"), "true or false", *mark);
      if (mark->get<bool>() != vendor) {
        fail(join(path, "vendor"), vendor ? "true for the vendor call " + out.kernel.id()
                                          : "false for our kernel " + out.kernel.id());
      }
    } else if (vendor) {
      fail(join(path, "vendor"), "true for the vendor call " + out.kernel.id() + " (absent)");
    }
    if (auto const v = e.find("cublas_version"); v != e.end() && !v->is_null()) {
      std::string const version = text(e, path, "cublas_version", 16);
      if (!std::all_of(version.begin(), version.end(),
                       [](char c) { return c == '.' || (c >= '0' && c <= '9'); })) {
        expected(join(path, "cublas_version"), "a cuBLAS version such as \"13.1.0\"", *v);
      }
      if (!vendor) fail(join(path, "cublas_version"), "only beside a vendor pick");
      out.cublas_version = version;
    } else if (out.kernel.family == kCublasLtFamily) {
      fail(join(path, "cublas_version"),
           "the cuBLAS version of the cuBLASLt algorithm " + out.kernel.id() + " (absent)");
    }
    if (auto const o = e.find("own"); o != e.end() && !o->is_null()) {
      std::string const p = join(path, "own");
      if (!vendor) fail(p, "only beside a vendor pick");
      object(*o, p, {"kernel", "time_ms"});
      out.own = TableOwnFigure{own_kernel(*o, p), positive(*o, p, "time_ms")};
    }
  }

  /// The optional "spread" of an entry: {lo_ms, hi_ms, rounds} with lo_ms ≤ time_ms ≤ hi_ms.
  std::optional<TableSpread> spread(Json const& e, std::string const& path,
                                    double time_ms) const {
    auto it = e.find("spread");
    if (it == e.end() || it->is_null()) return std::nullopt;
    std::string const p = join(path, "spread");
    object(*it, p, {"lo_ms", "hi_ms", "rounds"});
    TableSpread s;
    s.lo_ms = positive(*it, p, "lo_ms");
    s.hi_ms = positive(*it, p, "hi_ms");
    s.rounds = static_cast<int>(integer(*it, p, "rounds", 1, 1000));
    // The median of the rounds lies between their extremes; a tolerance covers decimal printing.
    double const slack = 1e-9 * time_ms;
    if (s.lo_ms > time_ms + slack || s.hi_ms < time_ms - slack) {
      fail(p, "expected lo_ms <= time_ms <= hi_ms, got " + Json(s.lo_ms).dump() + " <= " +
                  Json(time_ms).dump() + " <= " + Json(s.hi_ms).dump());
    }
    return s;
  }

  /// The optional "alternatives" of an entry: at most kMaxTableAlternatives distinct kernels,
  /// none of them the winner, each with a relative speed in (0, kMaxRelative].
  std::vector<TableAlternative> alternatives(Json const& e, std::string const& path,
                                             KernelConfig const& winner) const {
    std::vector<TableAlternative> out;
    auto it = e.find("alternatives");
    if (it == e.end()) return out;
    std::string const p = join(path, "alternatives");
    std::string const what =
        "an array of at most " + std::to_string(kMaxTableAlternatives) + " alternatives";
    if (!it->is_array() || it->size() > kMaxTableAlternatives) expected(p, what, *it);
    for (std::size_t i = 0; i < it->size(); ++i) {
      std::string const ap = json_path::index(p, i);
      Json const& a = (*it)[i];
      object(a, ap, {"kernel", "relative"});
      TableAlternative alt;
      alt.kernel = own_kernel(a, ap);
      Json const& rel = member(a, ap, "relative", "a number in (0, 100]");
      if (!rel.is_number() || !(rel.get<double>() > 0.0) || !(rel.get<double>() <= kMaxRelative)) {
        expected(join(ap, "relative"), "a number in (0, 100]", rel);
      }
      alt.relative = rel.get<double>();
      if (alt.kernel == winner) fail(join(ap, "kernel"), "the entry's own kernel");
      for (std::size_t j = 0; j < out.size(); ++j) {
        if (out[j].kernel == alt.kernel) {
          fail(join(ap, "kernel"), "duplicate of " + json_path::index(p, j) + ".kernel");
        }
      }
      out.push_back(std::move(alt));
    }
    return out;
  }

  /// A ratio is derived from the times: present exactly when its baseline is, and equal to it.
  void check_ratio(Json const& e, std::string const& path, std::string_view key,
                   std::string_view baseline, std::optional<double> expected_ratio) const {
    std::optional<double> const got = optional_positive(e, path, key);
    auto const p = [&] { return join(path, key); };
    if (!expected_ratio) {
      if (got) fail(p(), "expected null because " + std::string(baseline) + " is null");
      return;
    }
    if (!got) fail(p(), "missing (expected " + std::string(baseline) + " / time_ms)");
    if (std::abs(*got - *expected_ratio) > kRatioTolerance * *expected_ratio) {
      fail(p(), "expected " + std::string(baseline) + " / time_ms = " + Json(*expected_ratio).dump() +
                  ", got " + Json(*got).dump());
    }
  }

  TableDefault read_default(Json const& d, std::string const& path,
                            TuningTable const& table) const {
    object(d, path,
           {"gpu", "precision", "layout", "align", "kernel", "mean_relative", "shapes"});
    TableDefault out;
    out.gpu = gpu_ref(d, path, table);
    out.precision = precision(d, path);
    out.layout = layout(d, path);
    out.align = align(d, path);
    out.kernel = own_kernel(d, path);
    Json const& mr = member(d, path, "mean_relative", "a number in (0, 1]");
    if (!mr.is_number() || !(mr.get<double>() > 0.0) || !(mr.get<double>() <= 1.0)) {
      expected(join(path, "mean_relative"), "a number in (0, 1]", mr);
    }
    out.mean_relative = mr.get<double>();
    out.shapes = static_cast<int>(integer(d, path, "shapes", 1, kMaxShapes));
    return out;
  }

  /// One range: its key, and buckets ascending, contiguous, inside [1, kMaxDim], each naming
  /// an entry of the table (read before the ranges) at an M inside it.
  TableRange read_range(Json const& r, std::string const& path, TuningTable const& table,
                        std::map<std::tuple<int, Precision, Layout, std::int64_t, std::int64_t,
                                            std::int64_t, int>,
                                 std::size_t> const& entries) const {
    object(r, path, {"gpu", "n", "k", "precision", "layout", "align", "buckets"});
    TableRange out;
    out.gpu = gpu_ref(r, path, table);
    out.n = integer(r, path, "n", 1, kMaxDim);
    out.k = integer(r, path, "k", 1, kMaxDim);
    out.precision = precision(r, path);
    out.layout = layout(r, path);
    out.align = align(r, path);
    std::string const bp = join(path, "buckets");
    Json const& buckets = member(r, path, "buckets", "an array of buckets");
    std::string const what =
        "an array of 1 to " + std::to_string(kMaxRangeBuckets) + " buckets";
    if (!buckets.is_array() || buckets.empty() || buckets.size() > kMaxRangeBuckets) {
      expected(bp, what, buckets);
    }
    for (std::size_t i = 0; i < buckets.size(); ++i) {
      std::string const p = json_path::index(bp, i);
      Json const& b = buckets[i];
      object(b, p, {"m_lo", "m_hi", "m"});
      TableRangeBucket x;
      x.m_lo = integer(b, p, "m_lo", 1, kMaxDim);
      x.m_hi = integer(b, p, "m_hi", 1, kMaxDim);
      x.m = integer(b, p, "m", 1, kMaxDim);
      if (x.m_lo > x.m_hi) {
        fail(p, "inverted: m_lo " + std::to_string(x.m_lo) + " > m_hi " + std::to_string(x.m_hi));
      }
      if (x.m < x.m_lo || x.m > x.m_hi) {
        fail(join(p, "m"), "expected m_lo <= m <= m_hi, got " + std::to_string(x.m) + " outside [" +
                               std::to_string(x.m_lo) + ", " + std::to_string(x.m_hi) + "]");
      }
      if (i > 0) {
        std::int64_t const prev_hi = out.buckets.back().m_hi;
        if (x.m_lo <= prev_hi) {
          fail(join(p, "m_lo"), "overlaps " + json_path::index(bp, i - 1) + " (m_lo " +
                                    std::to_string(x.m_lo) + " <= its m_hi " +
                                    std::to_string(prev_hi) + ")");
        }
        if (x.m_lo != prev_hi + 1) {
          fail(join(p, "m_lo"), "a gap after " + json_path::index(bp, i - 1) + " (expected m_lo " +
                                    std::to_string(prev_hi + 1) + ", got " +
                                    std::to_string(x.m_lo) + ")");
        }
      }
      if (!entries.count({out.gpu, out.precision, out.layout, x.m, out.n, out.k, out.align})) {
        fail(join(p, "m"), "no entry for " + std::to_string(x.m) + "x" + std::to_string(out.n) +
                               "x" + std::to_string(out.k) + " " +
                               std::string(to_string(out.precision)) + " " +
                               std::string(to_string(out.layout)) + " a" +
                               std::to_string(out.align) + " on GPU " + std::to_string(out.gpu));
      }
      out.buckets.push_back(x);
    }
    return out;
  }

  TuningTable read(Json const& root) const {
    if (!root.is_object()) expected("", "an object", root);
    // Format and version first: a table from a newer gemmtune should say so, not complain
    // about the keys it added.
    Json const& format = member(root, "", "format", "\"" + std::string(kTableFormat) + "\"");
    if (!format.is_string() || format.get_ref<std::string const&>() != kTableFormat) {
      expected("format", "\"" + std::string(kTableFormat) + "\" (a gemmtune tuning table)",
               format);
    }
    Json const& version = member(root, "", "version", "1");
    if (!version.is_number_integer() || version.get<std::int64_t>() != kTableVersion) {
      fail("version", "this gemmtune reads table version " + std::to_string(kTableVersion) +
                          ", got " + describe(version) +
                          (version.is_number_integer() && version.get<std::int64_t>() > 1
                               ? " (written by a newer gemmtune)"
                               : ""));
    }
    object(root, "",
           {"format", "version", "generated_at", "gemmtune_version", "gpus", "entries",
            "defaults", "ranges"});
    TuningTable t;
    t.generated_at = text(root, "", "generated_at", kMaxShortText);
    t.gemmtune_version = text(root, "", "gemmtune_version", kMaxShortText);

    Json const& gpus = array(root, "gpus");
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      std::string const path = json_path::index("gpus", i);
      TableGpu g = read_gpu(gpus[i], path);
      for (std::size_t j = 0; j < t.gpus.size(); ++j) {
        if (t.gpus[j].id == g.id) {
          fail(join(path, "id"), "duplicate of " + json_path::index("gpus", j) + ".id");
        }
        if (t.gpus[j].gpu == g.gpu) {
          fail(path, "same name, cc and sm_count as " + json_path::index("gpus", j));
        }
      }
      t.gpus.push_back(std::move(g));
    }

    using EntryKey = std::tuple<int, Precision, Layout, std::int64_t, std::int64_t, std::int64_t, int>;
    std::map<EntryKey, std::size_t> seen_entries;
    Json const& entries = array(root, "entries");
    t.entries.reserve(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i) {
      std::string const path = json_path::index("entries", i);
      TableEntry e = read_entry(entries[i], path, t);
      EntryKey const key{e.gpu, e.problem.precision, e.problem.layout, e.problem.m,
                         e.problem.n, e.problem.k, e.problem.align};
      auto [it, inserted] = seen_entries.emplace(key, i);
      if (!inserted) {
        fail(path, "duplicate of " + json_path::index("entries", it->second) +
                       " (same gpu, precision, layout, m, n, k and align)");
      }
      t.entries.push_back(std::move(e));
    }

    using DefaultKey = std::tuple<int, Precision, Layout, int>;
    std::map<DefaultKey, std::size_t> seen_defaults;
    Json const& defaults = array(root, "defaults");
    for (std::size_t i = 0; i < defaults.size(); ++i) {
      std::string const path = json_path::index("defaults", i);
      TableDefault d = read_default(defaults[i], path, t);
      auto [it, inserted] =
          seen_defaults.emplace(DefaultKey{d.gpu, d.precision, d.layout, d.align}, i);
      if (!inserted) {
        fail(path, "duplicate of " + json_path::index("defaults", it->second) +
                       " (same gpu, precision, layout and align)");
      }
      t.defaults.push_back(std::move(d));
    }

    if (auto const it = root.find("ranges"); it != root.end()) {
      if (!it->is_array()) expected("ranges", "an array", *it);
      using RangeKey = std::tuple<int, Precision, Layout, std::int64_t, std::int64_t, int>;
      std::map<RangeKey, std::size_t> seen_ranges;
      for (std::size_t i = 0; i < it->size(); ++i) {
        std::string const path = json_path::index("ranges", i);
        TableRange r = read_range((*it)[i], path, t, seen_entries);
        auto [at, inserted] =
            seen_ranges.emplace(RangeKey{r.gpu, r.precision, r.layout, r.n, r.k, r.align}, i);
        if (!inserted) {
          fail(path, "duplicate of " + json_path::index("ranges", at->second) +
                         " (same gpu, precision, layout, n, k and align)");
        }
        t.ranges.push_back(std::move(r));
      }
    }
    return t;
  }
};

/// Parses JSON text with a depth cap and duplicate-key detection. nlohmann's parser keeps the
/// last of duplicate keys silently and its copy/dump recurse per level, so both are stopped here,
/// in the parser callback, before a DOM is built.
Json parse_json(std::string_view text, std::string const& source) {
  // Depth and duplicate keys checked while the document is built, in one linear pass.
  try {
    return parse_checked_json<Json>(text, kMaxTableDepth, source, " (a tuning table needs 3)",
                                    kMaxTableObjectKeys);
  } catch (Json::exception const& e) {
    throw Error(source + ": not valid JSON: " + e.what());
  }
}

std::string too_large(std::string const& source, std::uintmax_t bytes) {
  return too_large_message(source, bytes, kMaxTableBytes, "tuning table");
}

OrderedJson optional_number(std::optional<double> v) {
  return v ? OrderedJson(*v) : OrderedJson(nullptr);
}

std::string cc_text(GpuIdentity const& g) {
  return std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor);
}

}  // namespace

std::optional<double> TableEntry::ratio_cublas() const {
  if (!cublas_ms) return std::nullopt;
  return *cublas_ms / time_ms;
}

bool TableEntry::vendor() const { return is_vendor(kernel); }

std::optional<double> TableEntry::own_ratio_cublas() const {
  if (!cublas_ms || !own) return std::nullopt;
  return *cublas_ms / own->time_ms;
}

std::optional<double> TableEntry::best_vendor_ms() const {
  double const best = gemmtune::best_vendor_ms(cublas_ms.value_or(0.0), cublaslt_ms.value_or(0.0));
  return best > 0 ? std::optional<double>(best) : std::nullopt;
}

std::optional<double> TableEntry::own_ratio_best_vendor() const {
  std::optional<double> const best = best_vendor_ms();
  if (!best) return std::nullopt;
  if (!vendor()) return *best / time_ms;
  if (!own) return std::nullopt;
  return *best / own->time_ms;
}

std::optional<double> TableEntry::ratio_cublaslt() const {
  if (!cublaslt_ms) return std::nullopt;
  return *cublaslt_ms / time_ms;
}

TableGpu const* TuningTable::find_gpu(int id) const {
  for (auto const& g : gpus) {
    if (g.id == id) return &g;
  }
  return nullptr;
}

TuningTable parse_tuning_table(std::string_view text, std::string_view source) {
  std::string const src(source);
  if (text.size() > kMaxTableBytes) throw Error(too_large(src, text.size()));
  Json const root = parse_json(text, src);
  return TableReader(src).read(root);
}

TuningTable read_tuning_table(std::filesystem::path const& path) {
  return parse_tuning_table(read_capped_file(path, kMaxTableBytes, "tuning table",
                                             "a JSON file written by gemmtune export"),
                            path.string());
}

std::string format_tuning_table(TuningTable const& t) {
  OrderedJson root;
  root["format"] = kTableFormat;
  root["version"] = kTableVersion;
  root["generated_at"] = t.generated_at;
  root["gemmtune_version"] = t.gemmtune_version;
  OrderedJson gpus = OrderedJson::array();
  for (auto const& g : t.gpus) {
    gpus.push_back(OrderedJson{{"id", g.id},
                               {"name", g.gpu.name},
                               {"cc", cc_text(g.gpu)},
                               {"sm_count", g.gpu.sm_count}});
  }
  root["gpus"] = std::move(gpus);
  OrderedJson entries = OrderedJson::array();
  for (auto const& e : t.entries) {
    entries.push_back(OrderedJson{{"gpu", e.gpu},
                                  {"precision", to_string(e.problem.precision)},
                                  {"layout", to_string(e.problem.layout)},
                                  {"m", e.problem.m},
                                  {"n", e.problem.n},
                                  {"k", e.problem.k},
                                  {"align", e.problem.align},
                                  {"kernel", e.kernel.id()},
                                  {"time_ms", e.time_ms},
                                  {"tflops", e.tflops},
                                  {"cublas_ms", optional_number(e.cublas_ms)},
                                  {"cublaslt_ms", optional_number(e.cublaslt_ms)},
                                  {"ratio_cublas", optional_number(e.ratio_cublas())},
                                  {"ratio_cublaslt", optional_number(e.ratio_cublaslt())}});
    if (!e.alternatives.empty()) {
      OrderedJson alts = OrderedJson::array();
      for (auto const& a : e.alternatives) {
        alts.push_back(OrderedJson{{"kernel", a.kernel.id()}, {"relative", a.relative}});
      }
      entries.back()["alternatives"] = std::move(alts);
    }
    if (e.spread) {
      entries.back()["spread"] = OrderedJson{
          {"lo_ms", e.spread->lo_ms}, {"hi_ms", e.spread->hi_ms}, {"rounds", e.spread->rounds}};
    }
    if (e.board) {
      entries.back()["board"] = OrderedJson{{"sm_clock_mhz", e.board->sm_clock_mhz},
                                            {"temperature_c", e.board->temperature_c}};
    }
    if (e.vendor()) {
      entries.back()["vendor"] = true;
      if (!e.cublas_version.empty()) entries.back()["cublas_version"] = e.cublas_version;
      if (e.own) {
        entries.back()["own"] =
            OrderedJson{{"kernel", e.own->kernel.id()}, {"time_ms", e.own->time_ms}};
      }
    }
  }
  root["entries"] = std::move(entries);
  OrderedJson defaults = OrderedJson::array();
  for (auto const& d : t.defaults) {
    defaults.push_back(OrderedJson{{"gpu", d.gpu},
                                   {"precision", to_string(d.precision)},
                                   {"layout", to_string(d.layout)},
                                   {"align", d.align},
                                   {"kernel", d.kernel.id()},
                                   {"mean_relative", d.mean_relative},
                                   {"shapes", d.shapes}});
  }
  root["defaults"] = std::move(defaults);
  // Written only when there are any, so tables without ranges read as before.
  if (!t.ranges.empty()) {
    OrderedJson ranges = OrderedJson::array();
    for (auto const& r : t.ranges) {
      OrderedJson buckets = OrderedJson::array();
      for (auto const& b : r.buckets) {
        buckets.push_back(OrderedJson{{"m_lo", b.m_lo}, {"m_hi", b.m_hi}, {"m", b.m}});
      }
      ranges.push_back(OrderedJson{{"gpu", r.gpu},
                                   {"precision", to_string(r.precision)},
                                   {"layout", to_string(r.layout)},
                                   {"n", r.n},
                                   {"k", r.k},
                                   {"align", r.align},
                                   {"buckets", std::move(buckets)}});
    }
    root["ranges"] = std::move(ranges);
  }
  return root.dump(2) + "\n";
}

void write_tuning_table(TuningTable const& table, std::filesystem::path const& path) {
  write_file_safely(path, format_tuning_table(table), "the tuning table");
}

std::string format_utc_time(std::int64_t unix_seconds) {
  std::time_t const t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::vector<TableRangeBucket> range_buckets(std::vector<std::int64_t> const& measured_m) {
  std::vector<TableRangeBucket> out;
  for (std::size_t i = 0; i < measured_m.size(); ++i) {
    std::int64_t const m = measured_m[i];
    std::int64_t const lo = i == 0 ? m : out.back().m_hi + 1;
    std::int64_t hi = m;
    if (i + 1 < measured_m.size()) {
      // The last M nearer to m than to the next point in log space: M ≤ √(m·next).
      std::int64_t const next = measured_m[i + 1];
      auto const mid = static_cast<std::int64_t>(
          std::floor(std::sqrt(static_cast<double>(m) * static_cast<double>(next))));
      hi = std::clamp<std::int64_t>(mid, m, next - 1);
    }
    out.push_back({lo, hi, m});
  }
  return out;
}

TuningTableBuilder::TuningTableBuilder(std::string generated_at) {
  table_.generated_at =
      generated_at.empty() ? format_utc_time(static_cast<std::int64_t>(std::time(nullptr)))
                           : std::move(generated_at);
  table_.gemmtune_version = std::string(gemmtune_version());
}

int TuningTableBuilder::add_gpu(GpuIdentity const& gpu) {
  for (auto const& g : table_.gpus) {
    if (g.gpu == gpu) return g.id;
  }
  int const id = static_cast<int>(table_.gpus.size());
  table_.gpus.push_back(TableGpu{id, gpu});
  return id;
}

TableEntry& TuningTableBuilder::add_entry(GpuIdentity const& gpu, Problem const& problem,
                                   KernelConfig const& kernel, double time_ms, double tflops,
                                   std::optional<double> cublas_ms,
                                   std::optional<double> cublaslt_ms,
                                   std::vector<TableAlternative> alternatives,
                                   std::optional<TableSpread> spread,
                                   std::optional<TableOwnFigure> own,
                                   std::string cublas_version) {
  TableEntry e;
  e.gpu = add_gpu(gpu);
  e.problem = problem.resolved();
  e.kernel = kernel;
  e.time_ms = time_ms;
  e.tflops = tflops;
  e.cublas_ms = cublas_ms;
  e.cublaslt_ms = cublaslt_ms;
  e.alternatives = std::move(alternatives);
  e.spread = spread;
  if (e.vendor()) {
    e.own = std::move(own);
    e.cublas_version = std::move(cublas_version);
  }
  table_.entries.push_back(std::move(e));
  return table_.entries.back();
}

void TuningTableBuilder::add_default(GpuIdentity const& gpu, Precision precision, Layout layout,
                                     int align, KernelConfig const& kernel, double mean_relative,
                                     int shapes) {
  table_.defaults.push_back(
      TableDefault{add_gpu(gpu), precision, layout, align, kernel, mean_relative, shapes});
}

TuningTable TuningTableBuilder::build() const {
  TuningTable t = table_;
  auto entry_key = [](TableEntry const& e) {
    return std::tuple(e.gpu, e.problem.precision, e.problem.layout, e.problem.m, e.problem.n,
                      e.problem.k, e.problem.align);
  };
  std::stable_sort(t.entries.begin(), t.entries.end(),
                   [&](auto const& a, auto const& b) { return entry_key(a) < entry_key(b); });
  auto default_key = [](TableDefault const& d) {
    return std::tuple(d.gpu, d.precision, d.layout, d.align);
  };
  std::stable_sort(t.defaults.begin(), t.defaults.end(),
                   [&](auto const& a, auto const& b) { return default_key(a) < default_key(b); });
  // Entries that differ only in M (a sweep over a layer's token counts) become one range.
  std::map<std::tuple<int, Precision, Layout, std::int64_t, std::int64_t, int>,
           std::vector<std::int64_t>>
      by_layer;
  for (auto const& e : t.entries) {
    by_layer[{e.gpu, e.problem.precision, e.problem.layout, e.problem.n, e.problem.k,
              e.problem.align}]
        .push_back(e.problem.m);
  }
  t.ranges.clear();
  for (auto& [key, ms] : by_layer) {
    if (ms.size() < 2) continue;
    std::sort(ms.begin(), ms.end());
    auto const& [gpu, precision, layout, n, k, align] = key;
    t.ranges.push_back(TableRange{gpu, n, k, precision, layout, align, range_buckets(ms)});
  }
  return parse_tuning_table(format_tuning_table(t), "exported table");
}

}  // namespace gemmtune
