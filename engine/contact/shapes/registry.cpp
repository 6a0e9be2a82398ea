// The collision shape types, one line each (appell/shape_types.hpp,
// engine/contact/shapes/shape_kind.hpp).  Their order is the order errors list them in.
#include <algorithm>
#include <sstream>

#include "engine/contact/shapes/shape_kind.hpp"

namespace appell {

const ShapeKind& plane_shape();     // plane.cpp
const ShapeKind& sphere_shape();    // sphere.cpp
const ShapeKind& capsule_shape();   // capsule.cpp
const ShapeKind& box_shape();       // box.cpp
const ShapeKind& cylinder_shape();  // cylinder.cpp
const ShapeKind& mesh_shape();      // mesh.cpp

const std::vector<ShapeType>& shape_types() {
  static const std::vector<ShapeType> kAll = {
      ShapeType(&plane_shape()),     //
      ShapeType(&sphere_shape()),    //
      ShapeType(&capsule_shape()),   //
      ShapeType(&box_shape()),       //
      ShapeType(&cylinder_shape()),  //
      ShapeType(&mesh_shape()),      //
  };
  return kAll;
}

const char* shape_type_name(ShapeType t) {
  return t.kind().name;
}

bool parse_shape_type(const std::string& name, ShapeType& t) {
  for (ShapeType c : shape_types())
    if (name == c.kind().name) {
      t = c;
      return true;
    }
  return false;
}

std::string shape_type_names() {
  const std::vector<ShapeType>& all = shape_types();
  std::string out;
  for (size_t k = 0; k < all.size(); ++k)
    out += std::string(k == 0 ? "" : k + 1 == all.size() ? " or " : ", ") + all[k].kind().name;
  return out;
}

std::vector<std::string> shape_keys(ShapeType t) {
  std::vector<std::string> out;
  for (const char* const* k = t.kind().keys; *k; ++k) out.push_back(*k);
  return out;
}

std::vector<std::string> shape_parameter_keys() {
  std::vector<std::string> out;
  for (ShapeType t : shape_types())
    for (const std::string& k : shape_keys(t))
      if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  return out;
}

void read_shape_sizes(const ShapeEntry& in, Shape& s) {
  s.type.kind().read(in, s);
}

double shape_reach(const Shape& s) {
  return s.type.kind().reach(s);
}

double shape_thickness(const Shape& s) {
  return s.type.kind().thickness(s);
}

ShapeDescription describe_shape(const Shape& s) {
  ShapeDescription d;
  s.type.kind().describe(s, d);
  return d;
}

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
  return s.type.kind().defect(s);
}

}  // namespace appell
