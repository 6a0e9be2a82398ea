// The recursive formulation: O(n) Gibbs–Appell equations of a tree of joints, with extra
// rows on top (docs/architecture.md, `recursive`).  The derivation, with the equations (R1)–(R16)
// cited below, is in docs/recursive.md; it starts from the Gibbs function S [HO21 eq. 6].
//
// Notation (world frame, about each body's centre of mass, v̄ before ω as in the maximal u):
//   V_i = (v̄_i, ω_i)            the body's twist;  a_i = dV_i/dt
//   V_i = X_i V_p + S_i u_i      X_i shifts by r_i = x̄_i − x̄_p (R2);  S_i motion subspace
//   a_i = X_i a_p + S_i u̇_i + c_i                        c_i velocity products (R3)
//   M_i = diag(m I, J_i),  f_i = (f, τ − ω × J ω)          [HO21 eqs. 6, 7]       (R1)
//   IA_i, pA_i  the Gibbs function of the subtree at i, condensed onto body i:
//               S_i(a_i) = ½ a_iᵀ IA_i a_i + pA_iᵀ a_i + const                    (R6)
//
// Extra rows.  Constraints that are not tree joints give A a = b on the bodies'
// accelerations.  With a⁰ the tree's accelerations under the applied forces and a^k its
// response to the unit force of row k alone (the recursion applies M⁻¹ in O(n)),
//   G λ = b − A a⁰,   G_jk = A_j a^k  (= A M⁻¹ Aᵀ on the tree)                   (R13)
// is solved with a pseudo-inverse (redundant rows allowed): this is the generalized-
// inverse equation [UK96 eq. 4] on the reduced system, O(n·m + m³).  The choice of a
// pseudo-inverse of G over a Cholesky factorization is forced by redundant rows: G is then
// singular.  Each row is scaled by its unconstrained response ρ_k = ‖A_k‖_{M⁻¹} in the
// *maximal* mass metric (rank_policy.hpp, P1), not by G's own diagonal: the scaled G is
// then the Schur complement of the tree joints' rows in the unit-diagonal Gram matrix of
// all rows, its diagonal entry is sin² of the row's angle to the tree joints, and its
// eigenvalues are compared with τ² absolutely (P2, P3) — the rule every formulation uses.
// A row that repeats a tree joint has a zero column in G; scaling G to a unit diagonal, as
// was done before, blew its round-off up to a full-rank block (multipliers of 1e17).
// Redundant extra rows get the minimum-norm split among themselves; against the tree
// joints they are basic: a tree joint carries the whole force of a row that repeats it
// (the forces on each body are the unique ones, equal to pinv's).
//
// Reactions [HO21 §6].  The force exerted through tree joint i on the subtree is
//   R_i = IA_i a_i + pA_i                                                          (R15)
// and the multipliers of the joint's canonical rows (constraints/joints.cpp) are the
// minimum-norm λ_j with A_jᵀ λ_j = R_i on both bodies: (A_j A_jᵀ) λ_j = A_j R_i.     (R16)
#pragma once

#include "appell/data.hpp"
#include "engine/model/tree.hpp"

