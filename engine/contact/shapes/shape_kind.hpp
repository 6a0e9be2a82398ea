// A collision shape type (appell/geometry.hpp's ShapeType points at one; the public
// questions are appell/shape_types.hpp's): its name and scene keys, how it reads and checks
// its sizes, its reach and thickness, its report description, its Bullet object and the
// points it offers a plane.  Private to the library.
//
//   engine/contact/shapes/registry.cpp    the table: one line per type
//   engine/contact/shapes/<name>.cpp      one type
//
// The contact detector (engine/contact/collision.cpp) builds each shape's Bullet object
// once and asks its type for its points against a plane once per plane pair and query (a
// call through a pointer where a switch on the type was); the broad phase reads Bullet's
// box of that object.  The moreau stepper reads the reach once per model and the
// thickness per deep contact.
#pragma once

#include <cmath>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "appell/contact.hpp"
#include "appell/shape_types.hpp"

class btConvexShape;

namespace appell {

// Bullet's objects of the meshes, one per Mesh: the shapes that share a Mesh share it.
using BulletMeshes = std::map<const Mesh*, std::shared_ptr<btConvexShape>>;

// A convex shape within the margin of a plane, as the detector gives it to the shape's
// type: the shape's world pose, the plane, and the detector's deepest point.  The type
// adds its points nearest the plane (box corners, rims, ends) with their heights above it;
// add() keeps those within the margin (engine/contact/collision.cpp).
class PlaneContact {
 public:
  const Mat3& R;                // the shape frame in the world
  const Vec3& x;                // its origin in the world
  const Vec3& n;                // the plane's outward normal
  double c;                     // n · (a point of the plane)
  const Vec3& deepest;          // the shape's support point along −n (Bullet's)
  double low;                   // its height above the plane
  const btConvexShape& object;  // the shape's Bullet object

  // the point w on the shape (world) at height `gap` above the plane, with its feature
  // number (what identifies it from one query to the next): kept when within the margin
  void add(const Vec3& w, double gap, int feature) {
    if (gap < margin) keep(w, gap, feature);
  }
  // the world point of the shape-frame point `local`, and a world point's height
  Vec3 world(const Vec3& local) const { return x + R * local; }
  double height(const Vec3& w) const { return n.dot(w) - c; }

  // the detector's: where the points go
  const Model* model;
  int a, b;       // the pair's shapes, a < b
  Vec3 normal;    // the contact normal, from a to b (±n)
  double margin;  // the query's
  std::vector<ContactPoint>* out;

 private:
  void keep(const Vec3& w, double gap, int feature);
};

struct ShapeKind {
  const char* name;     // in scenes ("type") and outputs
  const char* keys[5];  // its scene keys for its sizes (null after the last)
  // those keys of one valid shape, as a scene gives them: what tests/shape_types_test.cpp
  // builds of every registered type
  const char* example;
  // its sizes from the scene entry (the keys above; the loader refuses any other)
  void (*read)(const ShapeEntry& in, Shape& s);
  // what is wrong with s's sizes ("radius must be finite and > 0, got -1"), or ""
  std::string (*defect)(const Shape& s);
  double (*reach)(const Shape& s);      // shape_reach()
  double (*thickness)(const Shape& s);  // shape_thickness()
  // what a report draws besides the pose (a mesh's triangles aside: every shape with one)
  void (*describe)(const Shape& s, ShapeDescription& out);
  // Bullet's object of s (no collision margin where the margin is not the shape itself);
  // null for a half-space (a plane), which the detector pairs with every other shape
  std::shared_ptr<btConvexShape> (*bullet)(const Shape& s, BulletMeshes& meshes) = nullptr;
  // its points against a plane; null: the deepest point alone (feature 0)
  void (*plane_points)(const Shape& s, PlaneContact& c) = nullptr;
};

// "what must be finite and > 0, got v", or "" when v is
inline std::string positive_defect(const char* what, double v) {
  if (std::isfinite(v) && v > 0) return "";
  std::ostringstream os;
  os << what << " must be finite and > 0, got " << v;
  return os.str();
}

}  // namespace appell
