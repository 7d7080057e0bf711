// ParamGrid: each family's parameters and their declared values, in order. It is all a guided
// strategy knows of the space: "a neighbouring value" is the next one in declared order.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/kernel_config.hpp"

namespace gemmtune {

class Family;

/// One parameter of a family and its values in declared order.
struct ParamAxis {
  std::string name;
  std::vector<std::int64_t> values;
};

/// The parameter axes of each family.
class ParamGrid {
 public:
  /// Sets a family's axes, in the family's canonical parameter order.
  void set_family(std::string family, std::vector<ParamAxis> axes);
  /// The axes of a family, or nullptr when the grid does not know it.
  std::vector<ParamAxis> const* axes(std::string_view family) const;
  bool empty() const { return families_.empty(); }

  /// The declared axes of `families` (Family::params()).
  static ParamGrid of_families(std::vector<Family const*> const& families);
  /// A grid read off configs alone, for data without family descriptors (replay): each
  /// parameter's distinct values, ascending, in the order parameters first appear.
  static ParamGrid of_configs(std::vector<KernelConfig> const& configs);

 private:
  std::map<std::string, std::vector<ParamAxis>, std::less<>> families_;
};

}  // namespace gemmtune
