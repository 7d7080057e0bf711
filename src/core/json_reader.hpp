// Strict reading of gemmtune's JSON documents (tuning tables, ladder results): typed members
// with range checks, refusal of unknown keys, and errors that name the source and the JSON path
// of the first offence ("t.json: entries[3].m: expected an integer in [1, 16777216], got 0").
// Header-only: a large table reads millions of members, and these checks must inline.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/core/kernel_config.hpp"
#include "src/core/precision.hpp"
#include "src/core/problem.hpp"
#include "src/core/vendor_kernel.hpp"

namespace gemmtune {

/// JSON paths and values as error messages spell them.
namespace json_path {

/// "a.b" from "a" and "b"; the key alone at the top level.
inline std::string join(std::string const& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

/// "a[3]".
inline std::string index(std::string const& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

/// JSON text for a message: bytes that are not UTF-8 are shown as U+FFFD, never thrown about.
inline std::string dump(nlohmann::ordered_json const& v) {
  return v.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

/// A JSON value as an error message shows it: scalars verbatim (long strings cut), containers
/// by kind.
inline std::string describe(nlohmann::ordered_json const& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  if (v.is_string()) {
    auto const& s = v.get_ref<std::string const&>();
    // Cut at 60 bytes, which may split a UTF-8 sequence: the dump replaces what is left of it
    // (a throwing dump here would turn a clear refusal into an internal error).
    if (s.size() > 60) return dump(nlohmann::ordered_json(s.substr(0, 60))) + "...";
    return dump(v);
  }
  return dump(v);
}

}  // namespace json_path

/// Reads members of one document, failing with "<source>: <path>: <what>" on the first problem.
/// Documents are nlohmann::ordered_json (objects as vectors: far fewer allocations for many
/// small objects).
class JsonReader {
 public:
  using Json = nlohmann::ordered_json;

  /// Longest kernel id a document may hold.
  static constexpr std::size_t kMaxKernelIdLength = 1024;

  explicit JsonReader(std::string_view source) : source_(source) {}

  /// The document's name in messages.
  std::string const& source() const { return source_; }

  /// Throws Error "<source>: <path>: <what>" (the top level when path is empty).
  [[noreturn]] void fail(std::string const& path, std::string const& what) const {
    throw Error(source_ + ": " + (path.empty() ? std::string("top level") : path) + ": " + what);
  }

  /// fail() with "expected <what>, got <the value>".
  [[noreturn]] void expected(std::string const& path, std::string_view what,
                             Json const& got) const {
    fail(path, "expected " + std::string(what) + ", got " + json_path::describe(got));
  }

  /// Checks that `v` is an object whose keys are all in `known`.
  void object(Json const& v, std::string const& path,
              std::initializer_list<std::string_view> known) const {
    if (!v.is_object()) expected(path, "an object", v);
    for (auto const& [key, value] : v.items()) {
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        std::string list;
        for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
        fail(json_path::join(path, key), "unknown key (expected one of " + list + ")");
      }
    }
  }

  /// The member `key`; fails naming what was expected when it is absent. Messages and paths
  /// are built only on failure: a table of 200 000 entries reads millions of members.
  Json const& member(Json const& obj, std::string const& path, std::string_view key,
                     std::string_view what) const {
    auto it = obj.find(key);
    if (it == obj.end()) {
      fail(json_path::join(path, key), "missing (expected " + std::string(what) + ")");
    }
    return *it;
  }

  /// The integer member `key`, within [lo, hi].
  std::int64_t integer(Json const& obj, std::string const& path, std::string_view key,
                       std::int64_t lo, std::int64_t hi) const {
    auto const what = [&] {
      return "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    };
    auto it = obj.find(key);
    if (it == obj.end()) fail(json_path::join(path, key), "missing (expected " + what() + ")");
    Json const& v = *it;
    if (v.is_number_unsigned()) {
      auto const u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(hi) || static_cast<std::int64_t>(u) < lo)
        expected(json_path::join(path, key), what(), v);
      return static_cast<std::int64_t>(u);
    }
    if (v.is_number_integer()) {
      auto const x = v.get<std::int64_t>();
      if (x < lo || x > hi) expected(json_path::join(path, key), what(), v);
      return x;
    }
    expected(json_path::join(path, key), what(), v);
  }

  /// `v` as a finite number > 0.
  double positive(Json const& v, std::string const& path) const {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0.0)
      expected(path, "a number > 0", v);
    return v.get<double>();
  }

  /// The member `key` as a finite number > 0.
  double positive(Json const& obj, std::string const& path, std::string_view key) const {
    Json const& v = member(obj, path, key, "a number > 0");
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0.0)
      expected(json_path::join(path, key), "a number > 0", v);
    return v.get<double>();
  }

