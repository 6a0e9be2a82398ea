// The spanning tree's kinematics (private to the library): building the tree, joint
// coordinates → body states and back, q̇ = N(q) u.  The tree's layout itself (TreeJoint,
// TreeModel: which joint owns which coordinates of a State) and one joint's kinematics
// (joint_kinematics) are public, appell/tree.hpp.
#pragma once

#include "appell/tree.hpp"

namespace appell {

class Model;
struct Data;

// The spanning forest of m's joints.  O(n + constraints).
TreeModel build_tree(const Model& m);

// Joint coordinates → body states d.body and world inertias d.J, base to tip (J1, J2), and
// the composites' d.composite, d.Jc.  O(n).
void tree_kinematics(const Model& m, const Eigen::Ref<const Eigen::VectorXd>& q,
                     const Eigen::Ref<const Eigen::VectorXd>& u, Data& d);
// Body states d.body → the maximal q, u (d.q, d.u) of the composites (appell/model.hpp).
// O(n).
void maximal_from_bodies(const Model& m, Data& d);
// Body states → joint coordinates, q (nq) and u (nu): the inverse of tree_kinematics for
// states that satisfy the tree joints.  O(n).
void tree_from_bodies(const TreeModel& tree, const std::vector<BodyState>& body,
                      Eigen::Ref<Eigen::VectorXd> q, Eigen::Ref<Eigen::VectorXd> u);
// q̇ = N(q) u of the tree coordinates (J4).  O(n).
void tree_qdot(const TreeModel& tree, const Eigen::Ref<const Eigen::VectorXd>& q,
               const Eigen::Ref<const Eigen::VectorXd>& u, Eigen::Ref<Eigen::VectorXd> qdot);
// restores the invariants of q (unit quaternions).  O(n).
void tree_normalize(const TreeModel& tree, Eigen::Ref<Eigen::VectorXd> q);

}  // namespace appell
