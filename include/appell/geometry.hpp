// Collision shapes on bodies: what the contact detector (appell/contact.hpp) tests.
//
//   appell::Shape box;
//   box.type = appell::ShapeType::Box;
//   box.half_extents = appell::Vec3(0.2, 0.1, 0.05);
//   box.body = arm;                        // or kWorld: fixed in the world (a ground plane)
//   box.position = appell::Vec3(0, 0, -0.3);  // in the body frame (below)
//   builder.add_shape(box);
//
// A shape's frame sits at `position`, turned by `orientation`, in its body's frame: the
// engine's body frame, origin at the centre of mass, axes those of the body's rotation Q
// (appell/body.hpp); in the world frame for kWorld.  Its world pose at a body state s is
//   x = s.x + s.Q position,   R = s.Q R(orientation).
// (A scene's body with "com" gives its shapes in its link frame; the loader subtracts com.)
//
// In the shape frame:
//   Plane       the plane z = 0; the solid is the half-space z ≤ 0, its normal +z
//   Sphere      centre at the origin, `radius`
//   Capsule     the segment from (0, 0, −length/2) to (0, 0, length/2) swept by a sphere of
//               `radius` (`length` between the centres of the two caps)
//   Box         centred, `half_extents` along x, y, z
//   Cylinder    axis z, centred, `radius`, total `length`
//   ConvexMesh  the convex hull of `mesh->vertices` (a mesh file's vertices, scaled);
//               `mesh->faces`, the file's triangles, only draw it (reports) and give an
//               MJCF geom its volume; `mesh->hull`, at most kMaxHullVertices of the
//               hull's vertices, is what collides (see Mesh below)
//
// A shape with `visual` set is drawn by reports and never collides: ModelBuilder::add_shape
// keeps it apart, in Model::visuals(), not in Model::shapes() (URDF <visual>, MJCF geoms
// with contype = conaffinity = 0).  Its friction, restitution and filters mean nothing.
//
// A pair of shapes is tested when neither is a plane fixed in the world with the other,
// their bodies differ and are not welded together (one composite, appell/model.hpp), no
// joint of the model joins their two bodies (parent and child, a free joint excepted: it
// constrains nothing; `collide_with_joined` lifts that for a pair where either shape sets
// it), and the filters agree:
//   (a.group & b.mask) != 0  and  (b.group & a.mask) != 0.
// Two planes never touch.  The pair's Coulomb μ and Newton's e combine the shapes' as
//   μ = √(μa μb)  (FrictionRule::Geometric, the default: equal coefficients give
//                  themselves; a frictionless shape, μ = 0, makes the pair frictionless)
//   μ = max(μa, μb)  (FrictionRule::Max, MuJoCo's rule: an MJCF model's; the pair is as
//                  rough as its rougher shape)
//   e = max(ea, eb)  (a bouncing ball bounces on any floor)
// (pair_friction(), pair_restitution()).  The rule is the model's (ModelBuilder::
// friction_rule, the scene's "contact": {"friction": "geometric" | "max"}).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "appell/body.hpp"

namespace appell {

struct ShapeKind;  // one shape type (engine/contact/shapes/shape_kind.hpp; private)

// A shape's type: a handle on its registered ShapeKind (engine/contact/shapes/, one file
// each, listed once in registry.cpp), which answers every question about the shape that
// depends on what it is (appell/shape_types.hpp: its name, scene keys, checks, reach,
// report description; privately its Bullet object).  Compared by identity.  The named
// ones below are those built in; any registered type is found by name (parse_shape_type).
class ShapeType {
 public:
  constexpr explicit ShapeType(const ShapeKind* kind) : kind_(kind) {}
  const ShapeKind& kind() const { return *kind_; }
  friend bool operator==(ShapeType a, ShapeType b) { return a.kind_ == b.kind_; }
  friend bool operator!=(ShapeType a, ShapeType b) { return a.kind_ != b.kind_; }

  static const ShapeType Plane, Sphere, Capsule, Box, Cylinder, ConvexMesh;

