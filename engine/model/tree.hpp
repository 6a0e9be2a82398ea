// The spanning tree's kinematics (private to the library): building the tree, joint
// coordinates → body states and back, q̇ = N(q) u.  The tree's layout itself (TreeJoint,
// TreeModel: which joint owns which coordinates of a State) and one joint's kinematics
// (joint_kinematics) are public, appell/tree.hpp.
#pragma once

#include "appell/tree.hpp"

namespace appell {

class Model;
struct Data;
struct State;

// The spanning forest of m's joints.  O(n + constraints).
TreeModel build_tree(const Model& m);

// Whether tree joint t's motion columns are the identity at every state: a free root whose
// axes are the world's (E_P = 1) and whose anchor is its body's centre (X_C = 0), so that
// the kinematics' S = (Q E_P, Q E_P × r; 0, Q E_P) (R2) is 1 exactly.  O(1).
inline bool identity_motion(const TreeJoint& t) {
  return t.shape == JointShape::Free && t.parent < 0 && t.frames.X_C.isZero(0.0) &&
         t.frames.E_P.isIdentity(0.0);
}

// Joint coordinates → body states d.body and world inertias d.J, base to tip (J1, J2), and
// the composites' d.composite, d.Jc.  O(n).
void tree_kinematics(const Model& m, const Eigen::Ref<const Eigen::VectorXd>& q,
                     const Eigen::Ref<const Eigen::VectorXd>& u, Data& d);
// Body states d.body → the maximal q, u (d.q, d.u) of the composites (appell/model.hpp).
// O(n).
void maximal_from_bodies(const Model& m, Data& d);
// d.state = s, and d.q, d.u as the maximal q, u of s (appell/data.hpp), after they were
// set from it.  O(n), allocates nothing once d has held a State.
void remember_state(Data& d, const State& s);
// Body states → joint coordinates, q (nq) and u (nu): the inverse of tree_kinematics for
// states that satisfy the tree joints.  O(n).
void tree_from_bodies(const TreeModel& tree, const std::vector<BodyState>& body,
                      Eigen::Ref<Eigen::VectorXd> q, Eigen::Ref<Eigen::VectorXd> u);
// One tree joint's q (nq) and u (nu) from its parent's state P and its child's C: the
// inverse of J1, J2 (joint_kinematics) for states the joint holds.  O(1).
void joint_from_bodies(const TreeJoint& t, const BodyState& P, const BodyState& C, double* q,
                       double* u);
// The State the description gives at t = 0 (Model::initial_state()), joint by joint, as
// MuJoCo's qpos0: a tree joint run in its own direction that states its coordinates
// (Joint::initial_q, initial_u: a scene joint's "q", "qd") keeps them exactly, whole turns
// included; the joints the bodies' described poses define (the roots' free and particle
// joints, joints built from the bodies' poses at t = 0, a stated joint the tree runs
// backwards) are read off those poses (joint_from_bodies).  O(n).
State initial_tree_state(const Model& m);
// Throws std::invalid_argument, naming `caller` and both sizes, unless s has the tree's
// nq and nu.  O(1).
void check_state_sizes(const TreeModel& tree, const State& s, const char* caller);
// q̇ = N(q) u of the tree coordinates (J4).  O(n).
void tree_qdot(const TreeModel& tree, const Eigen::Ref<const Eigen::VectorXd>& q,
               const Eigen::Ref<const Eigen::VectorXd>& u, Eigen::Ref<Eigen::VectorXd> qdot);
// restores the invariants of q (unit quaternions).  O(n).
void tree_normalize(const TreeModel& tree, Eigen::Ref<Eigen::VectorXd> q);

}  // namespace appell
