// What the contact detector (collision.cpp) shares with its test of two convex shapes
// (collision_convex.cpp): a shape's Bullet object and world pose at a query, the collector of
// Bullet's clipped points and the contact point of a pair.  Private to those files.
#pragma once

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/CollisionShapes/btConvexPolyhedron.h>
#include <BulletCollision/NarrowPhaseCollision/btDiscreteCollisionDetectorInterface.h>
#include <BulletCollision/NarrowPhaseCollision/btPolyhedralContactClipping.h>

#include <memory>
#include <vector>

#include "appell/model.hpp"
#include "engine/contact/shapes/shape_kind.hpp"

namespace appell::collision_detail {

inline btVector3 bt(const Vec3& v) {
  return btVector3(v.x(), v.y(), v.z());
}
inline Vec3 eig(const btVector3& v) {
  return Vec3(v.x(), v.y(), v.z());
}
inline btTransform bt(const Mat3& R, const Vec3& x) {
  return btTransform(
      btMatrix3x3(R(0, 0), R(0, 1), R(0, 2), R(1, 0), R(1, 1), R(1, 2), R(2, 0), R(2, 1), R(2, 2)),
      bt(x));
}

// Collects the points Bullet's clipping reports: on b's face, depth against a's.
struct ClipResult final : btDiscreteCollisionDetectorInterface::Result {
  struct Point {
    Vec3 on_b;
    Vec3 n;  // from a to b (Bullet's normal is on b, pointing to a)
    double depth;
  };
  std::vector<Point> points;
  void setShapeIdentifiersA(int, int) override {}
  void setShapeIdentifiersB(int, int) override {}
  void addContactPoint(const btVector3& normal_on_b, const btVector3& p, btScalar depth) override {
    points.push_back({eig(p), -eig(normal_on_b), depth});
  }
};

// One shape of the detector: its Bullet object and its pose at the current query
struct DetectorEntry {
  int body = kWorld;
  Mat3 R0 = Mat3::Identity();                      // the shape frame in the body frame
  std::shared_ptr<btConvexShape> shape;            // null for a plane; meshes share
  const btConvexPolyhedron* polyhedron = nullptr;  // boxes and meshes: faces for clipping
  const ShapeKind* kind = nullptr;                 // its type
  btBroadphaseProxy* proxy = nullptr;
  // world pose at this query: x always, R and tr once a pair needs them (posed)
  const BodyState* state = nullptr;  // the body's state at this query; null: the world
  Mat3 R = Mat3::Identity();
  Vec3 x = Vec3::Zero();
  btTransform tr;
  bool posed = false;
  btVector3 lo, hi;     // its box at this query, grown by half the margin (with a proxy)
  double radius = 0.0;  // of a sphere about x holding the shape
  bool finite = true;
};

// The storage a pair's test reuses from query to query
struct PairScratch {
  ClipResult clip;
  btVertexArray verts1, verts2;
};

// the contact point of shapes a < b
ContactPoint pair_point(const Model& m, int a, int b, const Vec3& at, const Vec3& normal,
                        double gap, int feature);

// The points of two convex shapes a < b (ea, eb their entries) within the margin, into `out`
void convex_pair(const Model& m, const DetectorEntry& ea, const DetectorEntry& eb, int a, int b,
                 double margin, PairScratch& scratch, std::vector<ContactPoint>& out);

}  // namespace appell::collision_detail
