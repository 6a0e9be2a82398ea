// The joint-space outputs of `appell eval` and `appell simulate` (docs/scene-format.md,
// "Joint-space outputs").  Every joint of the scene (a constraint of a joint type) is
// reported in its own coordinates (appell/joint_state.hpp), whatever the formulation:
//
//   traj.csv     after the existing columns: per joint <j>.q and <j>.qd (one column a
//                coordinate; several: <j>.q0 <j>.q1 ..., <j>.qd0 ...), in the joint type's
//                order (free: position then quaternion [w x y z]; spherical: quaternion).
//                Angles are continuous from row to row (whole turns are kept).
//   forces.csv   after the existing columns: per actuated joint (one named by a joint force
//                or a prescribed-motion constraint) <j>.tau (or .tau0 ...), the actuator's
//                generalized force, and <j>.power = τ·u, the rate at which it works.
//   eval         joints: {name: {q, qd, qdd, force: {reaction: {force, moment}, actuator}}}
//                with the reaction of the joint on its child at the anchor, in the parent
//                joint frame F = Q_P E_P, and the actuator's generalized force.  A free or
//                spherical joint also says its "frame": with JointFrame::Child its qd, qdd,
//                reaction and actuator are in the child joint frame G = F R(q) instead
//                (appell/joint_columns.hpp, F1 and F2).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "appell/data.hpp"
#include "appell/joint_columns.hpp"
#include "appell/simulation.hpp"
#include "cli/outputs.hpp"

namespace appell::cli {

std::string joint_traj_header(const Model& m);    // ",<j>.q,<j>.qd,..." (may be empty)
std::string joint_forces_header(const Model& m);  // ",<j>.tau,<j>.power,..." (may be empty)

// eval's "joints" object at the evaluated state d (after forward)
nlohmann::ordered_json joints_json(const Model& m, const Data& d,
                                   JointFrame frame = JointFrame::Parent);

}  // namespace appell::cli
