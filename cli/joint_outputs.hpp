// The joint-space outputs of `appell eval` and `appell simulate` (docs/scene-format.md,
// "Joint-space outputs").  Every joint of the scene (a constraint of a joint type) is
// reported in its own coordinates (appell/joint_state.hpp), whatever the formulation:
//
//   traj.csv     per joint <j>.q and <j>.qd, forces.csv per actuated joint <j>.tau and
//   forces.csv   <j>.power: the columns of appell/output_schema.hpp, their values from
//                appell::JointColumns (appell/joint_columns.hpp)
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

// eval's "joints" object at the evaluated state d (after forward); `state` the joint-space
// State of d (null: none), which a joint of the tree run in its own direction reads its q,
// u and actuator force from (appell/joint_columns.hpp)
nlohmann::ordered_json joints_json(const Model& m, const Data& d, const State* state,
                                   JointFrame frame = JointFrame::Parent);

}  // namespace appell::cli
