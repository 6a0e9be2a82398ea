// A scene's bodies (scenes/scene_build.hpp): a body's entry, its inertia and orientation.
#include <set>
#include <sstream>

#include "appell/inertia.hpp"
#include "scenes/scene_build.hpp"

namespace appell {

Quat parse_orientation(const Node& n) {
  n.object({"quaternion", "axis_angle", "matrix"});
  if (n.json().size() != 1) n.fail("expected exactly one of quaternion, axis_angle, matrix");
  if (n.has("quaternion")) {
    const auto e = n["quaternion"].array(4);
    Quat q(e[0].number(), e[1].number(), e[2].number(), e[3].number());
    if (!(q.norm() > 1e-12)) n["quaternion"].fail("quaternion must be nonzero");
    // scaled by its largest entry first, so that |q|² cannot overflow ([1e300, 1e300, 0, 0])
    q.coeffs() /= q.coeffs().cwiseAbs().maxCoeff();
    return q.normalized();
  }
  if (n.has("axis_angle")) {
    const auto e = n["axis_angle"].array(4);
    Vec3 axis(e[0].number(), e[1].number(), e[2].number());
    if (!(axis.norm() > 1e-12)) n["axis_angle"].fail("axis must be nonzero");
    axis /= axis.cwiseAbs().maxCoeff();  // |axis|² cannot overflow
    return Quat(Eigen::AngleAxisd(e[3].number(), axis.normalized()));
  }
  const Mat3 Q = n["matrix"].mat3();
  const double defect = rotation_matrix_defect(Q);
  if (defect > 1e-6) {
    std::ostringstream os;
    os << "not a rotation: must be orthonormal with determinant +1 within 1e-6, off by " << defect;
    n["matrix"].fail(os.str());
  }
  return Quat(Q).normalized();
}

namespace scene_detail {

namespace {

Mat3 parse_inertia(const Node& n, double mass) {
  n.object({"principal", "matrix", "box", "sphere", "cylinder"});
  if (n.json().size() != 1)
    n.fail("expected exactly one of principal, matrix, box, sphere, cylinder");
  if (n.has("principal")) {
    const Node p = n["principal"];
    const auto e = p.array(3);
    const Vec3 I(e[0].positive(), e[1].positive(), e[2].positive());
    const double tol = 1e-12 * I.maxCoeff();
    if (I(0) > I(1) + I(2) + tol || I(1) > I(0) + I(2) + tol || I(2) > I(0) + I(1) + tol) {
      std::ostringstream os;
      os << "principal moments [" << I(0) << ", " << I(1) << ", " << I(2)
         << "] violate the triangle inequality";
      n.fail(os.str());
    }
    const Mat3 J = inertia_principal(I);
    const std::string defect = inertia_defect(J);
    if (!defect.empty()) p.fail(defect);
    return J;
  }
  if (n.has("matrix")) {
    // zero or degenerate passes here: fine on a body welded to bodies with mass (a URDF's
    // dummy links); check_composites() reports the others
    const Mat3 J = n["matrix"].mat3();
    const std::string defect = inertia_semidefinite_defect(J);
    if (!defect.empty()) n["matrix"].fail(defect);
    return 0.5 * (J + J.transpose());
  }
  // a solid shape: its moments follow from the mass, and can overflow or underflow
  const char* shape = n.has("box") ? "box" : n.has("sphere") ? "sphere" : "cylinder";
  const Node s = n[shape];
  Mat3 J;
  if (n.has("box")) {
    const auto e = s.array(3);
    J = inertia_box(mass, Vec3(e[0].positive(), e[1].positive(), e[2].positive()));
  } else if (n.has("sphere")) {
    J = inertia_sphere(mass, s.positive());
  } else {
    const auto e = s.array(2);
    J = inertia_cylinder(mass, e[0].positive(), e[1].positive());
  }
  const std::string defect = inertia_defect(J);
  if (!defect.empty())
    s.fail(defect + " (the moments of this shape and mass are out of the range of a double)");
  return J;
}

// "visual": how reports draw the body (docs/scene-format.md); checked here, not kept
void check_visual(const Node& n) {
  n.object({"box", "sphere", "cylinder", "color"});
  const size_t shapes = n.has("box") + n.has("sphere") + n.has("cylinder");
  if (shapes != 1) n.fail("expected exactly one of box, sphere, cylinder");
  if (n.has("box"))
    for (const Node& e : n["box"].array(3)) e.positive();
  if (n.has("sphere")) n["sphere"].positive();
  if (n.has("cylinder"))
    for (const Node& e : n["cylinder"].array(2)) e.positive();
  if (n.has("color")) {
    const std::string c = n["color"].string();
    const bool hex = c.size() == 7 && c[0] == '#' &&
                     c.find_first_not_of("0123456789abcdefABCDEF", 1) == std::string::npos;
    if (!hex) n["color"].fail("expected a colour as \"#rrggbb\", got '" + c + "'");
  }
}
}  // namespace

Body parse_body(const Node& n) {
  n.object({"name", "type", "mass", "inertia", "position", "orientation", "velocity",
            "angular_velocity", "root", "com", "visual", "shapes"});
  if (n.has("visual")) check_visual(n["visual"]);
  Body b;
  b.name = n["name"].name("body");
  if (b.name == "world") n["name"].fail("'world' is reserved for the fixed ground");
  const std::string type = n.has("type") ? n["type"].string() : "rigid";
  const bool particle = type == "particle";
  if (particle) {
    b.type = BodyType::Particle;
    for (const char* k : {"inertia", "orientation", "angular_velocity", "com"})
      if (n.has(k)) n[k].fail(std::string("a particle has no ") + k);
  } else if (type != "rigid") {
    n["type"].fail("unknown body type '" + type + "'; expected rigid or particle");
  }
  // a rigid body may be a massless frame (mass 0 and a zero inertia "matrix") that a joint
  // moves with the bodies beyond it (compile() checks that some have mass)
  const bool frame = n["mass"].number() == 0 && n.has("inertia") &&
                     n["inertia"].json().is_object() && n["inertia"].json().size() == 1 &&
                     n["inertia"].has("matrix") && n["inertia"]["matrix"].mat3().isZero(0.0);
  b.mass = frame ? 0.0 : n["mass"].positive();
  b.position = n.has("position") ? n["position"].vec3() : Vec3::Zero();
  b.velocity = n.has("velocity") ? n["velocity"].vec3() : Vec3::Zero();
  if (!particle) {  // (a particle's were refused above)
    b.inertia = parse_inertia(n["inertia"], b.mass);
    if (n.has("orientation")) b.orientation = parse_orientation(n["orientation"]);
    if (n.has("angular_velocity")) b.angular_velocity = n["angular_velocity"].vec3();
  }
  if (n.has("root")) {
    if (!n["root"].json().is_boolean()) n["root"].fail("expected true or false");
    b.root = n["root"].json().get<bool>();
  }
  return b;
}

// A list of at most `limit` entries.
void check_count(const Node& list, size_t limit, const char* what) {
  if (list.size() > limit)
    list.fail(std::to_string(list.size()) + " " + what + ", more than the limit of " +
              std::to_string(limit));
}

void parse_bodies(const Node& list, const Aliases& aliases, std::vector<SceneBody>& out) {
  check_count(list, SceneLimits::kMaxBodies, "bodies");
  std::set<std::string> names;  // O(log n) a look-up: 10,000 bodies stay quick
  for (const SceneBody& other : out) names.insert(other.body.name);
  for (size_t i = 0; i < list.size(); ++i) {
    const Node n = list.at(i);
    SceneBody b{parse_body(n), n};
    if (!names.insert(b.body.name).second)
      n["name"].fail("duplicate body name '" + b.body.name + "'");
    if (aliases.count(b.body.name))
      n["name"].fail("duplicate body name '" + b.body.name + "' (a link of the included URDF)");
    if (n.has("com")) b.com = n["com"].vec3();
    out.push_back(b);
  }
}

}  // namespace scene_detail
}  // namespace appell
