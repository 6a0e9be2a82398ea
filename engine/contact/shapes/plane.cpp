// plane: the plane z = 0 of the shape frame, the solid the half-space z ≤ 0 below it, its
// outward normal +z.  No sizes, no Bullet object: the detector pairs a plane with every
// other shape and takes that shape's points against it (PlaneContact); two planes never
// touch.  A plane has no far side (infinite thickness) and no extent of its own (a plane
// on a body sweeps at its origin's pace).
#include <limits>

#include "engine/contact/shapes/shape_kind.hpp"

namespace appell {

namespace {

const ShapeKind kPlaneKind{
    "plane",
    {nullptr},
    R"({})",
    [](const ShapeEntry&, Shape&) {},
    [](const Shape&) { return std::string(); },
    [](const Shape&) { return 0.0; },
    [](const Shape&) { return std::numeric_limits<double>::infinity(); },
    [](const Shape&, ShapeDescription&) {},
};

}  // namespace

const ShapeType ShapeType::Plane{&kPlaneKind};

const ShapeKind& plane_shape() {
  return kPlaneKind;
}

}  // namespace appell
