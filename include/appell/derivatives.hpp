// Exact first derivatives of the tree's dynamics in joint coordinates (docs/derivatives.md).
//
// Inverse dynamics τ = ID(q, u, u̇) = M(q) u̇ + C(q, u) u − Q(q, u, t) (appell/inverse_dynamics.hpp)
// and forward dynamics u̇ = FD(q, u, τ), its inverse in u̇.  Their derivatives
//   ∂τ/∂q, ∂τ/∂u, ∂τ/∂u̇ = M          ∂u̇/∂q = −M⁻¹ ∂τ/∂q, ∂u̇/∂u = −M⁻¹ ∂τ/∂u, ∂u̇/∂τ = M⁻¹
// (Carpentier & Mansard, "Analytical derivatives of rigid body dynamics algorithms", RSS
// 2018, eqs. 6–7: the forward derivatives from the inverse ones at u̇ = FD(q, u, τ)).
//
// Derivatives with respect to q are taken along the tangent space, one direction per
// quasi-velocity (tree nu, not nq): column k is d/dh at h = 0 of the function at q ⊕ h e_k,
// where q ⊕ δ moves q by q̇ = N(q) δ (appell/joint_type.hpp J4).  For a joint whose q̇ = u
// this is ∂/∂q_k itself; for a quaternion joint it is the rotation by δ's components about
// the parent joint frame's axes, as Pinocchio does.
//
// Exact, on two paths (the result is the same to rounding).  A tree of revolute (continuous),
// prismatic and fixed joints takes the analytical derivatives of the Newton–Euler recursion
// in world-frame spatial quantities (Carpentier & Mansard's structure: a forward pass of
// motion columns, their rates, velocities and accelerations; a backward pass of composite
// inertias; each joint's row against its ancestors), O(n · depth); the forward derivatives
// then apply M⁻¹ column by column with the articulated-body factor, O(n) each, O(n²) in all.
// Any other tree (a spherical, free, planar, universal, cylindrical, helical or particle
// joint anywhere) takes forward-mode automatic differentiation (dual numbers carrying eight
// directions at a time) through a templated copy of the recursive Newton–Euler passes,
// whose joint motions R(q), d(q), S(q), Ṡu (J1–J3) and their derivatives are each type's
// own (JointType::motion_tangent): O(n · nu) (⌈2 nu / 8⌉ passes), plus the dense M for the
// forward derivatives and its Cholesky, O(n · nu² + nu³).  Covered: gravity, armature, the
// joint-space forces (actuator torques and PD servos whose targets depend on time only,
// joint springs, joint damping) on joints the tree runs in their own direction.  A model
// with other forces (body-space springs and dampers, point forces, callables, expressions
// of the state) throws std::invalid_argument naming it.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "appell/data.hpp"

