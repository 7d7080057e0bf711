// ParamGrid construction from family descriptors or from configs.
#include "tuner/search/param_grid.hpp"

#include <algorithm>

#include "src/kernels/family.hpp"

namespace gemmtune {

void ParamGrid::set_family(std::string family, std::vector<ParamAxis> axes) {
  families_[std::move(family)] = std::move(axes);
}

std::vector<ParamAxis> const* ParamGrid::axes(std::string_view family) const {
  auto const it = families_.find(family);
  return it == families_.end() ? nullptr : &it->second;
}

ParamGrid ParamGrid::of_families(std::vector<Family const*> const& families) {
  ParamGrid g;
  for (Family const* f : families) {
    std::vector<ParamAxis> axes;
    for (ParamSpec const& p : f->params()) axes.push_back({p.name, p.values});
    g.set_family(std::string(f->name()), std::move(axes));
  }
  return g;
}

ParamGrid ParamGrid::of_configs(std::vector<KernelConfig> const& configs) {
  ParamGrid g;
  for (KernelConfig const& c : configs) {
    auto& axes = g.families_[c.family];
    for (auto const& [name, value] : c.params) {
      auto it = std::find_if(axes.begin(), axes.end(),
                             [&](ParamAxis const& a) { return a.name == name; });
      if (it == axes.end()) {
        axes.push_back({name, {}});
        it = axes.end() - 1;
      }
      auto const pos = std::lower_bound(it->values.begin(), it->values.end(), value);
      if (pos == it->values.end() || *pos != value) it->values.insert(pos, value);
    }
  }
  return g;
}

}  // namespace gemmtune
