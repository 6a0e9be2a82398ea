#include "appell/body.hpp"

namespace appell {

const BodyState& StateView::body(int b) const {
  static const BodyState kResting{};  // the world: at the origin, unrotated, at rest (constant)
  return b == kWorld ? kResting : bodies[b];
}

}  // namespace appell
