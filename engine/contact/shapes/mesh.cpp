// mesh: the convex hull of `mesh->vertices` (a mesh file's vertices, or a scene's
// "vertices", times "scale"), in the shape frame; its `mesh->faces` only draw it.  Bullet's
// hull of the mesh's hull vertices (at most kMaxHullVertices: its support query is a loop
// over them), with its faces for the polyhedral clipping, one per Mesh.  Against a plane
// it offers every hull vertex (feature: the vertex's index).
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btConvexPolyhedron.h>

#include <Eigen/Eigenvalues>
#include <limits>

#include "engine/contact/shapes/shape_kind.hpp"

namespace appell {

namespace {

// a mesh whose hull has volume: 4 points not in one plane (relative to its size); a
// visual mesh is only drawn: 3 points that do not coincide are enough.  Its vertices are
// finite and its faces in range (make_mesh() checked them); the hull holds the extremes.
std::string mesh_defect(const Shape& s) {
  const Mesh* mesh = s.mesh.get();
  const bool visual = s.visual;
  if (!mesh) return "a mesh shape needs a mesh (make_mesh())";
  const std::vector<Vec3>& v = mesh->hull;
  if (mesh->vertices.size() < (visual ? 3u : 4u))
    return std::string(visual ? "a visual" : "a convex") + " mesh needs at least " +
           (visual ? "3" : "4") + " vertices, got " + std::to_string(mesh->vertices.size());
  if (v.empty()) return "the mesh's vertices all coincide";
  Vec3 lo = v[0], hi = v[0];
  for (const Vec3& p : v) {
    if (!p.allFinite()) return "a vertex of the mesh is not finite";
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  const double size = (hi - lo).norm();
  if (!(size > 0)) return "the mesh's vertices all coincide";
  if (visual) return "";
  Vec3 mean = Vec3::Zero();
  for (const Vec3& p : v) mean += p;
  mean /= static_cast<double>(v.size());
  Mat3 C = Mat3::Zero();
  for (const Vec3& p : v) C += (p - mean) * (p - mean).transpose();
  const double smallest = Eigen::SelfAdjointEigenSolver<Mat3>(C).eigenvalues()(0);
  if (v.size() < 4 || !(smallest > 1e-18 * size * size * static_cast<double>(v.size())))
    return "the mesh's vertices lie in one plane: its convex hull has no volume";
  return "";
}

// the narrowest of the hull's widths along the shape frame's axes
double mesh_thickness(const Shape& s) {
  if (!s.mesh) return std::numeric_limits<double>::infinity();
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (const Vec3& v : s.mesh->hull) {
    lo = lo.cwiseMin(v);
    hi = hi.cwiseMax(v);
  }
  return 0.5 * (hi - lo).minCoeff();
}

std::shared_ptr<btConvexShape> mesh_bullet(const Shape& s, BulletMeshes& meshes) {
  std::shared_ptr<btConvexShape>& shared = meshes[s.mesh.get()];
  if (shared) return shared;
  auto hull = std::make_shared<btConvexHullShape>();
  for (const Vec3& v : s.mesh->hull) hull->addPoint(btVector3(v.x(), v.y(), v.z()), false);
  hull->recalcLocalAabb();
  hull->setMargin(0);
  hull->initializePolyhedralFeatures();
  hull->setMargin(0);
  shared = hull;
  return hull;
}

void mesh_plane_points(const Shape&, PlaneContact& c) {
  const btAlignedObjectArray<btVector3>& vs =
      static_cast<const btPolyhedralConvexShape&>(c.object).getConvexPolyhedron()->m_vertices;
  for (int k = 0; k < vs.size(); ++k) {
    const Vec3 w = c.world(Vec3(vs[k].x(), vs[k].y(), vs[k].z()));
    c.add(w, c.height(w), k);
  }
}

const ShapeKind kMeshKind{
    "mesh",
    {"file", "scale", "vertices", "faces", nullptr},
    R"({"vertices": [[0.3, 0, 0], [-0.2, 0.1, 0], [0, 0.25, 0.1], [0, -0.2, 0.05],)"
    R"( [0.05, 0.02, 0.4], [0.1, 0, -0.15]]})",
    [](const ShapeEntry& in, Shape& s) { s.mesh = in.mesh(); },
    mesh_defect,
    [](const Shape& s) { return s.mesh ? s.mesh->radius : 0.0; },
    mesh_thickness,
    [](const Shape&, ShapeDescription&) {},
    mesh_bullet,
    mesh_plane_points,
};

}  // namespace

const ShapeType ShapeType::ConvexMesh{&kMeshKind};

const ShapeKind& mesh_shape() {
  return kMeshKind;
}

}  // namespace appell
