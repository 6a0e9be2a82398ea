// The recursive Newton–Euler algorithm written once over the scalar S: double for inverse
// dynamics (inverse_dynamics.cpp) and the analytical derivatives' accelerations and forces
// (engine/formulations/recursive/rnea_derivatives.cpp), Dual8 for the derivatives by dual
// numbers (engine/formulations/recursive/derivatives_ad.cpp).  RBDA Table 5.1 (Featherstone,
// "Rigid Body Dynamics Algorithms", 2008), written about each body's centre of mass in the
// world frame (appell/inverse_dynamics.hpp, N1–N5):
//   pass 1, base to tip: body states (J1, J2: engine/model/kinematics.hpp), then
//     α_C = α_P + ω_P × ω_rel + F (S u̇ + c)_ang                                    (N1)
//     a_A = a_P + α_P × r_P + ω_P × (v_A − v̄_P) + ω_P × ḋ + F (S u̇ + c)_lin        (N2)
//     a_C = a_A + α_C × (x̄_C − x_A) + ω_C × (ω_C × (x̄_C − x_A))                    (N3)
//   the wrench each body needs beyond the applied ones, about the world origin O,
//     f = m ā − f_applied,   n_O = J α + ω × J ω − n_applied + x̄ × f   [HO21 eq. 7] (N4)
//   pass 2, tip to base: summed over the subtree, taken to the anchor and projected
//     τ_j = S_jᵀ (Fᵀ f_sub; Fᵀ (n_O,sub − x_A × f_sub))                               (N5)
// Instantiated for double and Dual8 in rnea.cpp.  Internal to engine/.
#pragma once

#include <vector>

#include "appell/model.hpp"
#include "engine/model/kinematics.hpp"

namespace appell {

// The passes' workspace: sized once per model, allocated by its constructor.
template <class S>
struct RneaWorkT : TreeKinematicsT<S> {
  explicit RneaWorkT(const Model& m)
      : TreeKinematicsT<S>(m.tree(), m.nbody()), a(m.nbody()), F(m.nbody()) {}
  // body states and joint placements: TreeKinematicsT's, by body_kinematics_BaseToTip
  std::vector<SpatialMotionT<S>> a;  // (dv̄/dt; dω/dt) (N1–N3); by rnea_accelerations_BaseToTip
  std::vector<SpatialForceT<S>> F;   // about O: the body's (N4) by rnea_wrenches, then its
                                     // subtree's by rnea_forces_TipToBase           (nbody)
};
using RneaWork = RneaWorkT<double>;

// (N1–N3) of tree joint t: its child's acceleration A_C from its parent's state P and
// acceleration A_P (the world's: rest, zero), its child's state C and its placement J at the
// joint accelerations udot (its nu).  O(1).
template <class S>
inline void rnea_acceleration_step(const TreeJoint& t, const BodyStateT<S>& P,
                                   const SpatialMotionT<S>& A_P, const BodyStateT<S>& C,
                                   const JointPlacementT<S>& J, const S* udot,
                                   SpatialMotionT<S>& A_C) {
  using V3 = Eigen::Matrix<S, 3, 1>;
  Eigen::Matrix<S, 6, 1> Sdd = J.motion.c;  // S u̇ + c, in F
  for (int k = 0; k < t.nu; ++k) Sdd += J.motion.S.col(k) * udot[k];
  const V3 r_P = J.x_A - P.x, r_C = C.x - J.x_A;
  const V3 w_rel = J.QE * J.V_J.template tail<3>(), d_dot = J.QE * J.V_J.template head<3>();
  const V3 v_A = C.v - C.w.cross(r_C);
  A_C.angular = A_P.angular + P.w.cross(w_rel) + J.QE * Sdd.template tail<3>();  //     (N1)
  const V3 a_A = A_P.linear + A_P.angular.cross(r_P) + P.w.cross(v_A - P.v) + P.w.cross(d_dot) +
                 J.QE * Sdd.template head<3>();                           //     (N2)
  A_C.linear = a_A + A_C.angular.cross(r_C) + C.w.cross(C.w.cross(r_C));  //     (N3)
}

// (N1–N3) at the joint accelerations udot (tree nu), after body_kinematics_BaseToTip.  O(n).
template <class S>
void rnea_accelerations_BaseToTip(const TreeModel& tree, const S* udot, RneaWorkT<S>& w);

// (N4) into w.F: what each body needs beyond `applied` (per body, at the centre of mass;
// nullptr: gravity alone), after rnea_accelerations_BaseToTip.  O(n).
template <class S>
void rnea_wrenches(const Model& m, const SpatialForceT<S>* applied, RneaWorkT<S>& w);

// (N5): τ (tree nu) of the bodies' wrenches F about O (one per model body), which become
// the subtrees' sums, at the joints' placements.  O(n).
template <class S>
void rnea_forces_TipToBase(const TreeModel& tree, const std::vector<JointPlacementT<S>>& joint,
                           std::vector<SpatialForceT<S>>& F, S* tau);

}  // namespace appell
