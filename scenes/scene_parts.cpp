#include "scenes/scene_parts.hpp"

#include <cmath>
#include <sstream>

#include "appell/expression_constraint.hpp"
#include "appell/expression_force.hpp"
#include "appell/forces.hpp"
#include "appell/joint.hpp"
#include "appell/mimic.hpp"
#include "appell/primitives.hpp"
#include "appell/rolling.hpp"

namespace appell {

// "parameters": {"name": number, ...}
std::map<std::string, double> parse_parameters(const Node& n) {
  std::map<std::string, double> out;
  if (!n.has("parameters")) return out;
  const Node p = n["parameters"];
  if (!p.json().is_object())
    p.fail("expected an object of named numbers, got " + type_name(p.json()));
  for (auto it = p.json().begin(); it != p.json().end(); ++it) {
    const Node v = p[it.key().c_str()];
    if (!Expression::valid_parameter_name(it.key()))
      v.fail("'" + it.key() +
             "' cannot name a parameter: expected an identifier that is not t, pi, a function or a "
             "variable");
    out[it.key()] = v.number();
  }
  return out;
}

// the equation at `n`, parsed and checked at t = 0; errors located at n with the column
Expression parse_equation(const Node& n, const std::map<std::string, double>& params,
                          const SceneContext& ctx, bool derivatives) {
  const std::string text = n.string();
  Expression e;
  try {
    e = Expression::parse(
        text, params,
        [&](const std::string& body) {
          Expression::BodyInfo info;
          info.index = ctx.model.body_index(body);
          if (info.index == kWorld) info.index = -2;
          if (info.index >= 0) info.rigid = ctx.model.bodies()[info.index].rigid();
          return info;
        },
        [&](const std::string& name) { return ctx.joint_named(name); });
    std::vector<BodyState> s0;
    for (int b = 0; b < ctx.model.nbody(); ++b) s0.push_back(ctx.model.initial_state(b));
    e.check_finite(StateView{s0.data(), 0.0}, "at t = 0", derivatives);
  } catch (const ExpressionError& err) {
    n.fail(err.what());
  }
  return e;
}

namespace {

// [parent, child] of a two-body constraint: distinct, not both the world
std::pair<int, int> two_bodies(const Node& n, const SceneContext& ctx, bool rigid,
                               const std::string& why) {
  const Node list = n["bodies"];
  const auto e = list.array(2);
  const int a = rigid ? ctx.rigid_body(e[0], why) : ctx.body(e[0]);
  const int b = rigid ? ctx.rigid_body(e[1], why) : ctx.body(e[1]);
  if (a == b) list.fail("the two bodies must differ");
  return {a, b};
}

ConstraintPtr parse_joint(const Node& n, const std::string& name, const SceneContext& ctx,
                          const JointType& type) {
  if (n.has("origin")) return placed_joint(n, name, ctx, type);  // joint space
  for (const char* k : {"q", "qd"})
    if (n.has(k))
      n[k].fail(std::string(k) + " is for a joint that places its child (with an origin); " +
                "with world poses, give the child's position and velocity");
  const JointSyntax syntax = type.syntax();
  std::vector<std::string> keys = {"name", "type", "bodies"};
  if (type.nq() == 1 && type.nu() == 1) {
    keys.push_back("limit");
    keys.push_back("friction");
  }
  if (type.nu() > 0) keys.push_back("armature");
  if (syntax.anchor) keys.push_back("anchor");
  if (syntax.axes == 1) keys.push_back("axis");
  if (syntax.axes == 2) keys.push_back("axes");
  if (syntax.parameter) keys.push_back(syntax.parameter);
  n.object(keys);
  const std::string why = "a " + std::string(type.name()) + " joint needs rigid bodies";
  const auto [p, c] = two_bodies(n, ctx, syntax.rigid, why);
  Vec3 anchor = Vec3::Zero(), axis = Vec3::UnitZ(), axis2 = Vec3::UnitY();
  if (syntax.anchor) {
    const Node an = n["anchor"];
    anchor = ctx.point_of(p, an);
    ctx.point_of(c, an);
  }
  if (syntax.axes == 1) axis = n["axis"].unit_vec3();
  if (syntax.axes == 2) {
    const auto axes = n["axes"].array(2);
    axis = axes[0].unit_vec3();
    axis2 = axes[1].unit_vec3();
    if (std::abs(axis.dot(axis2)) > 1e-6)
      n["axes"].fail("the two axes of a " + std::string(type.name()) +
                     " joint must be perpendicular, got cosine " + std::to_string(axis.dot(axis2)));
  }
  auto joint =
      std::make_shared<Joint>(name, configured_type(n, type), p, c, ctx.model.initial_state(p),
                              ctx.model.initial_state(c), anchor, axis, axis2);
  parse_joint_limit(n, *joint);
  parse_joint_armature(n, *joint);
  return joint;
}

ConstraintPtr parse_distance(const Node& n, const std::string& name, const SceneContext& ctx) {
  n.object({"name", "type", "bodies", "points", "length"});
  const auto [a, b] = two_bodies(n, ctx, false, "");
  const auto pts = n["points"].array(2);
  const Vec3 pa = ctx.point_of(a, pts[0]), pb = ctx.point_of(b, pts[1]);
  const double d0 = (pb - pa).norm();
  if (!(d0 > 1e-9))
    n["points"].fail("the two points coincide at t = 0; a distance needs a direction");
  const double length = n.has("length") ? n["length"].positive() : d0;
  return std::make_shared<DistanceConstraint>(name, a, b, ctx.model.initial_state(a),
                                              ctx.model.initial_state(b), pa, pb, length);
}

ConstraintPtr parse_point_on_plane(const Node& n, const std::string& name,
                                   const SceneContext& ctx) {
  n.object({"name", "type", "body", "point", "normal"});
  const int b = ctx.body(n["body"]);
  if (b == kWorld) n["body"].fail("expected a body, got 'world'");
  const Vec3 p = ctx.point_of(b, n["point"]);
  return std::make_shared<PointOnPlaneConstraint>(name, b, ctx.model.initial_state(b), p,
                                                  n["normal"].unit_vec3());
}

ConstraintPtr parse_perpendicular(const Node& n, const std::string& name, const SceneContext& ctx) {
  n.object({"name", "type", "bodies", "axes"});
  const auto [a, b] = two_bodies(n, ctx, true, "perpendicular axes need rigid bodies");
  const auto axes = n["axes"].array(2);
  return std::make_shared<PerpendicularConstraint>(name, a, b, ctx.model.initial_state(a),
                                                   ctx.model.initial_state(b), axes[0].unit_vec3(),
                                                   axes[1].unit_vec3());
}

ConstraintPtr parse_linear(const Node& n, const std::string& name, const SceneContext& ctx) {
  n.object({"name", "type", "body", "point", "f", "h", "e", "frame"});
  const int b = ctx.body(n["body"]);
  if (b == kWorld) n["body"].fail("expected a body, got 'world'");
  const BodyState s0 = ctx.model.initial_state(b);
  const Vec3 p = n.has("point") ? ctx.point_of(b, n["point"]) : s0.x;
  const Vec3 f = n.has("f") ? n["f"].vec3() : Vec3::Zero();
  const Vec3 h = n.has("h") ? n["h"].vec3() : Vec3::Zero();
  const double e = n.has("e") ? n["e"].number() : 0.0;
  if (h.norm() > 0)
    ctx.needs_rotation(b, n["h"], "a particle has no angular velocity; h must be zero");
  if (f.norm() == 0 && h.norm() == 0) n.fail("f and h are both zero: the row constrains nothing");
  LinearConstraint::Frame frame = LinearConstraint::Frame::World;
  if (n.has("frame")) {
    const std::string fr = n["frame"].string();
    if (fr == "body")
      frame = LinearConstraint::Frame::Body;
    else if (fr != "world")
      n["frame"].fail("unknown frame '" + fr + "'; expected world or body");
  }
  // f, h in the body frame are given as world vectors at t = 0 when frame = body
  const Vec3 fb = frame == LinearConstraint::Frame::Body ? Vec3(s0.Q.transpose() * f) : f;
  const Vec3 hb = frame == LinearConstraint::Frame::Body ? Vec3(s0.Q.transpose() * h) : h;
  return std::make_shared<LinearConstraint>(name, b, s0, p, fb, hb, e, frame);
}

ConstraintPtr parse_rolling(const Node& n, const std::string& name, const SceneContext& ctx) {
  n.object({"name", "type", "body", "radius", "shape", "normal"});
  const int b = ctx.rigid_body(n["body"], "rolling needs a rigid body");
  if (b == kWorld) n["body"].fail("expected a body, got 'world'");
  const double radius = n["radius"].positive();
  const std::string shape = n["shape"].string();
  RollingConstraint::Shape sh = RollingConstraint::Shape::Sphere;
  if (shape == "disk")
    sh = RollingConstraint::Shape::Disk;
  else if (shape != "sphere")
    n["shape"].fail("unknown shape '" + shape + "'; expected sphere or disk");
  const Vec3 normal = n["normal"].unit_vec3();
  const BodyState s0 = ctx.model.initial_state(b);
  if (sh == RollingConstraint::Shape::Disk && normal.cross(s0.Q.col(2)).norm() < 1e-9)
    n["normal"].fail(
        "the disk (axis = body z) lies flat on the plane; its contact point is undefined");
  return std::make_shared<RollingConstraint>(name, b, s0, radius, sh, normal);
}

ConstraintPtr parse_knife_edge(const Node& n, const std::string& name, const SceneContext& ctx) {
  n.object({"name", "type", "body", "point", "direction"});
  const int b = ctx.rigid_body(n["body"], "a knife edge needs a rigid body");
  if (b == kWorld) n["body"].fail("expected a body, got 'world'");
  const Vec3 p = ctx.point_of(b, n["point"]);
  return std::make_shared<KnifeEdgeConstraint>(name, b, ctx.model.initial_state(b), p,
                                               n["direction"].unit_vec3());
}

ConstraintPtr parse_expression(const Node& n, const std::string& name, const SceneContext& ctx) {
  n.object({"name", "type", "level", "equation", "parameters"});
  const std::string level = n["level"].string();
  ExpressionConstraint::Level lv = ExpressionConstraint::Level::Position;
  if (level == "velocity")
    lv = ExpressionConstraint::Level::Velocity;
  else if (level != "position")
    n["level"].fail("unknown level '" + level + "'; expected position or velocity");
  const Node eq = n["equation"];
  Expression e = parse_equation(eq, parse_parameters(n), ctx, true);
  try {
    return std::make_shared<ExpressionConstraint>(name, std::move(e), lv);
  } catch (const ExpressionError& err) {
    eq.fail(err.what());
  }
}

// the joint called by the string at n, parsed before the constraint that names it
std::shared_ptr<const Joint> named_joint(const Node& n, const SceneContext& ctx) {
  const std::string name = n.string();
  for (const ConstraintPtr& c : ctx.model.constraints())
    if (c->name() == name) {
      auto j = std::dynamic_pointer_cast<const Joint>(c);
      if (!j) n.fail("'" + name + "' is a " + c->type() + " constraint; expected a joint");
      if (!j->joint_type().mimicable())
        n.fail("joint '" + name + "' is " + j->joint_type().name() +
               "; a mimic joins revolute or prismatic joints");
      return j;
    }
  n.fail("unknown joint '" + name + "'; expected a joint listed before this constraint");
}

ConstraintPtr parse_mimic(const Node& n, const std::string& name, const SceneContext& ctx) {
  n.object({"name", "type", "joint", "leader", "multiplier", "offset"});
  auto follower = named_joint(n["joint"], ctx), leader = named_joint(n["leader"], ctx);
  if (follower == leader) n["leader"].fail("a joint cannot mimic itself");
  const double m = n.has("multiplier") ? n["multiplier"].number() : 1.0;
  const double offset = n.has("offset") ? n["offset"].number() : 0.0;
  return std::make_shared<MimicConstraint>(name, follower, leader, m, offset);
}

ForcePtr parse_spring(const Node& n, const SceneContext& ctx) {
  n.object({"type", "bodies", "points", "stiffness", "rest_length", "damping"});
  const auto [a, b] = two_bodies(n, ctx, false, "");
  const auto pts = n["points"].array(2);
  const Vec3 pa = ctx.point_of(a, pts[0]), pb = ctx.point_of(b, pts[1]);
  const double k = n["stiffness"].nonnegative();
  const double l0 = n.has("rest_length") ? n["rest_length"].nonnegative() : (pb - pa).norm();
  const double c = n.has("damping") ? n["damping"].nonnegative() : 0.0;
  return std::make_shared<SpringForce>(a, b, ctx.model.initial_state(a), ctx.model.initial_state(b),
                                       pa, pb, k, l0, c);
}

int force_body(const Node& n, const SceneContext& ctx, bool rigid, const std::string& why) {
  const int b = rigid ? ctx.rigid_body(n, why) : ctx.body(n);
  if (b == kWorld) n.fail("expected a body, got 'world'");
  return b;
}

ForcePtr parse_force(const Node& n, const SceneContext& ctx) {
  n.object({"type", "body", "point", "vector"});
  const int b = force_body(n["body"], ctx, false, "");
  const BodyState s0 = ctx.model.initial_state(b);
  const Vec3 p = n.has("point") ? ctx.point_of(b, n["point"]) : s0.x;
  return std::make_shared<PointForce>(b, s0, p, n["vector"].vec3());
}

ForcePtr parse_torque(const Node& n, const SceneContext& ctx) {
  n.object({"type", "body", "vector"});
  const int b = force_body(n["body"], ctx, true, "a torque needs a rigid body");
  return std::make_shared<TorqueForce>(b, n["vector"].vec3());
}

ForcePtr parse_damping(const Node& n, const SceneContext& ctx) {
  n.object({"type", "body", "linear", "angular"});
  const int b = force_body(n["body"], ctx, false, "");
  const double lin = n.has("linear") ? n["linear"].nonnegative() : 0.0;
  const double ang = n.has("angular") ? n["angular"].nonnegative() : 0.0;
  if (ang > 0) ctx.needs_rotation(b, n["angular"], "a particle has no angular velocity to damp");
  return std::make_shared<DampingForce>(b, lin, ang);
}

ForcePtr parse_expression_force(const Node& n, const SceneContext& ctx) {
  n.object({"type", "body", "point", "vector", "parameters"});
  const int b = force_body(n["body"], ctx, false, "");
  const BodyState s0 = ctx.model.initial_state(b);
  const Vec3 p = n.has("point") ? ctx.point_of(b, n["point"]) : s0.x;
  const auto params = parse_parameters(n);
  const auto comps = n["vector"].array(3);
  std::array<Expression, 3> f;
  for (int k = 0; k < 3; ++k) f[k] = parse_equation(comps[k], params, ctx, false);
  return std::make_shared<ExpressionForce>(b, s0, p, std::move(f));
}

}  // namespace

const std::map<std::string, ConstraintParser>& constraint_parsers() {
  static const std::map<std::string, ConstraintParser> table = [] {
    std::map<std::string, ConstraintParser> t;
    for (const JointType* j : joint_types())
      t[j->name()] = [j](const Node& n, const std::string& name, const SceneContext& c) {
        return parse_joint(n, name, c, *j);
      };
    t["distance"] = parse_distance;
    t["point_on_plane"] = parse_point_on_plane;
    t["perpendicular"] = parse_perpendicular;
    t["linear"] = parse_linear;
    t["rolling"] = parse_rolling;
    t["knife_edge"] = parse_knife_edge;
    t["expression"] = parse_expression;
    t["prescribed"] = parse_prescribed;
    t["mimic"] = parse_mimic;
    return t;
  }();
  return table;
}

const std::map<std::string, ForceParser>& force_parsers() {
  static const std::map<std::string, ForceParser> table = {
      {"spring", parse_spring},
      {"force", parse_force},
      {"torque", parse_torque},
      {"damping", parse_damping},
      {"expression", parse_expression_force},
      {"joint_torque", parse_joint_torque},
      {"pd", parse_pd},
      {"joint_spring", parse_joint_spring},
      {"joint_damping", parse_joint_damping},
  };
  return table;
}

}  // namespace appell
