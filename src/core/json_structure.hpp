// What nlohmann's parser does not enforce on JSON text: a depth limit and no duplicate keys,
// with the JSON path of the first offence, in linear time — as a pass that builds nothing, or
// beside the document's construction (a parser callback would do the same checks at many
// times the cost on large inputs: 28 s for a 58 MB table).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gemmtune {

/// Throws Error "<source>: <path>: nested deeper than <max_depth> levels<why>" or
/// "<source>: <path>: duplicate key" for the first offence in `text`. Returns without complaint
/// at a syntax error (the plain parse that follows reports it in its own words).
void check_json_structure(std::string_view text, int max_depth, std::string const& source,
                          std::string const& depth_note = {});

/// The same checks and the document, in one pass (nlohmann's DOM builder driven beside them);
/// J is nlohmann::json or nlohmann::ordered_json (whose objects are vectors: far fewer
/// allocations for many small objects, but a key insert scans the object, so give it
/// `max_keys`: an object with more keys is refused, naming its path). A syntax error throws
/// nlohmann's parse_error, for the caller to word.
template <class J>
J parse_checked_json(std::string_view text, int max_depth, std::string const& source,
                     std::string const& depth_note = {}, std::size_t max_keys = 0);
extern template nlohmann::json parse_checked_json<nlohmann::json>(std::string_view, int,
                                                                  std::string const&,
                                                                  std::string const&, std::size_t);
extern template nlohmann::ordered_json parse_checked_json<nlohmann::ordered_json>(
    std::string_view, int, std::string const&, std::string const&, std::size_t);

}  // namespace gemmtune
