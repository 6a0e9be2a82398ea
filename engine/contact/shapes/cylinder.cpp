// cylinder: axis z of the shape frame, centred, of `radius` and total `length` (scene keys
// "radius", "length").  Bullet's cylinder with no margin.  Against a plane it offers its
// two rims' points at 8 angles (features 0–15) and, where it is tilted so that its
// deepest point lies between them, that point (feature 16).
#include <BulletCollision/CollisionShapes/btCylinderShape.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/contact/shapes/shape_kind.hpp"

namespace appell {

namespace {

std::string cylinder_defect(const Shape& s) {
  const std::string r = positive_defect("radius", s.radius);
  return r.empty() ? positive_defect("length", s.length) : r;
}

std::shared_ptr<btConvexShape> cylinder_bullet(const Shape& s, BulletMeshes&) {
  auto cyl = std::make_shared<btCylinderShapeZ>(btVector3(s.radius, s.radius, s.length / 2));
  cyl->setMargin(0);
  return cyl;
}

void cylinder_plane_points(const Shape& s, PlaneContact& c) {
  double lowest_rim = std::numeric_limits<double>::infinity();
  for (int k = 0; k < 16; ++k) {
    const double angle = (k % 8) * M_PI / 4;
    const Vec3 local(s.radius * std::cos(angle), s.radius * std::sin(angle),
                     k < 8 ? -s.length / 2 : s.length / 2);
    const Vec3 w = c.world(local);
    const double g = c.height(w);
    lowest_rim = std::min(lowest_rim, g);
    c.add(w, g, k);
  }
  if (c.low < lowest_rim - 1e-12 * (1 + s.radius + s.length)) c.add(c.deepest, c.low, 16);
}

const ShapeKind kCylinderKind{
    "cylinder",
    {"radius", "length", nullptr},
    R"({"radius": 0.25, "length": 0.6})",
    [](const ShapeEntry& in, Shape& s) {
      s.radius = in.positive("radius");
      s.length = in.positive("length");
    },
    cylinder_defect,
    [](const Shape& s) { return std::hypot(s.radius, 0.5 * s.length); },
    [](const Shape& s) { return std::min(s.radius, 0.5 * s.length); },
    [](const Shape& s, ShapeDescription& d) {
      d.number("radius", s.radius);
      d.number("length", s.length);
    },
    cylinder_bullet,
    cylinder_plane_points,
};

}  // namespace

const ShapeType ShapeType::Cylinder{&kCylinderKind};

const ShapeKind& cylinder_shape() {
  return kCylinderKind;
}

}  // namespace appell