  /// A positive number, or nullopt when the key is absent or null.
  std::optional<double> optional_positive(Json const& obj, std::string const& path,
                                          std::string_view key) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return std::nullopt;
    Json const& v = *it;
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0.0)
      expected(json_path::join(path, key), "a number > 0", v);
    return v.get<double>();
  }

  /// The member `key` as a non-empty string of at most max_length bytes.
  std::string text(Json const& obj, std::string const& path, std::string_view key,
                   std::size_t max_length) const {
    auto const what = [&] {
      return "a non-empty string of at most " + std::to_string(max_length) + " characters";
    };
    auto it = obj.find(key);
    if (it == obj.end()) fail(json_path::join(path, key), "missing (expected " + what() + ")");
    Json const& v = *it;
    if (!v.is_string()) expected(json_path::join(path, key), what(), v);
    auto const& s = v.get_ref<std::string const&>();
    if (s.empty() || s.size() > max_length) expected(json_path::join(path, key), what(), v);
    return s;
  }

  /// The member `key`: the name (to_string) of one of `all`. The list for the message is built
  /// only on failure: a large table reads these for every entry.
  template <class E, std::size_t N>
  E named(Json const& obj, std::string const& path, std::string_view key,
          std::array<E, N> const& all) const {
    auto const it = obj.find(key);
    if (it != obj.end() && it->is_string()) {
      for (E e : all) {
        if (it->template get_ref<std::string const&>() == to_string(e)) return e;
      }
    }
    std::string what = "one of";
    for (E e : all) {
      what.append(e == all.front() ? " \"" : ", \"").append(to_string(e)).append("\"");
    }
    if (it == obj.end()) fail(json_path::join(path, key), "missing (expected " + what + ")");
    expected(json_path::join(path, key), what, *it);
  }

  /// The member "precision", one of the precisions' names.
  Precision precision(Json const& obj, std::string const& path) const {
    return named(obj, path, "precision", kAllPrecisions);
  }

  /// The member "layout": NN, NT, TN or TT.
  Layout layout(Json const& obj, std::string const& path) const {
    return named(obj, path, "layout", kAllLayouts);
  }

  /// The member "align": 1, 2, 4, 8 or 16.
  int align(Json const& obj, std::string const& path) const {
    std::string_view const what = "one of 1, 2, 4, 8, 16";
    Json const& v = member(obj, path, "align", what);
    if (v.is_number_integer()) {
      auto const a = v.get<std::int64_t>();
      if (a == 1 || a == 2 || a == 4 || a == 8 || a == 16) return static_cast<int>(a);
    }
    expected(json_path::join(path, "align"), what, v);
  }

  /// The member "kernel": a canonical kernel id, ours or a valid vendor call.
  KernelConfig kernel(Json const& obj, std::string const& path) const {
    auto const p = [&] { return json_path::join(path, "kernel"); };
    std::string const& id = text(obj, path, "kernel", kMaxKernelIdLength);
    KernelConfig cfg;
    try {
      cfg = parse_kernel_id(id);
    } catch (UsageError const& e) {
      fail(p(), e.what());
    }
    // Equal configs must have equal ids everywhere (DB, CLI, logs), so only the canonical
    // spelling is accepted ("BM=0128" names the same config as "BM=128").
    if (cfg.id() != id) {
      fail(p(), "expected the canonical id " + json_path::dump(Json(cfg.id())) + ", got " +
                    json_path::dump(Json(id)));
    }
    if (is_vendor(cfg)) {
      if (std::string const why = vendor_reject_reason(cfg); !why.empty()) fail(p(), why);
    }
    return cfg;
  }

  /// A kernel of ours: vendor ids are refused where only our kernels may stand.
  KernelConfig own_kernel(Json const& obj, std::string const& path) const {
    KernelConfig cfg = kernel(obj, path);
    if (is_vendor(cfg)) {
      fail(json_path::join(path, "kernel"), "one of our kernels, not the vendor call " + cfg.id());
    }
    return cfg;
  }

 private:
  std::string source_;
};

}  // namespace gemmtune
