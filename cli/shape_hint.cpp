// Other precisions and layouts of one shape, named for the user.
#include "cli/shape_hint.hpp"

#include <set>
#include <utility>

namespace gemmtune {

std::string other_variants_hint(Problem const& asked, std::vector<Problem> const& held,
                                std::string const& where) {
  std::set<std::pair<int, int>> variants;  // (precision, layout), in enum order
  for (Problem const& p : held) {
    if (p.m != asked.m || p.n != asked.n || p.k != asked.k) continue;
    if (p.precision == asked.precision && p.layout == asked.layout) continue;
    variants.emplace(static_cast<int>(p.precision), static_cast<int>(p.layout));
  }
  if (variants.empty()) return {};
  std::string names;
  for (auto const& [precision, layout] : variants) {
    if (!names.empty()) names += ", ";
    names += std::string(to_string(static_cast<Precision>(precision))) + " " +
             std::string(to_string(static_cast<Layout>(layout)));
  }
  return where + " has " + asked.shape() + " in " + names +
         " (choose with --precision and --layout)";
}

}  // namespace gemmtune
