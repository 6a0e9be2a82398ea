// capsule: the segment from (0, 0, −length/2) to (0, 0, length/2) of the shape frame swept
// by a sphere of `radius` (scene keys "radius", "length": between the centres of the two
// caps).  Bullet's capsule is that segment with a margin of the radius: exact.  Against a
// plane it offers the two ends' lowest points (features 0 and 1); along a box's or a
// mesh's face the detector measures its two ends' spheres (engine/contact/collision_convex.cpp).
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>

#include <cmath>

#include "engine/contact/shapes/shape_kind.hpp"

namespace appell {

namespace {

std::string capsule_defect(const Shape& s) {
  const std::string r = positive_defect("radius", s.radius);
  return r.empty() ? positive_defect("length", s.length) : r;
}

// the lowest point of each end's sphere
void capsule_plane_points(const Shape& s, PlaneContact& c) {
  for (int k = 0; k < 2; ++k) {
    const Vec3 end = c.x + c.R.col(2) * (k ? s.length / 2 : -s.length / 2);
    c.add(end - s.radius * c.n, c.n.dot(end) - s.radius - c.c, k);
  }
}

const ShapeKind kCapsuleKind{
    "capsule",
    {"radius", "length", nullptr},
    R"({"radius": 0.2, "length": 0.7})",
    [](const ShapeEntry& in, Shape& s) {
      s.radius = in.positive("radius");
      s.length = in.positive("length");
    },
    capsule_defect,
    [](const Shape& s) { return s.radius + 0.5 * s.length; },
    [](const Shape& s) { return s.radius; },
    [](const Shape& s, ShapeDescription& d) {
      d.number("radius", s.radius);
      d.number("length", s.length);
    },
    [](const Shape& s, BulletMeshes&) -> std::shared_ptr<btConvexShape> {
      return std::make_shared<btCapsuleShapeZ>(s.radius, s.length);
    },
    capsule_plane_points,
};

}  // namespace

const ShapeType ShapeType::Capsule{&kCapsuleKind};

const ShapeKind& capsule_shape() {
  return kCapsuleKind;
}

}  // namespace appell
