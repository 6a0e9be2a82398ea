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
#include "scenes/scene_build.hpp"
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

int SceneContext::body(const Node& n) const {
  std::string name = n.string();
  if (aliases && aliases->count(name)) name = aliases->at(name).body;
  const int b = model.body_index(name);
  if (b == -2) n.fail("unknown body '" + name + "'; expected a body name or 'world'");
  return b;
}

void SceneContext::needs_rotation(int b, const Node& at, const std::string& message) const {
  if (b != kWorld && !model.bodies()[b].rigid()) at.fail(message);
}

int SceneContext::rigid_body(const Node& n, const std::string& why) const {
  const int b = body(n);
  if (b != kWorld) needs_rotation(b, n, "'" + model.bodies()[b].name + "' is a particle; " + why);
  return b;
}

Vec3 SceneContext::point_of(int b, const Node& n) const {
  const Vec3 p = n.vec3();
  if (b == kWorld) return p;
  // a point off a particle would need it to turn
  const Vec3& x = model.bodies()[b].position;
  if ((p - x).norm() > 1e-9 * (1.0 + x.norm()))
    needs_rotation(b, n,
                   "a particle's point must be the particle's position " + format_vec(x) +
                       ", got " + format_vec(p));
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

void parse_constraints(const Node& list, SceneContext& ctx, std::vector<Node>& nodes,
                       bool equality_off, const UrdfScene* robot) {
  scene_detail::check_count(list, SceneLimits::kMaxConstraints, "constraints");
  std::set<std::string> names;
  for (const ConstraintPtr& other : ctx.model.constraints()) names.insert(other->name());
  for (size_t i = 0; i < list.size(); ++i) {
    const Node n = list.at(i);
    if (equality_off && scene_detail::is_equality(n, robot)) continue;
    const auto parse = parser_for(n, constraint_parsers(), "constraint");
    const std::string name =
        n.has("name") ? n["name"].name("constraint") : "constraint" + std::to_string(i);
    if (!names.insert(name).second)
      (n.has("name") ? n["name"] : n).fail("duplicate constraint name '" + name + "'");
    ctx.model.add_constraint(parse(n, name, ctx));
    nodes.push_back(n);
  }
}

void parse_forces(const Node& list, const SceneContext& ctx, const scene_detail::Disabled& off,
                  const UrdfScene* robot) {
  scene_detail::check_count(list, SceneLimits::kMaxForces, "forces");
  for (size_t i = 0; i < list.size(); ++i) {
    const Node n = list.at(i);
    const auto parse = parser_for(n, force_parsers(), "force");
    const std::string kind = scene_detail::force_kind(n, robot);
    if ((off.passive && kind == "passive") || (off.actuation && kind == "actuation")) continue;
    ctx.model.add_force(parse(n, ctx));
  }
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
    degenerate = degenerate || !inertia_defect(b.body.inertia).empty();  // (a particle's: I)
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
    scene_detail::check_count(list, SceneLimits::kMaxBodies, "shapes");
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
      add(bodies[b].node["shapes"], static_cast<int>(b), bodies[b].body.name, bodies[b].com);
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
  m.friction_rule = scene_detail::friction_rule(top, urdf);
  std::vector<Node> parts;
  if (urdf) parts.emplace_back(urdf->doc, "", urdf->file);
  parts.push_back(top);
  const Aliases none, &aliases = urdf ? urdf->aliases : none;
  if (!urdf) top["bodies"];  // required without a URDF: "missing key 'bodies'"
  std::vector<SceneBody> bodies;
  std::vector<Node> lists;
  for (const Node& part : parts) {
    if (part.has("bodies")) scene_detail::parse_bodies(part["bodies"], aliases, bodies);
    if (part.has("constraints")) lists.push_back(part["constraints"]);
  }
  if (bodies.empty())
    (top.has("bodies") ? top["bodies"] : top).fail("a scene needs at least one body");
  const scene_detail::Disabled off = scene_detail::disabled_parts(top, urdf);
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
  scene_detail::parse_settings(top, scene.settings);
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
