// Inverse dynamics: the joint forces that produce a given motion (README, Embedding).
//
// Recursive Newton–Euler on the Model's spanning tree, in its joint coordinates
// (engine/model/tree.hpp), cf. RBDA Table 5.1 (Featherstone, "Rigid Body Dynamics Algorithms",
// 2008), written about each body's centre of mass in the world frame as the rest of the
// engine is:
//
//   pass 1, base to tip: body accelerations from q, u, u̇ (the time derivative of J1–J2)
//     α_C = α_P + ω_P × ω_rel + F (S u̇ + c)_ang                                    (N1)
//     a_A = a_P + α_P × r_P + ω_P × (v_A − v̄_P) + ω_P × ḋ + F (S u̇ + c)_lin        (N2)
//     a_C = a_A + α_C × (x̄_C − x_A) + ω_C × (ω_C × (x̄_C − x_A))                    (N3)
//   with F = Q_P E_P, x_A the anchor, r_P = x_A − x̄_P, v_A the anchor's velocity in C,
//   ḋ = F (S u)_lin, ω_rel = F (S u)_ang, c = Ṡ u (J3);
//   pass 2, tip to base: the net wrench each body needs, less what the applied forces
//   (gravity and the model's forces, joint actuators included) already supply,
//     f_i = m a_i − F_i,   n_i = J α_i + ω × J ω − M_i            [HO21 eq. 7]      (N4)
//   summed over the subtree and taken to the joint's anchor, then projected on the joint
//     τ_j = S_jᵀ (Fᵀ f_sub; Fᵀ n_sub,A)                               (G1 transposed) (N5)
// so τ = M(q) u̇ + C(q, u) u − Q_applied(q, u, t): what the joint actuators must add.
// Cost O(n).  Allocates O(n) scratch per call (it is not on the simulation's path).
//
// Constrained systems (extra rows beyond the tree: loops, prescribed motion, ...).  The
// rows A u̇ = b [UK96 eq. 3] are written in tree coordinates, A_T = A J (J the tree's
// Jacobian, whose transpose is pass 2 applied to each row's unit force), A_T u̇ = b − A J̇ u
// (J̇ u: pass 1 with u̇ = 0; the bodies' accelerations are J u̇ + J̇ u).  A motion u̇ that
// satisfies them is produced by any actuator force τ with
//   τ + A_Tᵀ λ = Q := M u̇ + C u − Q_applied,                                        (N6)
// the constraint force A_Tᵀ λ being exactly the one the generalized-inverse equation
// [UK96 eq. 4] gives for the applied force Q_applied + τ (ideal constraints: a force of
// the form Aᵀλ that yields A u̇ = b is the unique Gauss force).  (N6) is underdetermined:
//   * all tree coordinates actuated (the default): the minimum-norm τ, i.e. λ = (A_Tᵀ)⁺ Q
//     and τ = Q − A_Tᵀ λ, which does no work against the constraints (A_T τ = 0);
//   * actuated joints chosen: τ = B τ_a with B selecting their coordinates, and
//     (τ_a, λ) the minimum-norm least-squares solution of [B A_Tᵀ] (τ_a; λ) = Q; the
//     residual says when these actuators cannot produce the motion (under-actuated).
// Assumptions: the constraints are ideal (workless), u̇ satisfies A u̇ = b (the residual
// |A u̇ − b| is reported, not enforced), and the solves are dense, O(n·m + (m + k)³).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "appell/data.hpp"

namespace appell {

// τ (tree nu) = M(q) u̇ + C(q, u) u − Q_applied(q, u, t) on the tree of m at state s, with
// u̇ the joint quasi-accelerations (tree nu).  Extra rows are ignored.  Writes d.t, d.body,
// d.J, d.q, d.u (set_state) and d.applied, d.F.  O(n).  Throws std::invalid_argument on
// wrong sizes.
void inverse_dynamics(const Model& m, Data& d, const State& s, const Eigen::VectorXd& udot,
                      Eigen::VectorXd& tau);

struct ConstrainedInverse {
  Eigen::VectorXd tau;         // actuator forces (tree nu; zero at unactuated coordinates)
  Eigen::VectorXd tau_tree;    // Q = M u̇ + C u − Q_applied (N6)                (tree nu)
  Eigen::VectorXd lambda;      // multipliers of the extra rows (model row order)  (m)
  Eigen::MatrixXd A;           // extra rows in tree coordinates A_T               (m × nu)
  Eigen::VectorXd b;           // their right side in tree coordinates, b − A J̇ u  (m)
  double constraint_residual;  // max |A_T u̇ − b|
  double force_residual;       // max |τ + A_Tᵀ λ − Q| (0 unless under-actuated)
};

// (N6) at state s: the actuator forces producing u̇ with the extra rows' constraint
// forces.  `actuated`: tree joint indices (tree order) whose coordinates carry actuators;
// empty: all.  Writes what inverse_dynamics writes, and d.terms, d.b (no stabilization).
ConstrainedInverse inverse_dynamics_constrained(const Model& m, Data& d, const State& s,
                                                const Eigen::VectorXd& udot,
                                                const std::vector<int>& actuated = {});

// τ = Jᵀ w (tree nu): the generalized forces of body wrenches w (one per body, force at
// the centre of mass, moment about it, world frame) on the tree at joint coordinates q
// (tree nq) and the bodies' states d.body there (pass 2 of RNEA alone).  O(n).
void tree_generalized_forces(const Model& m, const Data& d, const Eigen::VectorXd& q,
                             const std::vector<SpatialForce>& w, Eigen::VectorXd& tau);

}  // namespace appell
