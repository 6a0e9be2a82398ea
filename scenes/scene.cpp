#include "appell/scene.hpp"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "appell/data.hpp"
#include "appell/forward.hpp"
#include "appell/inertia.hpp"
#include "appell/integrators.hpp"
#include "appell/joint_forces.hpp"
#include "appell/scene_document.hpp"
#include "scenes/initial_state.hpp"
#include "scenes/mjcf.hpp"
#include "scenes/scene_parts.hpp"
#include "scenes/shapes.hpp"
#include "scenes/urdf.hpp"

namespace appell {

using nlohmann::json;

SceneError::SceneError(std::string file, std::string pointer, std::string message)
    : std::runtime_error(
          printable(file + ": " + (pointer.empty() ? std::string() : pointer + ": ") + message)),
      file_(std::move(file)),
      pointer_(std::move(pointer)),
      message_(std::move(message)) {}

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

Body parse_body(const Node& n) {
  n.object({"name", "type", "mass", "inertia", "position", "orientation", "velocity",
            "angular_velocity", "root", "com", "visual", "shapes"});
  if (n.has("visual")) check_visual(n["visual"]);
  Body b;
  b.name = n["name"].name("body");
  if (b.name == "world") n["name"].fail("'world' is reserved for the fixed ground");
  const std::string type = n.has("type") ? n["type"].string() : "rigid";
  if (type == "particle") {
    b.type = BodyType::Particle;
    for (const char* k : {"inertia", "orientation", "angular_velocity", "com"})
      if (n.has(k)) n[k].fail(std::string("a particle has no ") + k);
  } else if (type != "rigid") {
    n["type"].fail("unknown body type '" + type + "'; expected rigid or particle");
  }
  // a rigid body may be a massless frame (mass 0 and a zero inertia "matrix") that a joint
  // moves with the bodies beyond it (compile() checks that some have mass)
  const bool frame = b.rigid() && n["mass"].number() == 0 && n.has("inertia") &&
                     n["inertia"].json().is_object() && n["inertia"].json().size() == 1 &&
                     n["inertia"].has("matrix") && n["inertia"]["matrix"].mat3().isZero(0.0);
  b.mass = frame ? 0.0 : n["mass"].positive();
  b.position = n.has("position") ? n["position"].vec3() : Vec3::Zero();
  b.velocity = n.has("velocity") ? n["velocity"].vec3() : Vec3::Zero();
  if (b.rigid()) {
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

void parse_solver(const Node& n, SolverOptions& s) {
  n.object({"formulation", "stabilization"});
  if (n.has("formulation")) {
    const std::string f = n["formulation"].string();
    if (!parse_formulation(f, s.formulation))
      n["formulation"].fail("unknown formulation '" + f +
                            "'; expected auto, recursive, gibbs-appell, pinv or sparse");
  }
  if (!n.has("stabilization")) return;
  const Node st = n["stabilization"];
  std::string type;
  if (st.json().is_string()) {
    type = st.string();
    if (type != "none") st.fail("expected \"none\" or an object with a type, got '" + type + "'");
  } else {
    st.object({"type", "alpha", "beta"});
    type = st["type"].string();
  }
  if (type == "none") {
    s.stabilization.type = Stabilization::Type::None;
  } else if (type == "baumgarte") {
    s.stabilization.type = Stabilization::Type::Baumgarte;
    s.stabilization.alpha = st["alpha"].nonnegative();
    s.stabilization.beta = st["beta"].nonnegative();
  } else if (type == "projection") {
    if (st.has("alpha") || st.has("beta")) st.fail("projection takes no alpha or beta");
    s.stabilization.type = Stabilization::Type::Projection;
  } else {
    st["type"].fail("unknown stabilization '" + type + "'; expected none, baumgarte or projection");
  }
}

void parse_integrator(const Node& n, IntegratorOptions& o) {
  n.object({"method", "duration", "dt", "rtol", "atol"});
  if (n.has("method")) {
    o.method = n["method"].string();
    o.method_given = true;
    if (!find_integrator(o.method))
      n["method"].fail("unknown method '" + o.method + "'; expected " + integrator_names());
  }
  if (n.has("duration")) o.duration = n["duration"].nonnegative();
  if (n.has("dt")) o.dt = n["dt"].positive();
  if (n.has("rtol")) o.rtol = n["rtol"].positive();
  if (n.has("atol")) o.atol = n["atol"].positive();
}

// A list of at most `limit` entries.
void check_count(const Node& list, size_t limit, const char* what) {
  if (list.size() > limit)
    list.fail(std::to_string(list.size()) + " " + what + ", more than the limit of " +
              std::to_string(limit));
}

}  // namespace

int SceneContext::body(const Node& n) const {
  std::string name = n.string();
  if (aliases && aliases->count(name)) name = aliases->at(name).body;
  const int b = model.body_index(name);
  if (b == -2) n.fail("unknown body '" + name + "'; expected a body name or 'world'");
  return b;
}

int SceneContext::rigid_body(const Node& n, const std::string& why) const {
  const int b = body(n);
  if (b != kWorld && !model.bodies()[b].rigid())
    n.fail("'" + model.bodies()[b].name + "' is a particle; " + why);
  return b;
}

Vec3 SceneContext::point_of(int b, const Node& n) const {
  const Vec3 p = n.vec3();
  if (b != kWorld && !model.bodies()[b].rigid()) {
    const Vec3& x = model.bodies()[b].position;
    if ((p - x).norm() > 1e-9 * (1.0 + x.norm()))
      n.fail("a particle's point must be the particle's position " + format_vec(x) + ", got " +
             format_vec(p));
  }
  return p;
}

namespace {

// the parser registered for n's "type", or a located error listing the known types
template <typename Parsers>
typename Parsers::mapped_type parser_for(const Node& n, const Parsers& parsers, const char* what) {
  const std::string type = n["type"].string();
  auto it = parsers.find(type);
  if (it != parsers.end()) return it->second;
  std::string list_of;
  for (const auto& p : parsers) list_of += (list_of.empty() ? "" : ", ") + p.first;
  n["type"].fail(std::string("unknown ") + what + " type '" + type +
                 "'; expected one of: " + list_of);
}

// the bodies of one scene part, appended to `out` (names unique across parts and aliases)
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

// An equality (MuJoCo's word): a mimic, or what an included MJCF's <equality> became
bool is_equality(const Node& n, const UrdfScene* robot) {
  if (robot && &n.file() == &robot->file) {
    const auto k = robot->kinds.find(n.pointer());
    if (k != robot->kinds.end()) return k->second == "equality";
  }
  return n.json().is_object() && n.has("type") && n["type"].json() == "mimic";
}

void parse_constraints(const Node& list, SceneContext& ctx, std::vector<Node>& nodes,
                       bool equality_off, const UrdfScene* robot) {
  check_count(list, SceneLimits::kMaxConstraints, "constraints");
  std::set<std::string> names;
  for (const ConstraintPtr& other : ctx.model.constraints()) names.insert(other->name());
  for (size_t i = 0; i < list.size(); ++i) {
    const Node n = list.at(i);
    if (equality_off && is_equality(n, robot)) continue;
    const auto parse = parser_for(n, constraint_parsers(), "constraint");
    const std::string name =
        n.has("name") ? n["name"].name("constraint") : "constraint" + std::to_string(i);
    if (!names.insert(name).second)
      (n.has("name") ? n["name"] : n).fail("duplicate constraint name '" + name + "'");
    ctx.model.add_constraint(parse(n, name, ctx));
    nodes.push_back(n);
  }
}

// MuJoCo's <option><flag> switches, as a scene's "disable": ["passive", ...] says them (or
// an included MJCF's <flag>, unless the scene has the key): what the loader leaves out
struct Disabled {
  bool contact = false, limit = false, frictionloss = false, passive = false, actuation = false,
       equality = false;
};

Disabled disabled_parts(const Node& top, const UrdfScene* robot) {
  static const char* const kNames[] = {"contact", "limit",     "frictionloss",
                                       "passive", "actuation", "equality"};
  Disabled d;
  const auto set = [&](const std::string& name) {
    bool* flags[] = {&d.contact, &d.limit, &d.frictionloss, &d.passive, &d.actuation, &d.equality};
    for (int k = 0; k < 6; ++k)
      if (name == kNames[k]) *flags[k] = true;
  };
  if (top.has("disable")) {
    const Node list = top["disable"];
    if (!list.json().is_array())
      list.fail(
          "expected an array of names (contact, limit, frictionloss, passive, actuation, "
          "equality), got " +
          type_name(list.json()));
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string name = list.at(i).string();
      bool known = false;
      for (const char* k : kNames) known = known || name == k;
      if (!known)
        list.at(i).fail("unknown switch '" + name +
                        "'; expected contact, limit, frictionloss, passive, actuation or equality");
      set(name);
    }
  } else if (robot && robot->settings.contains("disable")) {
    for (const auto& name : robot->settings["disable"]) set(name.get<std::string>());
  }
  return d;
}

// what a force is to the switches: "passive" (springs and dampers), "actuation" (joint
// torques and servos), "" (forces applied to bodies: force, torque, expression); an
// included MJCF says it for each of its own (a damper actuator is actuation)
std::string force_kind(const Node& n, const UrdfScene* robot) {
  if (robot && &n.file() == &robot->file) {
    const auto k = robot->kinds.find(n.pointer());
    if (k != robot->kinds.end()) return k->second;
  }
  const std::string type = n.has("type") && n["type"].json().is_string()
                               ? n["type"].json().get<std::string>()
                               : std::string();
  if (type == "spring" || type == "damping" || type == "joint_spring" || type == "joint_damping")
    return "passive";
  if (type == "joint_torque" || type == "pd") return "actuation";
  return "";
}

void parse_forces(const Node& list, const SceneContext& ctx, const Disabled& off,
                  const UrdfScene* robot) {
  check_count(list, SceneLimits::kMaxForces, "forces");
  for (size_t i = 0; i < list.size(); ++i) {
    const Node n = list.at(i);
    const auto parse = parser_for(n, force_parsers(), "force");
    const std::string kind = force_kind(n, robot);
    if ((off.passive && kind == "passive") || (off.actuation && kind == "actuation")) continue;
    ctx.model.add_force(parse(n, ctx));
  }
}

// The output size guard: an absurd dt (1e-300) or duration would ask for more steps than
// a run can take, or more rows than a file should hold.
void check_run_size(const Node& top, const Settings& s) {
  const double steps = s.integrator.duration / s.integrator.dt;
  const double rows = steps / s.output.every;
  if (!(steps <= SceneLimits::kMaxSteps) || !(rows <= SceneLimits::kMaxOutputRows)) {
    std::ostringstream os;
    os << "duration / dt = " << steps << " steps and " << rows
       << " output rows; the limits are 1e9 steps and 1e7 rows";
    const Node in = top["integrator"];
    (in.has("dt") ? in["dt"] : in["duration"]).fail(os.str());
  }
}

// The contact pairs' friction rule (appell/geometry.hpp): the scene's "contact": {"friction":
// ...}, else an MJCF's (MuJoCo's max), else the geometric mean.
FrictionRule friction_rule(const Node& top, const UrdfScene* robot) {
  std::string rule = "geometric";
  if (top.has("contact") && top["contact"].has("friction")) {
    const Node n = top["contact"]["friction"];
    rule = n.string();
    if (rule != "geometric" && rule != "max")
      n.fail("unknown friction rule '" + rule + "' (expected \"geometric\" or \"max\")");
  } else if (robot && robot->settings.contains("friction")) {
    rule = robot->settings["friction"].get<std::string>();
  }
  return rule == "max" ? FrictionRule::Max : FrictionRule::Geometric;
}

void parse_settings(const Node& top, Settings& settings) {
  if (top.has("solver")) parse_solver(top["solver"], settings.solver);
  if (top.has("integrator")) parse_integrator(top["integrator"], settings.integrator);
  if (top.has("contact")) {
    const Node c = top["contact"];
    c.object({"joint_limits", "joint_friction", "tolerance", "max_iterations", "friction",
              "on_unconverged"});
    for (const char* key : {"joint_limits", "joint_friction"}) {
      if (!c.has(key)) continue;
      const Node flag = c[key];
      if (!flag.json().is_boolean())
        flag.fail("expected true or false, got " + type_name(flag.json()));
      (std::string(key) == "joint_limits" ? settings.contact.joint_limits
                                          : settings.contact.joint_friction) =
          flag.json().get<bool>();
    }
    if (c.has("tolerance")) settings.contact.tolerance = c["tolerance"].positive();
    if (c.has("max_iterations"))
      settings.contact.max_iterations = c["max_iterations"].positive_int();
    if (c.has("on_unconverged")) {
      const std::string p = c["on_unconverged"].string();
      if (p != "fail" && p != "warn")
        c["on_unconverged"].fail("expected \"fail\" or \"warn\", got \"" + p + "\"");
      settings.contact.on_unconverged =
          p == "warn" ? ContactSettings::OnUnconverged::Warn : ContactSettings::OnUnconverged::Fail;
    }
  }
  if (top.has("output")) {
    const Node o = top["output"];
    o.object({"every"});
    if (o.has("every")) settings.output.every = o["every"].positive_int();
  }
  check_run_size(top, settings);
}

}  // namespace

namespace {

// True when every constraint is a joint with an "origin" (a URDF's tree, or a scene
// written in joint space): those hold at t = 0 by construction.
bool only_placed_joints(const std::vector<Node>& constraints) {
  for (const Node& n : constraints)
    if (!n.has("origin")) return false;
  return true;
}

// A URDF's <dynamics damping="d">: a viscous joint torque −d q̇ (appell::JointDamping) on
// each joint that has it and moves, as the robot's own forces, before the scene's.
void add_joint_damping(ModelBuilder& m) {
  std::vector<std::shared_ptr<const Joint>> damped;
  for (const ConstraintPtr& c : m.constraints())
    if (auto j = std::dynamic_pointer_cast<const Joint>(c))
      if (j->properties().damping > 0 && j->joint_type().nu() > 0) damped.push_back(j);
  for (const auto& j : damped)
    m.add_force(std::make_shared<JointDamping>(j, j->properties().damping));
}

// A body marked "root" must be the only mark of a floating tree (build_tree): its
// message, at the first mark.
void check_root_marks(const ModelBuilder& m, const std::vector<SceneBody>& bodies) {
  for (const SceneBody& b : bodies) {
    if (!b.body.root) continue;
    try {
      (void)compile(m);
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what(), prefix = "compile(): ";
      b.node["root"].fail(what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what);
    }
    return;
  }
}

// A body without mass or with a degenerate inertia is fine welded to bodies with mass
// (appell/model.hpp "Composites"); compile()'s message for one that is not, at its inertia.
void check_composites(const ModelBuilder& m, const std::vector<SceneBody>& bodies,
                      const UrdfScene* urdf) {
  bool degenerate = false;
  for (const SceneBody& b : bodies)
    degenerate = degenerate || (b.body.rigid() && !inertia_defect(b.body.inertia).empty());
  if (!degenerate) return;
  try {
    (void)compile(m);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what(), prefix = "compile(): body '";
    if (what.rfind(prefix, 0) != 0) return;  // not ours: compile() reports it later
    const size_t end = what.find("': ", prefix.size());
    const std::string name = what.substr(prefix.size(), end - prefix.size());
    for (const SceneBody& b : bodies) {
      if (b.body.name != name) continue;
      // a URDF's link is named by build_scene_located; the element is its <inertia>
      const bool link = urdf && b.node.file() == urdf->file;
      const std::string message = (link ? "<inertia>: " : "") + what.substr(end + 3);
      if (!b.node.has("inertia")) b.node.fail(message);
      const Node in = b.node["inertia"];
      (in.has("matrix") ? in["matrix"] : in).fail(message);
    }
    throw;
  }
}

// a file read for the scene, once (Scene::source_files)
void add_source(Scene& scene, const std::string& path) {
  for (const std::string& f : scene.source_files)
    if (f == path) return;
  scene.source_files.push_back(path);
}

// The collision shapes of the bodies, then those of the world (each part's top-level
// "shapes": the scene's, and a URDF's links welded to a fixed base); their mesh files go
// to scene.source_files.  (`contact_off`: each one only drawn, as MuJoCo's
// contact="disable" leaves every pair out)
void add_shapes(Scene& scene, const std::vector<Node>& parts, const std::vector<SceneBody>& bodies,
                bool contact_off, MeshCache& meshes) {
  ModelBuilder& m = scene.model;
  std::set<std::string> names;
  const auto add = [&](const Node& list, int body, const std::string& name, const Vec3& com) {
    check_count(list, SceneLimits::kMaxBodies, "shapes");
    for (size_t i = 0; i < list.size(); ++i) {
      const Node n = list.at(i);
      Shape s = parse_shape(n, body, name, com, i, meshes);
      if (s.type == ShapeType::ConvexMesh && n.has("file")) add_source(scene, mesh_path(n["file"]));
      if (contact_off) s.visual = true;
      if (!names.insert(s.name).second)
        (n.has("name") ? n["name"] : n).fail("duplicate shape name '" + s.name + "'");
      m.add_shape(s);
    }
  };
  for (size_t b = 0; b < bodies.size(); ++b)
    if (bodies[b].node.has("shapes"))
      add(bodies[b].node["shapes"], static_cast<int>(b), bodies[b].body.name,
          bodies[b].body.rigid() ? bodies[b].com : Vec3::Zero());
  for (const Node& part : parts)
    if (part.has("shapes")) add(part["shapes"], kWorld, "world", Vec3::Zero());
}

// The scene `top` says, with the included URDF part (or none) before its own parts.
Scene build_scene(const Node& top, const UrdfScene* urdf) {
  Scene scene;
  ModelBuilder& m = scene.model;
  m.name = top.has("name") ? top["name"].string() : urdf ? urdf->name : top.file();
  if (urdf) scene.robot = urdf->base;
  if (urdf)
    for (const std::string& f : urdf->files) add_source(scene, f);
  if (urdf && !urdf->missing_meshes.empty())
    scene.warnings.push_back(
        urdf->file + ": " + std::to_string(urdf->missing_meshes.size()) +
        " <collision> mesh file(s) not found, their shapes are left out (the first: " +
        urdf->missing_meshes.front() +
        "; a package:// name is looked for in the URDF's folder and those above it)");
  if (urdf)
    scene.warnings.insert(scene.warnings.end(), urdf->warnings.begin(), urdf->warnings.end());
  if (top.has("gravity"))
    m.gravity = top["gravity"].vec3();
  else if (urdf && urdf->settings.contains("gravity"))
    m.gravity =
        Vec3(urdf->settings["gravity"][0].get<double>(), urdf->settings["gravity"][1].get<double>(),
             urdf->settings["gravity"][2].get<double>());
  else if (urdf)
    m.gravity = Vec3(0, 0, -9.81);  // a robot stands on the Earth
  m.friction_rule = friction_rule(top, urdf);
  std::vector<Node> parts;
  if (urdf) parts.emplace_back(urdf->doc, "", urdf->file);
  parts.push_back(top);
  const Aliases none, &aliases = urdf ? urdf->aliases : none;
  if (!urdf) top["bodies"];  // required without a URDF: "missing key 'bodies'"
  std::vector<SceneBody> bodies;
  std::vector<Node> lists;
  for (const Node& part : parts) {
    if (part.has("bodies")) parse_bodies(part["bodies"], aliases, bodies);
    if (part.has("constraints")) lists.push_back(part["constraints"]);
  }
  if (bodies.empty())
    (top.has("bodies") ? top["bodies"] : top).fail("a scene needs at least one body");
  const Disabled off = disabled_parts(top, urdf);
  const Placements placements = place_bodies(lists, bodies, aliases);
  for (const SceneBody& b : bodies) m.add_body(b.body);
  // the meshes an MJCF's converter read (for their inertia) are not read again
  MeshCache own;
  add_shapes(scene, parts, bodies, off.contact, urdf && urdf->meshes ? *urdf->meshes : own);
  SceneContext ctx{m, top.file(), &placements, &aliases, urdf ? &urdf->properties : nullptr};
  std::vector<Node> constraint_nodes;
  for (const Node& list : lists) parse_constraints(list, ctx, constraint_nodes, off.equality, urdf);
  check_root_marks(m, bodies);
  check_composites(m, bodies, urdf);
  if (urdf && !off.passive) add_joint_damping(m);
  if (urdf && parts.front().has("forces")) parse_forces(parts.front()["forces"], ctx, off, urdf);
  if (top.has("forces")) parse_forces(top["forces"], ctx, off, urdf);
  parse_settings(top, scene.settings);
  if (off.limit) scene.settings.contact.joint_limits = false;
  if (off.frictionloss) scene.settings.contact.joint_friction = false;
  const Node& list = top.has("constraints") ? top["constraints"] : top;
  if (!only_placed_joints(constraint_nodes)) {
    check_initial_state(m, constraint_nodes, list);
  } else {
    // joints with an origin hold at t = 0 by construction (each places its child), so the
    // check, which builds the dense rows (nrows × nu), is left out; its limit stays
    int rows = 0;
    for (const ConstraintPtr& c : m.constraints()) rows += c->rows();
    if (rows > SceneLimits::kMaxRows)
      list.fail("the constraints have " + std::to_string(rows) + " rows, more than the limit of " +
                std::to_string(SceneLimits::kMaxRows));
  }
  // a robot file loaded directly (URDF, MJCF) wrote no start of its own
  check_joint_limits(m, constraint_nodes, scene.settings.contact,
                     urdf && urdf->file == top.file() ? std::string() : top.file());
  return scene;
}

// The same, where an error that the scene's parsers raise on the URDF's part names the
// URDF's link or joint instead of a pointer into the document the converter wrote (a
// pointer the user never wrote).  The converter checks what it can in the URDF's words
// first; this is the net under it.
Scene build_scene_located(const Node& top, const UrdfScene* urdf) {
  try {
    return build_scene(top, urdf);
  } catch (const SceneError& e) {
    if (!urdf || e.file() != urdf->file || e.pointer().empty()) throw;
    // an MJCF's entries: at the element's line and path
    for (const auto& l : urdf->located) {
      const std::string& p = l.first;
      if (e.pointer().compare(0, p.size(), p) == 0 &&
          (e.pointer().size() == p.size() || e.pointer()[p.size()] == '/'))
        throw SceneError(l.second.first, l.second.second, e.message());
    }
    if (!urdf->located.empty()) throw SceneError(urdf->file, "", e.message());
    const std::string element = urdf_element(*urdf, e.pointer());
    throw SceneError(urdf->file, "", (element.empty() ? "" : element + ": ") + e.message());
  }
}

Scene load_urdf(const std::string& text, const std::string& path) {
  UrdfScene urdf = urdf_scene_from_string(text, path, false);
  if (urdf.doc["bodies"].empty())
    throw SceneError(path, "",
                     "nothing moves: every link is welded to the root link '" +
                         urdf.base.root_link +
                         "', which a fixed base makes the world (to float the robot, include "
                         "it in a scene with \"base\": \"floating\")");
  follow_mimics(urdf);
  const json root = json::object();
  return build_scene_located(Node(root, "", path), &urdf);
}

Scene load_mjcf(const std::string& text, const std::string& path) {
  UrdfScene mjcf = mjcf_scene_from_string(text, path);
  if (mjcf.doc["bodies"].empty())
    throw SceneError(path, "", "nothing moves: no body with mass in <worldbody>");
  follow_mimics(mjcf);
  json root = json::object();
  if (mjcf.settings.contains("integrator")) root["integrator"] = mjcf.settings["integrator"];
  return build_scene_located(Node(root, "", path), &mjcf);
}

}  // namespace

std::string describe(const RobotBase& base) {
  if (base.urdf.empty()) return "";
  if (base.floating && base.free_joint == "root_joint" && base.chosen)
    return "floating: free joint 'root_joint' from the world to the root link '" + base.root_link +
           "' (the include's \"base\": \"floating\")";
  if (base.floating) return "floating: the URDF's floating joint '" + base.free_joint + "'";
  return "fixed: the root link '" + base.root_link + "' is the world" +
         (base.chosen ? std::string(" (the include's \"base\": \"fixed\")")
                      : std::string(" (the default for a URDF; to float it, include it in a "
                                    "scene with \"base\": \"floating\")"));
}

Scene load_scene_from_string(const std::string& text, const std::string& file) {
  // by content: XML is a URDF (or a format appell does not read, which throws)
  if (is_mjcf_text(text)) return load_mjcf(text, file);
  if (is_urdf_text(text, file)) return load_urdf(text, file);
  const json root = parse_scene_document(text, file);
  const Node top(root, "", file);
  if (top.has("lagrangian"))  // appell/lagrangian_scene.hpp loads it
    top["lagrangian"].fail(
        "a Lagrangian system is loaded by load_lagrangian_scene() (the program's check, eval, "
        "simulate and linearize; docs/lagrangian.md), not as a scene of bodies");
  top.object({"name", "gravity", "include", "bodies", "constraints", "forces", "solver",
              "integrator", "contact", "output", "shapes", "disable", "quasi_velocities"});
  if (!top.has("include")) return build_scene(top, nullptr);
  const Node include = top["include"];
  const UrdfScene urdf =
      include.has("mjcf") && !include.has("urdf") ? include_mjcf(include) : include_urdf(include);
  if (!urdf.settings.contains("integrator") || top.has("integrator"))
    return build_scene_located(top, &urdf);
  // the MJCF's timestep, unless the scene says its integrator
  json with = top.json();
  with["integrator"] = urdf.settings["integrator"];
  return build_scene_located(Node(with, "", file), &urdf);
}

Model compile(const Scene& scene) {
  return compile(scene.model);
}

Model load_model_from_string(const std::string& text, const std::string& file) {
  return compile(load_scene_from_string(text, file));
}

Model load_model(const std::string& path) {
  return compile(load_scene(path));
}

Scene load_scene(const std::string& path) {
  Scene scene = load_scene_from_string(read_scene_text(path), path);
  scene.source_files.insert(scene.source_files.begin(), path);
  return scene;
}

}  // namespace appell
