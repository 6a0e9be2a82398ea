// Internal to the scene loader: the parsers of constraints and forces, by type.
// A later constraint or force type is one more entry in these tables.
#pragma once

#include <functional>
#include <map>

#include "appell/constraint.hpp"
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
  // a point given for body b at t = 0: a particle's point must be the particle itself
  Vec3 point_of(int b, const Node& n) const;
};

using ConstraintParser =
    std::function<ConstraintPtr(const Node&, const std::string& name, const SceneContext&)>;
using ForceParser = std::function<ForcePtr(const Node&, const SceneContext&)>;

const std::map<std::string, ConstraintParser>& constraint_parsers();
const std::map<std::string, ForceParser>& force_parsers();

}  // namespace appell
