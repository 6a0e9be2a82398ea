// The joint-space columns of a run's outputs, shared by `appell simulate` (traj.csv,
// forces.csv) and appell::Trajectory (so the Python module writes the same files).
// Every joint of the model (a constraint of a joint type) is reported in its own
// coordinates (appell/joint_state.hpp), whatever the formulation, in constraint order:
//
//   state columns      <j>.q and <j>.qd (one column a coordinate; several: <j>.q0 <j>.q1 ...,
//                      <j>.qd0 ...), in the joint type's order (free: position then
//                      quaternion [w x y z]; spherical: quaternion).  Angles are continuous
//                      from sample to sample: whole turns of the previous sample are kept.
//   actuator columns   per actuated joint (one named by a joint force or a prescribed-motion
//                      constraint) <j>.tau (or .tau0 ...), the actuator's generalized force,
//                      and <j>.power = τ·u, the rate at which it works (joint_state.hpp G1).
//
// Cost: JointColumns finds each joint's forces and prescribed constraints once; a sample then
// costs O(1) per joint and allocates nothing once `out` has grown.  The free functions build a
// JointColumns per call (a scan of the forces and constraints per joint).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "appell/data.hpp"
#include "appell/joint.hpp"
#include "appell/model.hpp"

namespace appell {

class JointForce;
class PrescribedJointConstraint;

// The joint columns of one model, resolved once: for every joint its periodic coordinates,
// and for every actuated one the joint forces and prescribed-motion rows that drive it.
class JointColumns {
 public:
  explicit JointColumns(const Model& m);
  // as append_joint_states / append_joint_actuators below
  void append_states(const Data& d, std::vector<double>& last, std::vector<double>& out) const;
  void append_actuators(const Data& d, std::vector<double>& out) const;

 private:
  struct Entry {
    const Joint* joint;
    std::vector<char> periodic;                   // per coordinate: an angle
    std::vector<const JointForce*> forces;        // the joint forces on it
    std::vector<std::pair<int, int>> prescribed;  // (row, coordinate) of its prescribed rows
  };
  std::vector<Entry> joints_;
};

// the model's joints, in constraint order
std::vector<const Joint*> model_joints(const Model& m);

// the names of the state columns (may be empty)
std::vector<std::string> joint_state_columns(const Model& m);
// the names of the actuator columns (may be empty)
std::vector<std::string> joint_actuator_columns(const Model& m);

// Appends the state columns at d to out.  `last` keeps the previous sample's coordinates
// (angle continuity): empty before the first sample, updated here.
void append_joint_states(const Model& m, const Data& d, std::vector<double>& last,
                         std::vector<double>& out);
// Appends the actuator columns at d (after forward: it reads the multipliers) to out.
void append_joint_actuators(const Model& m, const Data& d, std::vector<double>& out);

// The actuator's generalized force on joint j (nu entries): the sum of its joint forces
// and the multipliers of the prescribed-motion constraints on its coordinates (d after
// forward).  False, with tau zero, when nothing actuates the joint.
bool joint_actuator_force(const Model& m, const Data& d, const Joint& j, double* tau);

}  // namespace appell
