// The pair rules of appell/geometry.hpp; what depends on a shape's type is its type's
// (engine/contact/shapes/).
#include <algorithm>
#include <cmath>

#include "appell/geometry.hpp"

namespace appell {

double pair_friction(const Shape& a, const Shape& b, FrictionRule rule) {
  if (rule == FrictionRule::Max) return std::max(a.friction, b.friction);
  return std::sqrt(a.friction) * std::sqrt(b.friction);  // no overflow for large μ
}

double pair_restitution(const Shape& a, const Shape& b) {
  return std::max(a.restitution, b.restitution);
}

}  // namespace appell
