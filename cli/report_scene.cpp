// The geometry the report's animation draws: one shape per body, the attachment points of
// the joints, constraints and springs, and which way is up.
//
// Everything comes from the compiled Model, in its own constraint and force order, so a
// scene that includes a URDF, a URDF itself, or a scene built in code draws what runs.
// The scene file is read only for what the Model does not keep: the shape a body's
// `visual` or `inertia` names, looked up by the body's name and used only when it has the
// expected form (the extras are optional; a report never fails on them).
#include <Eigen/Eigenvalues>
#include <cmath>

#include "appell/joint.hpp"
#include "appell/prescribed.hpp"
#include "appell/primitives.hpp"
#include "appell/rolling.hpp"
#include "appell/scene_document.hpp"
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
  // a thin rod or plate still shows its thickness; a point mass a small cube
  const double largest = edge.allFinite() ? edge.maxCoeff() : 0.0;
  edge = largest > 0 ? Vec3(edge.cwiseMax(0.05 * largest)) : Vec3(0.05, 0.05, 0.05);
  const Quat q(R);
  return {{"kind", "box"}, {"size", vec(edge)}, {"q", {q.w(), q.x(), q.y(), q.z()}}};
}

// the member `key` of an object, or null
const json* member(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

bool positive(const json& v) {
  return v.is_number() && v.get<double>() > 0 && std::isfinite(v.get<double>());
}

// {"box": [a, b, c]} | {"sphere": r} | {"cylinder": [r, h]} → the animation's shape; null
// when no member has that form
json shape_of(const json& j) {
  for (const auto& [kind, n] :
       {std::pair<const char*, size_t>{"box", 3}, {"sphere", 0}, {"cylinder", 2}}) {
    const json* size = member(j, kind);
    if (!size) continue;
    json sizes = n == 0 ? json::array({*size}) : *size;
    bool ok = sizes.is_array() && sizes.size() == std::max<size_t>(n, 1);
    for (size_t k = 0; ok && k < sizes.size(); ++k) ok = positive(sizes[k]);
    if (ok) return {{"kind", kind}, {"size", sizes}, {"q", {1, 0, 0, 0}}};
  }
  return nullptr;
}

// the scene document's body named `name`, or null
const json* scene_body(const json& doc, const std::string& name) {
  const json* bodies = member(doc, "bodies");
  if (!bodies || !bodies->is_array()) return nullptr;
  for (const json& b : *bodies) {
    const json* n = member(b, "name");
    if (n && n->is_string() && n->get<std::string>() == name) return &b;
  }
  return nullptr;
}

json body_entry(const Body& b, const json* raw) {
  json shape = nullptr;
  if (raw)
    if (const json* visual = member(*raw, "visual")) shape = shape_of(*visual);
  if (shape.is_null() && !b.rigid()) shape = {{"kind", "particle"}};
  if (shape.is_null() && raw)
    if (const json* inertia = member(*raw, "inertia")) shape = shape_of(*inertia);
  if (shape.is_null()) shape = equivalent_box(b);
  json e = {{"name", b.name}, {"rigid", b.rigid()}, {"shape", shape}};
  const json* visual = raw ? member(*raw, "visual") : nullptr;
  const json* color = visual ? member(*visual, "color") : nullptr;
  if (color && color->is_string()) e["color"] = *color;
  return e;
}

// a point fixed in body b (kWorld: in the world): its body coordinates and where it is
// at t = 0
json point(const Model& m, int b, const Vec3& local) {
  const Vec3 p = b < 0 ? local : m.initial_body_state(b).point(local);
  return {{"body", b < 0 ? -1 : b}, {"local", vec(local)}, {"p", vec(p)}};
}

// constraint `index`: how it is drawn and the points it attaches to
json constraint_link(const Model& m, int index) {
  const Constraint& c = *m.constraints()[index];
  json out = {{"name", c.name()}, {"type", c.type()}, {"style", "none"}, {"points", json::array()}};
  json& pts = out["points"];
  if (const Joint* j = m.joint(index)) {
    if (!j->joint_type().holds()) return out;  // a free body: nothing to draw
    out["style"] = "joint";
    pts.push_back(point(m, j->parent(), j->frames().X_P));
    pts.push_back(point(m, j->child(), j->frames().X_C));
    // the axis (z of the joint frame), fixed in the parent: for the joint-angle chart
    const Vec3 axis = j->frames().E_P.col(2);
    out["axis_local"] = vec(axis);
    out["axis"] = vec(j->parent() < 0 ? axis : Vec3(m.initial_body_state(j->parent()).Q * axis));
  } else if (const auto* d = dynamic_cast<const DistanceConstraint*>(&c)) {
    out["style"] = "rod";
    for (int k = 0; k < 2; ++k) pts.push_back(point(m, d->body(k), d->point(k)));
  } else if (const auto* p = dynamic_cast<const PointOnPlaneConstraint*>(&c)) {
    out["style"] = "marker";
    pts.push_back(point(m, p->body(), p->point()));
  } else if (const auto* l = dynamic_cast<const LinearConstraint*>(&c)) {
    out["style"] = "marker";
    pts.push_back(point(m, l->body(), l->point()));
  } else if (const auto* k = dynamic_cast<const KnifeEdgeConstraint*>(&c)) {
    out["style"] = "marker";
    pts.push_back(point(m, k->body(), k->point()));
  } else if (const auto* q = dynamic_cast<const PrescribedPointConstraint*>(&c)) {
    out["style"] = "marker";
    pts.push_back(point(m, q->body(), q->point()));
  }
  // rolling (the ground shows it), perpendicular, mimic, prescribed joints, expressions:
  // nothing of their own to draw
  return out;
}

// up: the normal of a rolling or sliding plane, else against gravity, else +z
Vec3 up_direction(const Model& m) {
  for (const ConstraintPtr& c : m.constraints()) {
    Vec3 n = Vec3::Zero();
    if (const auto* r = dynamic_cast<const RollingConstraint*>(c.get())) n = r->normal();
    if (const auto* p = dynamic_cast<const PointOnPlaneConstraint*>(c.get())) n = p->normal();
    if (n.norm() > 0 && n.allFinite()) return n.normalized();
  }
  if (m.gravity().norm() > 0 && m.gravity().allFinite()) return -m.gravity().normalized();
  return Vec3::UnitZ();
}

}  // namespace

json report_scene_document(const std::string& scene_file) {
  const std::string urdf = ".urdf";
  if (scene_file.size() >= urdf.size() &&
      scene_file.compare(scene_file.size() - urdf.size(), urdf.size(), urdf) == 0)
    return nullptr;
  try {
    return parse_scene_document(read_scene_text(scene_file), scene_file);
  } catch (const std::exception&) {
    return nullptr;  // the scene loaded before; its extras are optional
  }
}

json report_scene(const Model& m, const json& doc) {
  json bodies = json::array();
  for (const Body& b : m.bodies()) bodies.push_back(body_entry(b, scene_body(doc, b.name)));
  json links = json::array();
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c)
    links.push_back(constraint_link(m, c));
  int springs = 0;
  for (const ForcePtr& f : m.forces())
    if (const auto* s = dynamic_cast<const SpringForce*>(f.get())) {
      json l = {{"name", "spring" + std::to_string(springs++)},
                {"type", "spring"},
                {"style", "spring"},
                {"points", json::array()}};
      for (int k = 0; k < 2; ++k) l["points"].push_back(point(m, s->body(k), s->point(k)));
      links.push_back(l);
    }
  return {{"bodies", bodies}, {"links", links}, {"up", vec(up_direction(m))}};
}

}  // namespace appell::cli
