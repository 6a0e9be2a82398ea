// The URDF converter's shapes (scenes/urdf_converter.hpp): a link's <collision> and
// <visual> elements, and the mesh files they name.
#include <sys/stat.h>

#include <climits>
#include <cmath>
#include <cstdlib>

#include "scenes/urdf_converter.hpp"

namespace appell::urdf_detail {

// the list of shapes of f's body (the world's for "world") in the document
json* Converter::shapes_of(const Frame& f) {
  if (f.body == "world") {
    if (!out_.doc.contains("shapes")) out_.doc["shapes"] = json::array();
    return &out_.doc["shapes"];
  }
  json& body = out_.doc["bodies"][body_index_.at(f.body)];
  if (!body.contains("shapes")) body["shapes"] = json::array();
  return &body["shapes"];
}

// The type and size of geometry g into `shape`; false when it is left out: a missing
// mesh file (a <collision>'s noted in out_.missing_meshes), or a <visual> the model cannot
// draw (never an error).  `what` names the element for the errors of a <collision>.
bool Converter::geometry_shape(const urdf::Geometry& g, const std::string& what, bool visual,
                               json& shape) {
  bool bad = false;
  const auto positive = [&](double v, const char* attr) {
    if (!(std::isfinite(v) && v > 0)) {
      if (visual)
        bad = true;
      else
        fail(what + ": " + attr + " must be finite and > 0, got " + std::to_string(v));
    }
    return v;
  };
  switch (g.type) {
    case urdf::Geometry::SPHERE:
      shape["type"] = "sphere";
      shape["radius"] = positive(static_cast<const urdf::Sphere&>(g).radius, "<sphere radius>");
      break;
    case urdf::Geometry::BOX: {
      const urdf::Vector3& d = static_cast<const urdf::Box&>(g).dim;
      shape["type"] = "box";
      shape["size"] = {positive(d.x, "<box size>"), positive(d.y, "<box size>"),
                       positive(d.z, "<box size>")};
      break;
    }
    case urdf::Geometry::CYLINDER: {
      const auto& cyl = static_cast<const urdf::Cylinder&>(g);
      shape["type"] = "cylinder";
      shape["radius"] = positive(cyl.radius, "<cylinder radius>");
      shape["length"] = positive(cyl.length, "<cylinder length>");
      break;
    }
    case urdf::Geometry::MESH: {
      const auto& mesh = static_cast<const urdf::Mesh&>(g);
      const std::string path = find_mesh(mesh.filename);
      if (path.empty()) {
        // a missing <visual> mesh changes no motion: the report draws the collision
        // shapes instead, without a warning (published URDFs often come without them)
        if (!visual) out_.missing_meshes.push_back(what + " mesh '" + mesh.filename + "'");
        return false;
      }
      shape["type"] = "mesh";
      shape["file"] = path;
      shape["scale"] = {positive(mesh.scale.x, "<mesh scale>"),
                        positive(mesh.scale.y, "<mesh scale>"),
                        positive(mesh.scale.z, "<mesh scale>")};
      break;
    }
    default:
      if (visual) return false;
      fail(what + ": unknown geometry");
  }
  return !bad;
}

// the <collision> (visual false) or <visual> elements of link l as shapes of f's body
template <class Element>
void Converter::add_geometry(const urdf::Link& l, const Frame& f,
                             const std::vector<std::shared_ptr<Element>>& elements, bool visual) {
  json* shapes = shapes_of(f);
  for (size_t i = 0; i < elements.size(); ++i) {
    const Element* c = elements[i].get();
    if (!c || !c->geometry) continue;
    const std::string what = "link '" + l.name + "': " + (visual ? "<visual>" : "<collision>");
    // a <visual> is only drawn: one the model cannot draw is left out, never an error
    if (!finite(c->origin)) {
      if (visual) continue;
      fail(what + " <origin> is not finite");
    }
    json shape = {{"name", l.name + (visual ? "/visual" : "") +
                               (elements.size() > 1 ? "/" + std::to_string(i) : "")}};
    if (!geometry_shape(*c->geometry, what, visual, shape)) continue;
    const Vec3 p = f.p + f.R * vec3(c->origin.position);
    const Quat q(f.R * rotation(c->origin.rotation));
    shape["position"] = to_json(p);
    shape["orientation"] = {{"quaternion", {q.w(), q.x(), q.y(), q.z()}}};
    if (visual) {
      shape["visual"] = true;
      shapes->push_back(shape);
      continue;
    }
    // a robot does not collide with itself (its links overlap at rest where a published
    // model's collision geometry is coarse; Gazebo's self_collide is false by default):
    // group 2, and a mask without it
    shape["group"] = kRobotGroup;
    shape["mask"] = 0xffffffffu & ~kRobotGroup;
    shapes->push_back(shape);
  }
}

// A <mesh filename>: relative to the URDF's folder, absolute, file://, or
// package://PKG/REST found as PKG/REST in the URDF's folder or one above it (or REST in
// a folder above named PKG).  "" when there is no such file.
std::string Converter::find_mesh(const std::string& name) const {
  const auto exists = [](std::string& p) {
    struct stat st;
    if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    char buffer[PATH_MAX];
    if (::realpath(p.c_str(), buffer)) p = buffer;  // the scene reads it as it is
    return true;
  };
  const size_t slash = out_.file.rfind('/');
  std::string dir = slash == std::string::npos ? "." : out_.file.substr(0, slash);
  if (dir.empty()) dir = "/";
  const std::string package = "package://", file = "file://";
  if (name.compare(0, file.size(), file) == 0) {
    std::string p = name.substr(file.size());
    return exists(p) ? p : "";
  }
  if (name.compare(0, package.size(), package) != 0) {
    std::string p = !name.empty() && name[0] == '/' ? name : dir + "/" + name;
    return exists(p) ? p : "";
  }
  const std::string rest = name.substr(package.size());
  const size_t cut = rest.find('/');
  if (cut == std::string::npos) return "";
  const std::string pkg = rest.substr(0, cut), inside = rest.substr(cut + 1);
  // up the folders of the URDF (made absolute), to the root
  char buffer[PATH_MAX];
  std::string at = ::realpath(dir.c_str(), buffer) ? std::string(buffer) : dir;
  for (int up = 0; up < 64; ++up) {
    std::string p = at + "/" + rest;
    if (exists(p)) return p;
    const size_t s = at.rfind('/');
    const std::string base = s == std::string::npos ? at : at.substr(s + 1);
    p = at + "/" + inside;
    if (base == pkg && exists(p)) return p;
    if (s == std::string::npos || at == "/") break;
    at = s == 0 ? "/" : at.substr(0, s);
  }
  return "";
}

// the <collision> elements of link l, whose frame is f, as shapes of f's body (the world
// for "world"), in that body's link frame; then its <visual> elements as shapes only
// drawn ("visual": true, named LINK/visual[/i]): they never collide
void Converter::add_collisions(const urdf::Link& l, const Frame& f) {
  add_geometry(l, f, l.collision_array, false);
  add_geometry(l, f, l.visual_array, true);
}

}  // namespace appell::urdf_detail
