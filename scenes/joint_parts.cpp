// The scene entries of the robotics layer: actuation at joints (forces naming a joint)
// and prescribed motion (a constraint).  Syntax in docs/scene-format.md.
#include <cstdio>

#include "appell/joint_forces.hpp"
#include "appell/prescribed.hpp"
#include "scenes/scene_parts.hpp"

namespace appell {

std::shared_ptr<const Joint> SceneContext::joint_named(const std::string& name) const {
  for (const ConstraintPtr& c : model.constraints())
    if (c->name() == name)
      if (auto j = std::dynamic_pointer_cast<const Joint>(c)) return j;
  return nullptr;
}

std::shared_ptr<const Joint> SceneContext::joint(const Node& n) const {
  const std::string name = n.string();
  auto j = joint_named(name);
  if (j && j->joint_type().nu() == 0)
    n.fail("joint '" + name + "' is " + j->joint_type().name() + ": it has no motion to act on");
  if (!j) {
    for (const ConstraintPtr& c : model.constraints())
      if (c->name() == name)
        n.fail("constraint '" + name + "' is a " + c->type() + ", not a joint");
    n.fail("unknown joint '" + name + "'; expected the name of a joint listed in constraints");
  }
  return j;
}

namespace {

// `count` expressions at n: a number or an equation when count is 1, else an array of
// `count` numbers or equations (one per joint coordinate)
std::vector<Expression> expressions(const Node& n, int count,
                                    const std::map<std::string, double>& params,
                                    const SceneContext& ctx) {
  std::vector<Node> items;
  if (n.json().is_array())
    items = n.array(static_cast<size_t>(count));
  else if (count == 1)
    items.push_back(n);
  else
    n.fail("the joint has " + std::to_string(count) + " coordinates; expected an array of " +
           std::to_string(count) + " numbers or equations");
  std::vector<Expression> out;
  for (const Node& item : items) {
    if (item.json().is_number()) {
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", item.number());
      out.push_back(Expression::parse(text, {}, nullptr));
    } else {
      out.push_back(parse_equation(item, params, ctx, true));
    }
  }
  return out;
}

// `count` numbers at n (a number when count is 1), or zeros when absent
Eigen::VectorXd numbers(const Node& n, int count) {
  Eigen::VectorXd out = Eigen::VectorXd::Zero(count);
  if (!n.json().is_array() && count == 1) {
    out(0) = n.number();
    return out;
  }
  if (!n.json().is_array())
    n.fail("the joint has " + std::to_string(count) + " coordinates; expected an array of " +
           std::to_string(count) + " numbers");
  const auto items = n.array(static_cast<size_t>(count));
  for (int k = 0; k < count; ++k) out(k) = items[k].number();
  return out;
}

// a spring or a servo reads q − q0: not for the quaternions of spherical and free joints
void require_plain_coordinates(const Node& at, const Joint& j, const std::string& what) {
  if (j.joint_type().quaternion() >= 0)
    at.fail("a " + what + " needs joint coordinates without quaternions; joint '" + j.name() +
            "' is " + j.joint_type().name() + " (use joint_damping or joint_torque)");
}

}  // namespace

ForcePtr parse_joint_torque(const Node& n, const SceneContext& ctx) {
  n.object({"type", "joint", "value", "parameters"});
  auto j = ctx.joint(n["joint"]);
  const auto params = parse_parameters(n);
  return std::make_shared<JointTorque>(j,
                                       expressions(n["value"], j->joint_type().nu(), params, ctx));
}

ForcePtr parse_pd(const Node& n, const SceneContext& ctx) {
  n.object({"type", "joint", "kp", "kd", "target", "parameters"});
  auto j = ctx.joint(n["joint"]);
  require_plain_coordinates(n["joint"], *j, "pd servo");
  const double kp = n["kp"].nonnegative();
  const double kd = n.has("kd") ? n["kd"].nonnegative() : 0.0;
  const auto params = parse_parameters(n);
  return std::make_shared<JointServo>(j, kp, kd,
                                      expressions(n["target"], j->joint_type().nu(), params, ctx));
}

ForcePtr parse_joint_spring(const Node& n, const SceneContext& ctx) {
  n.object({"type", "joint", "stiffness", "rest", "damping"});
  auto j = ctx.joint(n["joint"]);
  require_plain_coordinates(n["joint"], *j, "joint spring");
  const int nq = j->joint_type().nq();
  const double k = n["stiffness"].nonnegative();
  const Eigen::VectorXd rest = n.has("rest") ? numbers(n["rest"], nq) : Eigen::VectorXd::Zero(nq);
  const double c = n.has("damping") ? n["damping"].nonnegative() : 0.0;
  return std::make_shared<JointSpring>(j, k, rest, c);
}

ForcePtr parse_joint_damping(const Node& n, const SceneContext& ctx) {
  n.object({"type", "joint", "damping"});
  return std::make_shared<JointDamping>(ctx.joint(n["joint"]), n["damping"].nonnegative());
}

ConstraintPtr parse_prescribed(const Node& n, const std::string& name, const SceneContext& ctx) {
  const auto params = parse_parameters(n);
  if (n.has("joint")) {
    n.object({"name", "type", "joint", "coordinate", "q", "parameters"});
    auto j = ctx.joint(n["joint"]);
    require_plain_coordinates(n["joint"], *j, "prescribed joint motion");
    const int nq = j->joint_type().nq();
    int k = 0;
    if (n.has("coordinate")) {
      const double c = n["coordinate"].nonnegative();
      if (c != static_cast<int>(c) || c >= nq)
        n["coordinate"].fail("expected a coordinate index from 0 to " + std::to_string(nq - 1) +
                             ", got " + n["coordinate"].json().dump());
      k = static_cast<int>(c);
    } else if (nq != 1) {
      n.fail("joint '" + j->name() + "' has " + std::to_string(nq) +
             " coordinates; say which with \"coordinate\"");
    }
    Expression f = expressions(n["q"], 1, params, ctx)[0];
    try {
      return std::make_shared<PrescribedJointConstraint>(name, j, k, std::move(f));
    } catch (const ExpressionError& e) {
      n["q"].fail(e.what());
    }
  }
  if (!n.has("body"))
    n.fail("a prescribed motion names a \"joint\" (with \"q\") or a \"body\" (with \"position\")");
  n.object({"name", "type", "body", "point", "position", "parameters"});
  const int b = ctx.body(n["body"]);
  if (b == kWorld) n["body"].fail("expected a body, got 'world'");
  const BodyState s0 = ctx.model.initial_state(b);
  const Vec3 p = n.has("point") ? ctx.point_of(b, n["point"]) : s0.x;
  const auto items = n["position"].array(3);
  std::array<Expression, 3> f;
  for (int i = 0; i < 3; ++i) f[i] = expressions(items[i], 1, params, ctx)[0];
  try {
    return std::make_shared<PrescribedPointConstraint>(name, b, s0, p, std::move(f));
  } catch (const ExpressionError& e) {
    n["position"].fail(e.what());
  }
}

}  // namespace appell
