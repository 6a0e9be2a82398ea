#include "scenes/scene_parts.hpp"

#include <cmath>
#include <sstream>

#include "constraints/joints.hpp"
#include "constraints/primitives.hpp"
#include "engine/forces.hpp"

namespace appell {

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
                          JointType type) {
  const std::string tname = joint_type_name(type);
  const bool spherical = type == JointType::Spherical;
  switch (type) {
    case JointType::Spherical:
      n.object({"name", "type", "bodies", "anchor"});
      break;
    case JointType::Revolute:
    case JointType::Cylindrical:
      n.object({"name", "type", "bodies", "anchor", "axis"});
      break;
    case JointType::Prismatic:
      n.object({"name", "type", "bodies", "axis"});
      break;
    case JointType::Universal:
      n.object({"name", "type", "bodies", "anchor", "axes"});
      break;
    case JointType::Fixed:
      n.object({"name", "type", "bodies"});
      break;
  }
  const auto [p, c] = two_bodies(n, ctx, !spherical, "a " + tname + " joint needs rigid bodies");
  Vec3 anchor = Vec3::Zero(), axis = Vec3::UnitX(), axis2 = Vec3::Zero();
  if (n.has("anchor") || type == JointType::Spherical || type == JointType::Revolute ||
      type == JointType::Cylindrical || type == JointType::Universal) {
    const Node an = n["anchor"];
    anchor = ctx.point_of(p, an);
    ctx.point_of(c, an);
  }
  if (type == JointType::Revolute || type == JointType::Prismatic || type == JointType::Cylindrical)
    axis = n["axis"].unit_vec3();
  if (type == JointType::Universal) {
    const auto axes = n["axes"].array(2);
    axis = axes[0].unit_vec3();
    axis2 = axes[1].unit_vec3();
    if (std::abs(axis.dot(axis2)) > 1e-6)
      n["axes"].fail("the two axes of a universal joint must be perpendicular, got cosine " +
                     std::to_string(axis.dot(axis2)));
  }
  return std::make_shared<Joint>(name, type, p, c, ctx.model.initial_state(p),
                                 ctx.model.initial_state(c), anchor, axis, axis2);
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
  const bool rigid = ctx.model.bodies()[b].rigid();
  if (!rigid && h.norm() > 0) n["h"].fail("a particle has no angular velocity; h must be zero");
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
  if (ang > 0 && !ctx.model.bodies()[b].rigid())
    n["angular"].fail("a particle has no angular velocity to damp");
  return std::make_shared<DampingForce>(b, lin, ang);
}

}  // namespace

const std::map<std::string, ConstraintParser>& constraint_parsers() {
  static const std::map<std::string, ConstraintParser> table = [] {
    std::map<std::string, ConstraintParser> t;
    for (JointType j : {JointType::Spherical, JointType::Revolute, JointType::Prismatic,
                        JointType::Cylindrical, JointType::Universal, JointType::Fixed})
      t[joint_type_name(j)] = [j](const Node& n, const std::string& name, const SceneContext& c) {
        return parse_joint(n, name, c, j);
      };
    t["distance"] = parse_distance;
    t["point_on_plane"] = parse_point_on_plane;
    t["perpendicular"] = parse_perpendicular;
    t["linear"] = parse_linear;
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
  };
  return table;
}

}  // namespace appell
