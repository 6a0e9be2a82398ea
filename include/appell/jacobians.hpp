// Joint-space quantities of a Model's spanning tree, in the joint coordinates of a State
// (q, u; appell/tree.hpp): body Jacobians, the joint-space mass matrix and forward dynamics
// with joint forces added.  What Pinocchio's computeJointJacobians/crba/aba and MuJoCo's
// mj_jac/mj_fullM/mj_forward give, for embedders and the Python module.
//
// Jacobian.  A body's twist is linear in u at fixed q: (v_p; ω) = J_p(q) u, with v_p the
// world-frame velocity of a world point p moving with the body and ω its angular velocity.
// Its rows are found by virtual power, without differentiating anything: a unit force e
// at p (force e at the centre of mass x̄, moment (p − x̄) × e) has power e·v_p, so row r of
// J_p is the generalized force of that wrench, Jᵀ w (tree_generalized_forces(), pass 2 of
// RNEA; appell/inverse_dynamics.hpp N5); a unit moment gives the rows of ω.
//
// Mass matrix.  The kinetic energy T = ½ Σ_b (m_b |v̄_b|² + ω_bᵀ I_b ω_b) = ½ uᵀ M(q) u
// gives M = Σ_b (m_b J_vᵀ J_v + J_ωᵀ I_b J_ω) with J_v, J_ω body b's Jacobian at its
// centre of mass and I_b its world inertia: symmetric by construction, positive definite
// on the tree's coordinates (semi-definite when a massless subtree leaves a direction
// without inertia).
//
// Forward dynamics.  u̇ of the recursive formulation (the model's extra rows included,
// appell/forward.hpp forward_tree) with generalized forces τ added in joint coordinates:
// Gauss's principle with the added force τ [UK96 eq. 4] changes u̇ by
//   Δu̇ = M⁻¹ (τ − A_Tᵀ λ),   (A_T M⁻¹ A_Tᵀ) λ = A_T M⁻¹ τ   (λ the minimum-norm solution)
// with A_T the extra rows in tree coordinates (none on a tree: Δu̇ = M⁻¹ τ).  Dense:
// O(n·nu² + nu³) when τ ≠ 0, else the recursion's O(n).
#pragma once

#include <Eigen/Core>
#include <memory>

#include "appell/state_space.hpp"

namespace appell {

// J (6 × tree nu): rows 0–2 the velocity of world point p moving with body `body`, rows
// 3–5 its angular velocity (zero for a particle), both world frame, at the joint state s
// (u is not read).  Writes d.body, d.J and the rest of set_state().  O(n).  Throws
// std::invalid_argument for a body index out of range or a State of the wrong size.
void body_jacobian(const Model& m, Data& d, const State& s, int body, const Vec3& p,
                   Eigen::MatrixXd& J);

// M(q) (tree nu × tree nu) at the joint state s, ½ uᵀ M u = kinetic_energy().  Writes what
// set_state() writes.  O(nbody · (n + nu²)).  Throws as body_jacobian().
void mass_matrix(const Model& m, Data& d, const State& s, Eigen::MatrixXd& M);

// Forward dynamics in joint coordinates, reusable across states (one per thread: it holds
// a Data and the recursive formulation's workspace; the Model is shared and must outlive it).
class JointForward {
 public:
  explicit JointForward(const Model& m);
  // u̇ (tree nu) at s with the generalized forces tau (tree nu, or empty for none) added
  // to the model's own forces.  Returns the evaluation's status (data().diagnostics says
  // why when it is not Ok).  Throws std::invalid_argument on wrong sizes.
  SolveStatus operator()(const State& s, const Eigen::VectorXd& tau, Eigen::VectorXd& udot);
  Data& data() { return d_; }

 private:
  const Model& m_;
  Data d_;
  std::unique_ptr<StateSpace> space_;
  Eigen::VectorXd x_, xdot_;
  Eigen::MatrixXd M_;
};

}  // namespace appell
