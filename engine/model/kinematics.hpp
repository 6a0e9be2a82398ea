// The tree's body kinematics written once over the scalar S: double for the engine, the
// dual numbers Dual8 for the derivatives (engine/formulations/recursive/derivatives_ad.cpp).
// Joint coordinates → body states, base to tip, by the joint equations of
// appell/joint_type.hpp:
//   Q_C = Q_P E_P R(q) E_Cᵀ,   x_A = x̄_P + Q_P X_P + Q_P E_P d(q),   x̄_C = x_A − Q_C X_C   (J1)
//   (ḋ; ω_rel) = F V_J,  V_J = S(q) u,  F = Q_P E_P:
//   ω_C = ω_P + ω_rel,   v̄_C = v̄_P + ω_P × (x̄_C − x̄_P) + ω_rel × (x̄_C − x_A) + ḋ   (J2)
// cf. spatial_v2's jcalc and the first loop of RBDA Table 5.1 (Featherstone, "Rigid Body
// Dynamics Algorithms", 2008), here about the bodies' centres of mass in the world frame.
// The recursion's own pass (engine/formulations/recursive/kinematics_BaseToTip.cpp) adds
// the motion subspaces and velocity products on top of these, with steps of its own for
// turns, slides and free joints.
//
// The templates are instantiated for double and Dual8 in kinematics.cpp; joint_step is
// inline, for the double callers' per-joint loops (tree_kinematics, joint_kinematics).
#pragma once

#include <vector>

#include "appell/tree.hpp"
#include "bodies/dual_number.hpp"

namespace appell {

// the derivatives' dual numbers: eight tangent directions a pass
using Dual8 = DualNumber<8>;

// A body's state and a joint's motion over the scalar T, with the members of the public
// BodyState and JointMotion, which are the double ones
template <class T>
struct KinematicsOf {
  using V3 = Eigen::Matrix<T, 3, 1>;
  using M3 = Eigen::Matrix<T, 3, 3>;
  struct BodyState {
    V3 x = V3::Zero();
    M3 Q = M3::Identity();
    V3 v = V3::Zero();
    V3 w = V3::Zero();
  };
  struct JointMotion {
    M3 R = M3::Identity();
    V3 d = V3::Zero();
    Eigen::Matrix<T, 6, 6> S;
    Eigen::Matrix<T, 6, 1> c = Eigen::Matrix<T, 6, 1>::Zero();
  };
};
template <>
struct KinematicsOf<double> {
  using BodyState = appell::BodyState;
  using JointMotion = appell::JointMotion;
};
template <class T>
using BodyStateT = typename KinematicsOf<T>::BodyState;
template <class T>
using JointMotionT = typename KinematicsOf<T>::JointMotion;

// One tree joint at one state: its motion and where it sits.
template <class T>
struct JointPlacementT {
  JointMotionT<T> motion;      // R, d, S, Ṡu in F (J1–J3)
  Eigen::Matrix<T, 3, 3> QE;   // F's axes in the world, Q_P E_P
  Eigen::Matrix<T, 3, 1> x_A;  // the anchor in the world
  Eigen::Matrix<T, 6, 1> V_J;  // S u, in F
};

// The tree's bodies and joints at one state.
template <class T>
struct TreeKinematicsT {
  explicit TreeKinematicsT(const TreeModel& tree, int nbody)
      : body(nbody), joint(tree.joints.size()) {}
  std::vector<BodyStateT<T>> body;        // per model body; by body_kinematics_BaseToTip
  std::vector<JointPlacementT<T>> joint;  // per tree joint; by body_kinematics_BaseToTip
};

// joint t's motion at its q, u: its type's motion(), and for duals also its derivative along
// each direction seeded on them (JointType::motion_tangent; throws std::invalid_argument for a
// type without one)
inline void joint_motion(const TreeJoint& t, const double* q, const double* u, JointMotion& jm) {
  t.type->motion(q, u, jm);
}
void joint_motion(const TreeJoint& t, const Dual8* q, const Dual8* u, JointMotionT<Dual8>& jm);

// C from its parent's state P and its joint's motion jm at the rates u (J1, J2); QE, x_A and
// V_J as JointPlacementT's.  O(1).
template <class T>
inline void joint_step(const JointFrames& f, int nu, const BodyStateT<T>& P,
                       const JointMotionT<T>& jm, const T* u, BodyStateT<T>& C,
                       Eigen::Matrix<T, 3, 3>& QE, Eigen::Matrix<T, 3, 1>& x_A,
                       Eigen::Matrix<T, 6, 1>& V_J) {
  using V3 = Eigen::Matrix<T, 3, 1>;
  // pose (J1)
  QE.noalias() = P.Q * f.E_P.template cast<T>();
  C.Q.noalias() = QE * jm.R * f.E_C.transpose().template cast<T>();
  x_A = P.x + P.Q * f.X_P.template cast<T>() + QE * jm.d;
  C.x = x_A - C.Q * f.X_C.template cast<T>();
  // twist (J2): the anchor slides with ḋ, the child turns with ω_rel about the anchor
  V_J.setZero();
  for (int k = 0; k < nu; ++k) V_J += jm.S.col(k) * u[k];
  const V3 w_rel = QE * V_J.template tail<3>();
  C.w = P.w + w_rel;
  C.v = P.v + P.w.cross(C.x - P.x) + w_rel.cross(C.x - x_A) + QE * V_J.template head<3>();
}

// Every tree body's state and every joint's placement at (q, u) (tree nq, nu), base to tip
// (J1, J2).  O(n).
template <class T>
void body_kinematics_BaseToTip(const TreeModel& tree, const T* q, const T* u,
                               TreeKinematicsT<T>& k);

}  // namespace appell
