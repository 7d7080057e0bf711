// The kernel templates compiled into the binary: lookup by path, the list of paths, and the
// provenance hash of a template together with the common/ headers it may include.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gemmtune {

/// Text of an embedded file by its path relative to kernel_templates/ (e.g. "ladder/naive.cuh",
/// "common/gemm_args.cuh"), or nullopt when no such file was embedded.
std::optional<std::string_view> embedded_source(std::string_view path);

/// Every embedded path, sorted.
std::vector<std::string> embedded_paths();

/// Hex hash of the template file plus every embedded common/ header (path and text), stored as
/// provenance so results from an edited template are never reused. Throws Error for a path
/// that was not embedded.
std::string template_hash(std::string_view path);

}  // namespace gemmtune
