// box: centred at the shape frame's origin, `half_extents` along its x, y, z (scene key
// "size": the full edges).  Bullet's box with no margin, with its faces for the polyhedral
// clipping; two overlapping boxes meet through Bullet's box–box detector
// (engine/contact/collision_convex.cpp).  Against a plane it offers its 8 corners
// (features 0–7).
#include <BulletCollision/CollisionShapes/btBoxShape.h>

#include "engine/contact/shapes/shape_kind.hpp"

namespace appell {

namespace {

std::string box_defect(const Shape& s) {
  for (int i = 0; i < 3; ++i) {
    const std::string e = positive_defect("half_extents", s.half_extents(i));
    if (!e.empty()) return e;
  }
  return "";
}

std::shared_ptr<btConvexShape> box_bullet(const Shape& s, BulletMeshes&) {
  const Vec3& h = s.half_extents;
  auto box = std::make_shared<btBoxShape>(btVector3(h.x(), h.y(), h.z()));
  box->setMargin(0);
  box->initializePolyhedralFeatures();
  box->setMargin(0);
  return box;
}

void box_plane_points(const Shape&, PlaneContact& c) {
  // corner k = (∓h_x, ∓h_y, ∓h_z) by its bits, as Bullet numbers them (btBoxShape::getVertex);
  // its height is the centre's plus ± h_i (n · R e_i): the heights first, the world point
  // only of a corner within the margin
  const auto& box = static_cast<const btBoxShape&>(c.object);
  const btVector3 e = box.getHalfExtentsWithMargin();
  const Vec3 h(e.x(), e.y(), e.z());
  const Vec3 along = (c.R.transpose() * c.n).cwiseProduct(h);  // h_i (n · R e_i)
  const double centre = c.height(c.x);
  for (int k = 0; k < 8; ++k) {
    const Vec3 sign((k & 1) ? -1.0 : 1.0, (k & 2) ? -1.0 : 1.0, (k & 4) ? -1.0 : 1.0);
    const double gap = centre + sign.dot(along);
    if (gap < c.margin) c.add(c.world(sign.cwiseProduct(h)), gap, k);
  }
}

const ShapeKind kBoxKind{
    "box",
    {"size", nullptr},
    R"({"size": [0.2, 0.5, 0.9]})",
    [](const ShapeEntry& in, Shape& s) { s.half_extents = 0.5 * in.positive3("size"); },
    box_defect,
    [](const Shape& s) { return s.half_extents.norm(); },
    [](const Shape& s) { return s.half_extents.minCoeff(); },
    [](const Shape& s, ShapeDescription& d) { d.vector("size", 2 * s.half_extents); },
    box_bullet,
    box_plane_points,
};

}  // namespace

const ShapeType ShapeType::Box{&kBoxKind};

const ShapeKind& box_shape() {
  return kBoxKind;
}

}  // namespace appell
