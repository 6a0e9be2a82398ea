// The geometry the report's animation draws: one shape per body, the attachment points of
// the constraints and springs, and which way is up.  Read from the scene file itself (the
// Model keeps inertia tensors, not shapes); the loader has already validated it.
#include <Eigen/Eigenvalues>
#include <fstream>

#include "cli/report.hpp"

namespace appell::cli {

using nlohmann::json;

namespace {

json vec(const Vec3& v) {
  return json::array({v.x(), v.y(), v.z()});
}

// The solid box with the same mass and principal moments: for edges a, b, c along the
// principal axes, I1 = m (b² + c²) / 12 and cyclically, so a² = 6 (I2 + I3 − I1) / m.
json equivalent_box(const Body& b) {
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(b.inertia);
  const Vec3 I = eig.eigenvalues();
  Mat3 R = eig.eigenvectors();
  if (R.determinant() < 0) R.col(2) *= -1;
  Vec3 edge;
  for (int k = 0; k < 3; ++k) {
    const double s = I((k + 1) % 3) + I((k + 2) % 3) - I(k);
    edge(k) = std::sqrt(std::max(6.0 * s / b.mass, 0.0));
  }
  // a thin rod or plate still shows its thickness
  edge = edge.cwiseMax(0.05 * edge.maxCoeff());
  const Quat q(R);
  return {{"kind", "box"}, {"size", vec(edge)}, {"q", {q.w(), q.x(), q.y(), q.z()}}};
}

// {"box": [a, b, c]} | {"sphere": r} | {"cylinder": [r, h]} → the animation's shape
json shape_of(const json& j) {
  for (const char* kind : {"box", "sphere", "cylinder"})
    if (j.contains(kind)) {
      json size = j[kind];
      if (!size.is_array()) size = json::array({size});
      return {{"kind", kind}, {"size", size}, {"q", {1, 0, 0, 0}}};
    }
  return nullptr;
}

json body_shape(const Body& b, const json& raw) {
  if (raw.contains("visual")) return shape_of(raw["visual"]);
  if (!b.rigid()) return {{"kind", "particle"}};
  if (raw.contains("inertia")) {
    json s = shape_of(raw["inertia"]);
    if (!s.is_null()) return s;
  }
  return equivalent_box(b);
}

json point(const Model& m, const json& body_name, const Vec3& p) {
  return {{"body", m.body_index(body_name.get<std::string>())}, {"p", vec(p)}};
}

Vec3 as_vec3(const json& j) {
  return Vec3(j[0].get<double>(), j[1].get<double>(), j[2].get<double>());
}

// the centre of mass of a named body at t = 0 (the origin for the world)
Vec3 centre(const Model& m, const json& body_name) {
  const int b = m.body_index(body_name.get<std::string>());
  return b < 0 ? Vec3::Zero() : m.bodies()[b].position;
}

// one constraint or spring: how it is drawn and the points it attaches to
json link(const Model& m, const json& c, bool spring) {
  const std::string type = c["type"];
  json out = {{"type", type}, {"points", json::array()}};
  json& pts = out["points"];
  if (spring || type == "distance") {
    out["style"] = spring ? "spring" : "rod";
    for (int k = 0; k < 2; ++k) pts.push_back(point(m, c["bodies"][k], as_vec3(c["points"][k])));
  } else if (c.contains("bodies") && c.contains("anchor")) {
    out["style"] = "joint";
    for (int k = 0; k < 2; ++k) pts.push_back(point(m, c["bodies"][k], as_vec3(c["anchor"])));
    if (type == "revolute") out["axis"] = c["axis"];  // for the joint-angle chart
  } else if (c.contains("bodies") && type != "perpendicular") {
    out["style"] = "rod";  // prismatic, fixed: the two centres of mass
    for (int k = 0; k < 2; ++k) pts.push_back(point(m, c["bodies"][k], centre(m, c["bodies"][k])));
  } else if (c.contains("body") && c.contains("point")) {
    out["style"] = "marker";
    pts.push_back(point(m, c["body"], as_vec3(c["point"])));
  } else {
    out["style"] = "none";  // rolling (the ground shows it), perpendicular, expression
  }
  return out;
}

// up: the normal of a rolling or sliding plane, else against gravity, else +z
Vec3 up_direction(const Model& m, const json& raw) {
  if (raw.contains("constraints"))
    for (const json& c : raw["constraints"])
      if ((c["type"] == "rolling" || c["type"] == "point_on_plane") && c.contains("normal")) {
        const Vec3 n = as_vec3(c["normal"]);
        if (n.norm() > 0) return n.normalized();
      }
  if (m.gravity().norm() > 0) return -m.gravity().normalized();
  return Vec3::UnitZ();
}

}  // namespace

json report_scene(const Model& m, const std::string& scene_file) {
  std::ifstream in(scene_file);
  const json raw = json::parse(in);
  json bodies = json::array();
  for (const Body& b : m.bodies()) {
    json rb = json::object();
    for (const json& r : raw["bodies"])
      if (r["name"] == b.name) rb = r;
    json e = {{"name", b.name}, {"rigid", b.rigid()}, {"shape", body_shape(b, rb)}};
    if (rb.contains("visual") && rb["visual"].contains("color")) e["color"] = rb["visual"]["color"];
    bodies.push_back(e);
  }
  json links = json::array();
  if (raw.contains("constraints"))
    for (size_t i = 0; i < raw["constraints"].size(); ++i) {
      json l = link(m, raw["constraints"][i], false);
      l["name"] = m.constraints()[i]->name();
      links.push_back(l);
    }
  if (raw.contains("forces"))
    for (const json& f : raw["forces"])
      if (f["type"] == "spring") links.push_back(link(m, f, true));
  return {{"bodies", bodies}, {"links", links}, {"up", vec(up_direction(m, raw))}};
}

}  // namespace appell::cli
