// What the fuzz targets check for one input, shared by the libFuzzer targets (clang, see
// scripts/fuzz.sh) and the corpus replay test (g++, tests/reliability/test_fuzz_replay.cpp).
// A check returns "" when the parser behaved: it either threw gemmtune::Error or returned a
// value that survives a round trip through its own text form. Anything else is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <typeinfo>

#include "src/core/error.hpp"
#include "src/core/kernel_config.hpp"
#include "src/core/problem.hpp"
#include "src/core/tuning_table.hpp"
#include "tuner/worker/worker_protocol.hpp"

namespace gemmtune::fuzz {

inline std::string_view as_text(std::uint8_t const* data, std::size_t size) {
  return {reinterpret_cast<char const*>(data), size};
}

/// Runs `body`; a gemmtune::Error is the expected way to refuse input, any other exception
/// escaping a parser is a finding (the CLI would report it as an internal error).
template <typename Body>
std::string guarded(Body&& body) {
  try {
    return body();
  } catch (Error const& e) {
    std::string_view const what = e.what();
    if (what.empty()) return "gemmtune::Error with an empty message";
    return "";
  } catch (std::exception const& e) {
    return std::string("unexpected ") + typeid(e).name() + ": " + e.what();
  }
}

/// Kernel ids: a parsed id is canonical text of the documented alphabet and re-parses equal.
inline std::string check_kernel_id(std::string_view text) {
  return guarded([&]() -> std::string {
    KernelConfig const cfg = parse_kernel_id(text);
    std::string const id = cfg.id();
    for (char c : id) {
      bool const ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == ':' || c == '=' || c == ',';
      if (!ok) return "parsed id holds a character outside the id alphabet: " + id;
    }
    for (auto const& [name, value] : cfg.params) {
      if (value < 0 || value >= (std::int64_t{1} << 31)) {
        return "parameter " + name + " out of range in " + id;
      }
    }
    if (!(parse_kernel_id(id) == cfg)) return "id does not round-trip: " + id;
    return "";
  });
}

/// Shapes: a parsed shape has every dimension in [1, kMaxDim] and re-parses equal.
inline std::string check_shape(std::string_view text) {
  return guarded([&]() -> std::string {
    Problem const p = parse_shape(text);
    for (std::int64_t d : {p.m, p.n, p.k}) {
      if (d < 1 || d > kMaxDim) return "dimension out of range in " + p.shape();
    }
    if (!(parse_shape(p.shape()) == p)) return "shape does not round-trip: " + p.shape();
    return "";
  });
}

/// Tuning tables: a table the reader accepts is written and read back unchanged.
inline std::string check_tuning_table(std::string_view text) {
  return guarded([&]() -> std::string {
    TuningTable const table = parse_tuning_table(text, "fuzz");
    std::string const written = format_tuning_table(table);
    TuningTable const again = parse_tuning_table(written, "fuzz round trip");
    if (!(again == table)) return "table does not round-trip through its writer";
    return "";
  });
}

/// Worker frames: a body the reader accepts is a JSON object that survives its own dump, and
/// no nesting or duplicate key gets past the structure check.
inline std::string check_frame(std::string_view body) {
  return guarded([&]() -> std::string {
    nlohmann::json const message = parse_frame_body(body);
    if (!message.is_object()) return "accepted frame is not an object";
    if (!(parse_frame_body(message.dump()) == message)) return "frame does not round-trip";
    return "";
  });
}

}  // namespace gemmtune::fuzz
