// Internal to the scene loader: the parsers of constraints and forces, by type.
// A later constraint or force type is one more entry in these tables.
#pragma once

#include <functional>
#include <map>

#include "appell/constraint.hpp"
#include "appell/expression.hpp"
#include "appell/joint.hpp"
#include "appell/model.hpp"
#include "scenes/joint_space.hpp"
#include "scenes/reader.hpp"

namespace appell {

// What the parsers of one scene share: the model being built (bodies already added).
struct SceneContext {
  ModelBuilder& model;
  const std::string& file;
  const Placements* placements = nullptr;  // the joints with an "origin" (joint_space.hpp)
  const Aliases* aliases = nullptr;        // extra names of bodies (URDF links merged away)
  // URDF <dynamics>, <limit> of the joints with an origin, by placement_key()
  const std::map<std::string, JointProperties>* joint_properties = nullptr;
  // the index of the body named at `n` (kWorld for "world"); fails if unknown
  int body(const Node& n) const;
  // the same, but the body must be rigid (why: for the message)
  int rigid_body(const Node& n, const std::string& why) const;
  // fails at `at` with `message` when body b (not the world) is a particle: what `at` gives
  // needs a rotation, which a particle has not.  The scene's one test of a body's type.
  void needs_rotation(int b, const Node& at, const std::string& message) const;
  // a point given for body b at t = 0: a particle's point must be the particle itself
  Vec3 point_of(int b, const Node& n) const;
  // the joint (a constraint of a joint type, listed before) called `name`, or null
  std::shared_ptr<const Joint> joint_named(const std::string& name) const;
  // the same for the joint named at `n`; fails if there is none or it cannot move (fixed)
  std::shared_ptr<const Joint> joint(const Node& n) const;
};

// "parameters": {"name": number, ...} of an expression-bearing entry
std::map<std::string, double> parse_parameters(const Node& n);
// the expression at `n`, parsed and checked at t = 0; errors located at n with the column
Expression parse_equation(const Node& n, const std::map<std::string, double>& params,
                          const SceneContext& ctx, bool derivatives);

// the robotics entries (scenes/joint_parts.cpp): actuation at joints, prescribed motion
ForcePtr parse_joint_torque(const Node& n, const SceneContext& ctx);
ForcePtr parse_pd(const Node& n, const SceneContext& ctx);
ForcePtr parse_joint_spring(const Node& n, const SceneContext& ctx);
ForcePtr parse_joint_damping(const Node& n, const SceneContext& ctx);
ConstraintPtr parse_prescribed(const Node& n, const std::string& name, const SceneContext& ctx);

using ConstraintParser =
    std::function<ConstraintPtr(const Node&, const std::string& name, const SceneContext&)>;
using ForceParser = std::function<ForcePtr(const Node&, const SceneContext&)>;

const std::map<std::string, ConstraintParser>& constraint_parsers();
const std::map<std::string, ForceParser>& force_parsers();

}  // namespace appell