namespace appell {

struct InverseDerivatives {
  Eigen::VectorXd tau;      // ID(q, u, u̇)                       (nu)
  Eigen::MatrixXd dtau_dq;  // ∂τ/∂q along the tangent           (nu × nu)
  Eigen::MatrixXd dtau_du;  // ∂τ/∂u                             (nu × nu)
  Eigen::MatrixXd M;        // ∂τ/∂u̇, the mass matrix            (nu × nu)
};

struct ForwardDerivatives {
  Eigen::VectorXd udot;        // FD(q, u, τ)                       (nu)
  Eigen::MatrixXd dudot_dq;    // ∂u̇/∂q along the tangent           (nu × nu)
  Eigen::MatrixXd dudot_du;    // ∂u̇/∂u                             (nu × nu)
  Eigen::MatrixXd dudot_dtau;  // M⁻¹ (with extra rows: ∂u̇/∂τ)      (nu × nu)
  // With extra rows (loops, closed chains, holonomic and nonholonomic constraints, m rows
  // A u̇ = b in joint space): A, the multipliers λ of M u̇ + h − τ = Aᵀλ (Aᵀλ is the
  // generalized constraint force; row k's force on a body is λ_k times its lin at the
  // centre and its ang, appell/constraint.hpp) and their derivatives.  Empty for a tree.
  Eigen::MatrixXd A;             // (m × nu)
  Eigen::VectorXd lambda;        // (m)
  Eigen::MatrixXd dlambda_dq;    // (m × nu)
  Eigen::MatrixXd dlambda_du;    // (m × nu)
  Eigen::MatrixXd dlambda_dtau;  // (m × nu)
  Eigen::MatrixXd dpi_dq;        // ∂π/∂q along the tangent, π = A u + e the rows'
                                 // velocity residual (m × nu)
};

// The derivatives of inverse dynamics at the joint state s and quasi-accelerations udot
// (tree nu).  Extra rows (loops, constraints) are ignored, as inverse_dynamics() does.
// Writes d as mass_matrix() does.  Throws std::invalid_argument on wrong sizes or a force
// it does not cover.
void inverse_dynamics_derivatives(const Model& m, Data& d, const State& s,
                                  const Eigen::VectorXd& udot, InverseDerivatives& out);

// The derivatives of forward dynamics at s with the generalized forces tau (tree nu, or
// empty for none) added to the model's own.  Throws as inverse_dynamics_derivatives().
// With extra rows, u̇ is the constrained acceleration (the solution of M u̇ + h − τ = Aᵀλ,
// A u̇ = b, at any q, u: on or off the rows' manifold) and its derivatives, with λ's, are
// exact: each row's derivatives come from Constraint::evaluate_tangent (every built-in
// constraint but expressions, callables and prescribed motion, which throw
// std::invalid_argument naming the constraint), through the automatic-differentiation
// passes.  A redundant set of rows gives the least-norm λ and its least-norm derivatives.
void forward_dynamics_derivatives(const Model& m, Data& d, const State& s,
                                  const Eigen::VectorXd& tau, ForwardDerivatives& out);

// ∂ẋ/∂x (nx × nx, nx = tree nq + nu) of the tree's first-order system ẋ = (N(q) u,
// FD(q, u, 0)) in its own coordinates x = (q, u) (appell/state_space.hpp, the recursive
// formulation): what an implicit integrator needs.  A quaternion's block is the tangent
// derivative composed with ∂δ/∂q = 2 vec(· ⊗ q̄) (the right side reads q/|q|, so the
// radial direction has none), exact at unit quaternions.  Throws as
// forward_dynamics_derivatives().  Also gives u̇ (tree nu) when udot is not null.
void state_jacobian(const Model& m, Data& d, const State& s, Eigen::MatrixXd& J,
                    Eigen::VectorXd* udot = nullptr);

// The linear model ẋ = A x + B w about s (`appell linearize`, docs/derivatives.md): x = (δq,
// u − u_ref) with δq the tangent coordinates about the reference motion through s at the
// same instant (q = q_ref(t) ⊕ δq), w the generalized forces added on the quasi-velocities
// `inputs` (indices into the tree's u; B's columns in that order),
//   A = [[W, I], [∂u̇/∂q, ∂u̇/∂u]],   B = [[0], [M⁻¹ E]].
// W is zero except on a spinning quaternion joint, whose δq (twice the Gibbs vector of
// q ⊗ q_ref⁻¹, about the parent frame) moves at δq̇ = δω + ω_ref × δq: so a steady motion
// whose spin is a symmetry of what the joint carries (a wheel or a disk at the root, an
// axisymmetric rotor) is a fixed point of the model and its eigenvalues are the motion's
// exponents.  (An unsymmetric body spinning freely is steady only in its own axes, which
// this chart is not; `note` says when a quaternion joint spins.)  A steady turn (the roots'
// world-frame rates turning at one Ω about the vertical, u̇ = Ω ẑ × u, all others
// constant) is taken in a frame turning with it: each world-frame 3-vector of δq and δu
// gains −Ω ẑ × (turn_rate; docs/derivatives.md "Steady turns").  The derivatives are
// exact where forward_dynamics_derivatives() covers the model's forces; otherwise (exact =
// false, note says why) Richardson-extrapolated central differences of the forward
// recursion (error O(h⁶), about 1e-10).
// With extra rows A_c u = 0 (loops, holonomic and nonholonomic constraints), the model is
// reduced by coordinate partitioning: column-pivoted QR of the holonomic rows picks the
// dependent coordinates, of all rows the dependent velocities, and x = (δq_I, u_V).  The
// motion keeps to the manifold g(q) = 0, A_c(q) u = 0, so the linear model of the full
// chart maps its tangent space into itself: A is the independent rows of the full ∂ẋ/∂x
// applied to the tangent vectors that x spans (the dependent δq from A_h δq = 0, the
// dependent δu from A_c δu + ∂(A_c u)/∂q δq = 0), each column the exact derivative along a
// straight line in the chart (the constrained derivatives above; where they do not cover the
// model, a Richardson difference, exact = false).  Throws when s's velocities violate the rows
// (rheonomic rows, prescribed motion, are not reduced).
struct LinearModel {
  Eigen::MatrixXd A, B;          // (nI + nV) square, (nI + nV) × inputs
  Eigen::VectorXd udot;          // u̇ at s (zero at an equilibrium)
  std::vector<int> coordinates;  // I: the independent coordinates (tangent indices, tree nu)
  std::vector<int> velocities;   // V: the independent quasi-velocities (tree nu indices)
  std::vector<int> held;         // quasi-velocities held at zero rate (see below), tree nu
  bool exact = true;
  double turn_rate = 0;  // Ω of a steady turn the model is taken in (rad/s), 0 if none
  std::string note;
};
LinearModel linearize(const Model& m, const State& s, const std::vector<int>& inputs);
// The same with the quasi-velocities `held` (tree nu indices of one-coordinate joints)
// kept at zero rate: joints resting on a limit whose force is positive, for which the closed
// limit is the holonomic row q_j = bound as long as the force stays positive (a small
// perturbation keeps it so).  Those coordinates leave x (coordinates = velocities = the
// others, held = these); u̇ on the others solves M_II u̇_I = τ_I − ID(q, u, 0)_I, the held
// rows' limit forces taking the rest, and A, B are its exact derivatives (inverse dynamics'
// at u̇ = (u̇_I, 0); Richardson differences, exact = false, where those do not cover the
// forces).  An input on a held coordinate has a zero column.  Trees only: throws
// std::invalid_argument with extra rows, and on indices out of range.
LinearModel linearize(const Model& m, const State& s, const std::vector<int>& inputs,
                      const std::vector<int>& held);

// The eigenvalues of a linear model's A and its eigenvectors (columns, over the states
// x).  States whose column of A is nil (below 1e-12 of its largest entry) in the rows not
// yet set aside are set aside first, one at a time, each with an exact eigenvalue 0 shown
// as that state alone: cyclic coordinates (a position along a straight road, a heading, a
// wheel's angle) form Jordan chains of 0 that an eigen-solver would otherwise spread over
// a disc of radius ε^(1/k), near the small eigenvalues of a critical speed.  The rest is
// Eigen's EigenSolver.  Throws std::runtime_error when it does not converge.
struct LinearModes {
  Eigen::VectorXcd values;   // nx
  Eigen::MatrixXcd vectors;  // nx × nx
  int cyclic = 0;            // how many states were set aside (their values come last)
};
LinearModes modes(const LinearModel& lm);

// q ⊕ δ (tree nq from tree nq and tree nu): q + N(q) δ with each joint's quaternion
// normalised, a smooth retraction whose derivative at δ = 0 is the tangent direction above.
Eigen::VectorXd tangent_step(const Model& m, const Eigen::VectorXd& q,
                             const Eigen::VectorXd& delta);

}  // namespace appell
