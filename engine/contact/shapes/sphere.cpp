// sphere: centred at the shape frame's origin, of `radius` (scene key "radius").  Bullet's
// sphere is a point with a margin of the radius: exact.  Against a plane its one point is
// the deepest.
#include <BulletCollision/CollisionShapes/btSphereShape.h>

#include "engine/contact/shapes/shape_kind.hpp"

namespace appell {

namespace {

const ShapeKind kSphereKind{
    "sphere",
    {"radius", nullptr},
    R"({"radius": 0.3})",
    [](const ShapeEntry& in, Shape& s) { s.radius = in.positive("radius"); },
    [](const Shape& s) { return positive_defect("radius", s.radius); },
    [](const Shape& s) { return s.radius; },
    [](const Shape& s) { return s.radius; },
    [](const Shape& s, ShapeDescription& d) { d.number("radius", s.radius); },
    [](const Shape& s, BulletMeshes&) -> std::shared_ptr<btConvexShape> {
      return std::make_shared<btSphereShape>(s.radius);
    },
};

}  // namespace

const ShapeType ShapeType::Sphere{&kSphereKind};

const ShapeKind& sphere_shape() {
  return kSphereKind;
}

}  // namespace appell
