#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "appell/geometry.hpp"

namespace appell {

const char* shape_type_name(ShapeType t) {
  switch (t) {
    case ShapeType::Plane:
      return "plane";
    case ShapeType::Sphere:
      return "sphere";
    case ShapeType::Capsule:
      return "capsule";
    case ShapeType::Box:
      return "box";
    case ShapeType::Cylinder:
      return "cylinder";
    case ShapeType::ConvexMesh:
      return "mesh";
  }
  return "unknown";
}

bool parse_shape_type(const std::string& name, ShapeType& t) {
  for (ShapeType c : {ShapeType::Plane, ShapeType::Sphere, ShapeType::Capsule, ShapeType::Box,
                      ShapeType::Cylinder, ShapeType::ConvexMesh})
    if (name == shape_type_name(c)) {
      t = c;
      return true;
    }
  return false;
}

namespace {

std::string positive_defect(const char* what, double v) {
  if (std::isfinite(v) && v > 0) return "";
  std::ostringstream os;
  os << what << " must be finite and > 0, got " << v;
  return os.str();
}

// a mesh whose hull has volume: 4 points not in one plane (relative to its size); a
// visual mesh is only drawn: 3 points that do not coincide are enough.  Its vertices are
// finite and its faces in range (make_mesh() checked them); the hull holds the extremes.
std::string mesh_defect(const Mesh* mesh, bool visual) {
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

}  // namespace

std::string shape_defect(const Shape& s) {
  if (!s.position.allFinite()) return "position must be finite";
  if (!s.orientation.coeffs().allFinite() || std::abs(s.orientation.norm() - 1.0) > 1e-9) {
    std::ostringstream os;
    os << "orientation must be a unit quaternion, its norm is " << s.orientation.norm();
    return os.str();
  }
  if (!(std::isfinite(s.friction) && s.friction >= 0)) {
    std::ostringstream os;
    os << "friction must be finite and >= 0, got " << s.friction;
    return os.str();
  }
  if (!(s.restitution >= 0 && s.restitution <= 1)) {
    std::ostringstream os;
    os << "restitution must be in [0, 1], got " << s.restitution;
    return os.str();
  }
  switch (s.type) {
    case ShapeType::Plane:
      return "";
    case ShapeType::Sphere:
      return positive_defect("radius", s.radius);
    case ShapeType::Capsule:
    case ShapeType::Cylinder: {
      const std::string r = positive_defect("radius", s.radius);
      return r.empty() ? positive_defect("length", s.length) : r;
    }
    case ShapeType::Box:
      for (int i = 0; i < 3; ++i) {
        const std::string e = positive_defect("half_extents", s.half_extents(i));
        if (!e.empty()) return e;
      }
      return "";
    case ShapeType::ConvexMesh:
      return mesh_defect(s.mesh.get(), s.visual);
  }
  return "unknown shape type";
}

double pair_friction(const Shape& a, const Shape& b, FrictionRule rule) {
  if (rule == FrictionRule::Max) return std::max(a.friction, b.friction);
  return std::sqrt(a.friction) * std::sqrt(b.friction);  // no overflow for large μ
}

double pair_restitution(const Shape& a, const Shape& b) {
  return std::max(a.restitution, b.restitution);
}

}  // namespace appell