namespace appell {

struct RecursiveWorkspace;  // engine/formulations/recursive/workspace.hpp

// The recursion's workspace in d (built with d).
RecursiveWorkspace& recursive_workspace(const Model& m, Data& d);
// The joint quasi-accelerations u̇ (tree.nu) of the last solve_recursive or
// recursive_accelerations on d.
const Eigen::VectorXd& joint_accelerations(const Model& m, Data& d);

// The joint-space applied forces τ (tree.nu) of the last evaluation on d: the sum of the
// generalized forces of the forces that act along a tree joint (Force::joint_space),
// zero where there are none.  Their power is τ·u.
const Eigen::VectorXd& joint_space_forces(const Model& m, Data& d);

// The applied forces of the recursion after recursive_kinematics: body-space forces into
// d.applied and d.F (applied_forces), joint-space forces of tree joints into τ from the
// joint coordinates q, u (not into d.F; solve_recursive adds them there afterwards).
// Returns whether τ is finite.  O(n).
bool recursive_applied_forces(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                              const Eigen::Ref<const Eigen::VectorXd>& u);

// Pass 1: body states d.body and world inertias d.J straight from the joint coordinates
// q (tree.nq) and quasi-velocities u (tree.nu), with the joints' motion subspaces and
// velocity products.  O(n).  Run before applied_forces() and constraint_rows().
void recursive_kinematics(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                          const Eigen::Ref<const Eigen::VectorXd>& u);

// The recursive solve after recursive_kinematics, recursive_applied_forces and
// constraint_rows of the extra rows: passes 2 and 3, extra rows, joint multipliers; then τ
// joins d.applied and d.F as body wrenches.  Writes d.udot (maximal),
// d.lambda (tree joint rows and extra rows), the tree joints' reactions and residuals (0),
// d.diagnostics and the joint u̇.
// O(n) for a tree, O(n·m + m³) with m extra rows.  Never allocates after the first call.
void solve_recursive(const Model& m, Data& d);

// What an integrator needs and no more: pass 1, applied forces, the extra rows (with
// `st`), passes 2 and 3 and the extra rows' λ.  The joint u̇ and d.diagnostics are those
// solve_recursive gives, bit for bit; d.udot, the tree joints' rows and multipliers and
// d.reaction are not written.  An Inconsistent status is provisional: solve_recursive
// confirms it on every row.  O(n) for a tree, O(n·m + m³) with m extra rows.
SolveStatus recursive_rates(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                            const Eigen::Ref<const Eigen::VectorXd>& u, const Stabilization& st);

// recursive_rates with the applied forces (body and joint space) evaluated at the
// velocity u_forces and everything else — the velocity products, ω × J ω, the extra rows'
// velocity terms — at u: the moreau stepper's implicit midpoint takes the inertial terms
// at the step's mean velocity and the forces at its start.  Two kinematics passes, then
// as above.
SolveStatus recursive_rates(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                            const Eigen::Ref<const Eigen::VectorXd>& u,
                            const Eigen::Ref<const Eigen::VectorXd>& u_forces,
                            const Stabilization& st);
// The same at q with the applied forces already on d (d.applied, d.F, τ: those of an
// earlier evaluation at this q and t, put back by the caller), not evaluated again: the
// contact stepper's midpoint passes, whose forces stay those of the step's start velocity.
SolveStatus recursive_rates_kept_forces(const Model& m, Data& d,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& u,
                                        const Stabilization& st = {});
// The same at new rates u only, on a tree without extra rows, right after one of the above
// at this q (nothing else evaluated at another q in between): the poses, motion subspaces
// and articulated inertias are that evaluation's, the velocity products and gyroscopic
// forces anew — one bias pass instead of the articulated-inertia pass.  The midpoint passes
// of the contact stepper.
SolveStatus recursive_rates_new_velocity(const Model& m, Data& d,
                                         const Eigen::Ref<const Eigen::VectorXd>& q,
                                         const Eigen::Ref<const Eigen::VectorXd>& u);

// The contact stepper's joint-space route, on a tree without extra rows: recursive_terms
// is pass 1 and the applied forces (body and joint space) with d.diagnostics as
// recursive_rates leaves them, the articulated passes left out; joint_space_bias then gives
// the joint forces b the motion alone needs at u̇ = 0 beyond the applied ones, M u̇ = −b, for
// a factor of the mass matrix M to solve (engine/contact/joint_space_delassus.cpp); and
// recursive_passes runs what recursive_rates would have run after pass 1 and the forces
// (passes 2 and 3), where something needs the articulated inertias after all.  O(n) each.
void recursive_terms(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                     const Eigen::Ref<const Eigen::VectorXd>& u);
void joint_space_bias(const Model& m, Data& d, Eigen::VectorXd& b);
SolveStatus recursive_passes(const Model& m, Data& d, const Stabilization& st = {});

// Only the tree accelerations: pass 1, applied forces and the passes; no rows, no
// multipliers, no reactions; extra rows are ignored.  Writes d.body, d.J, d.F, d.udot and
// the joint u̇.  O(n).
void recursive_accelerations(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                             const Eigen::Ref<const Eigen::VectorXd>& u);

}  // namespace appell