 private:
  const ShapeKind* kind_;
};

// The most vertices a mesh's collision hull keeps (Mesh::hull).
constexpr int kMaxHullVertices = 1024;

// A mesh: its vertices and triangles, and the vertices of its convex hull, built once by
// make_mesh() and shared, constant, by every shape that uses it (an MJCF asset placed by
// 2,000 geoms is one Mesh).  Contact queries read `hull` only, so their cost depends on
// its size (at most kMaxHullVertices), never on the file's.
struct Mesh {
  std::vector<Vec3> vertices;             // finite
  std::vector<std::array<int, 3>> faces;  // indices into vertices, in range
  std::vector<Vec3> hull;                 // the hull's vertices (see make_mesh)
  double radius = 0.0;                    // max |v| over vertices
};

// The mesh of `vertices` and `faces` with its hull: Bullet's convex hull computer
// (O(n log n)).  A hull of more than kMaxHullVertices vertices is simplified to its vertex
// farthest along each of 6·13² = 1014 directions (the cells of a cube map around the hull's
// centroid, each vertex in the cell its direction falls in; cells about 7° wide): an inner
// approximation whose vertices are hull vertices, O(hull).  Above 65536 vertices the hull
// is taken of the vertices farthest out in each of 6·64² = 24576 such cells (about 1.4°
// wide), so that the work stays O(n) plus a hull of at most 24576 points.  Throws
// std::invalid_argument
// ("make_mesh(): ...") on a vertex that is not finite or a face naming a vertex out of range.
std::shared_ptr<const Mesh> make_mesh(std::vector<Vec3> vertices,
                                      std::vector<std::array<int, 3>> faces = {});

struct Shape {
  std::string name;  // for outputs and errors; may be empty (then "shape<i>")
  ShapeType type = ShapeType::Sphere;
  int body = kWorld;                    // the body carrying it; kWorld: fixed in the world
  Vec3 position = Vec3::Zero();         // of the shape frame, in the body frame
  Quat orientation = Quat::Identity();  // of the shape frame, in the body frame (unit)
  double radius = 0.0;                  // Sphere, Capsule, Cylinder
  double length = 0.0;                  // Capsule (between cap centres), Cylinder (total)
  Vec3 half_extents = Vec3::Zero();     // Box
  std::shared_ptr<const Mesh> mesh;     // ConvexMesh, in the shape frame (scale applied)
  double friction = 0.5;                // Coulomb μ ≥ 0
  double restitution = 0.0;             // Newton's e in [0, 1]
  std::uint32_t group = 1;              // the bits this shape is in
  std::uint32_t mask = 0xffffffffu;     // the bits it collides with
  bool collide_with_joined = false;     // also test it against bodies a joint joins to its own
  bool visual = false;                  // drawn only, never collides (see above)
};

// "plane", "sphere", "capsule", "box", "cylinder", "mesh": the type's name in scenes
const char* shape_type_name(ShapeType t);
// The registered type named `name`; false when there is none.
bool parse_shape_type(const std::string& name, ShapeType& t);

// The largest distance of a point of s from its frame's origin (0 for a plane, which has
// no extent of its own): how far a point of the shape moves when it turns.  O(1).
double shape_reach(const Shape& s);
// Half the shape's smallest extent: how deep another shape can go into it before its
// nearest way out is through the far side (a plane: infinite, it has no far side).  O(1);
// a mesh O(hull).
double shape_thickness(const Shape& s);

// What is wrong with s ("radius must be finite and > 0, got -1"), or "" when it is valid:
// sizes finite and positive, μ finite and ≥ 0, e in [0, 1], a unit orientation (within
// 1e-9), a finite position, a mesh (made by make_mesh()) whose hull has at least 4
// vertices not all in one plane (a visual mesh: at least 3 that do not coincide).  O(hull).
// The body index is the builder's to check.
std::string shape_defect(const Shape& s);

// How a pair's μ comes from its two shapes' (see above).
enum class FrictionRule { Geometric, Max };

// The pair's coefficients (see above).
double pair_friction(const Shape& a, const Shape& b, FrictionRule rule = FrictionRule::Geometric);
double pair_restitution(const Shape& a, const Shape& b);

}  // namespace appell
