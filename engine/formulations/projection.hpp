// Projections onto the constraint manifolds in the mass metric: in maximal coordinates
// (P1–P3, the maximal formulations' state space), and in the joint coordinates of the
// spanning tree (J-P1, J-P2 below: the recursion's state space, and the start of every run).
//
// Positions.  The holonomic rows g(x̄, Q) = 0 are solved by Gauss–Newton.  A holonomic
// row's velocity coefficients are the gradient of g: with Q̇ = ω× Q, dg/dt = lin·v̄ + ang·ω
// (+ ∂g/∂t), so for a displacement δx̄ and a small world-frame rotation δθ,
//     δg = lin·δx̄ + ang·δθ + O(|δ|²)                                          (P1)
// and the step of least kinetic-energy-like size ½ δᵀMδ that makes the linearised g zero is
//     δ = −M^{-1/2} (G M^{-1/2})⁺ g,      G = [lin ang] of the holonomic rows    (P2)
// (the same generalized inverse as [UK96 eq. 4], here acting on positions).  The update is
// x̄ ← x̄ + δx̄, Q ← exp(δθ×) Q, i.e. the quaternion q ← exp(δθ/2) ⊗ q, which stays unit.
// Near the manifold the iteration converges quadratically; a few iterations take a
// violation of 1e-6 to round-off.
//
// Velocities.  The velocity rows π = A u + e = 0 (all rows, holonomic or not) are met by
// the mass-metric projection
//     u ← u − M⁻¹Aᵀ(AM⁻¹Aᵀ)⁺ π = u − M^{-1/2} (A M^{-1/2})⁺ π                  (P3)
// which is exact in one step for rows linear in u and is iterated for rows nonlinear in u
// (lin/ang are then ∂φ/∂u at the current velocity, a Newton step).  (P3) changes u by the
// least ‖δu‖_M = sqrt(δuᵀ M δu): the smallest change of "kinetic energy" that makes the
// velocities admissible, the velocity analogue of Gauss's principle.
//
// The first Gauss–Newton step (and the first velocity step) is always taken, even below
// the tolerances: near a singular position a component along a nearly dependent direction
// v is invisible in the residual (it shows as σ times itself, σ → 0) but decides which
// branch the motion follows; one step removes it exactly (rank_policy.hpp, item 4).
//
// Redundant rows are harmless: the pseudo-inverse (complete orthogonal decomposition of
// the unit-response rows of A M^{-1/2}) drops them by the rule every formulation shares
// (rank_policy.hpp), drift-aware and with the same τ, so that near a singular position the
// projection neither divides the drift by a vanishing angle nor disagrees with the solver.
// Cost: O(m² n) per iteration for m rows and n quasi-velocities (dense).
//
// In joint coordinates (q, u of the tree, a State) the tree joints hold at every state, so
// only the extra rows (loops, primitives; tree().extra) are projected.  Their velocity
// terms give the joint-space Jacobian J = A ∂V/∂u (V the body twists), and the kinetic
// energy is ½ uᵀ H u, so the minimum-‖δu‖_H corrections are
//     positions:  δu = −R (J R)⁺ g,   q ← q + N(q) δu (then unit quaternions)        (J-P1)
//     velocities: u ← u − R (J R)⁺ π,   R = H⁻¹ Jᵀ                                   (J-P2)
// R's columns are the recursion's responses to the rows' unit forces and J R its matrix G
// (engine/formulations/recursive.hpp, R12, R13), so H is never formed: O(n·m + m³) per
// iteration for m extra rows.  J R is scaled and its dependent directions dropped as in
// (R13); since ‖δu‖_H = ‖δV‖_M over the tree's motions, (J-P2) gives the velocities P3
// gives on the same state, and (J-P1) a point of the same manifold (not necessarily the
// same point: the two iterations take different paths).
#pragma once

#include "appell/data.hpp"
#include "appell/forward.hpp"

namespace appell {

struct ProjectionReport {
  int iterations = 0;
  double residual = 0.0;    // max |g| (positions) or max |π| (velocities) afterwards
  double correction = 0.0;  // positions: max |δ|; velocities: ‖Δu‖_M = sqrt(ΔuᵀMΔu)
};

// Gauss–Newton on the holonomic rows (P1–P2).  Reads d.t, d.q.  Writes d.q, d.body, d.J,
// the row fields (d.terms, d.b, residuals) and d.A.  Returns Ok, or Inconsistent (with
// d.diagnostics.message naming the worst constraint) when max |g| stays above 1e-6.
SolveStatus project_positions(const Model& m, Data& d, ProjectionReport* report = nullptr);

// The velocity projection (P3).  Reads d.t, d.q, d.u.  Writes d.u, d.body, the row fields
// and d.A.  Returns Ok, or Inconsistent when max |π| stays above 1e-6 (1 + |u|∞).
SolveStatus project_velocities(const Model& m, Data& d, ProjectionReport* report = nullptr);

// Gauss–Newton on the holonomic extra rows in joint coordinates (J-P1): moves q (tree().nq)
// at d.t.  Writes d.body, d.J and the extra rows' fields (with u = 0).  Returns Ok, or
// Inconsistent as project_positions.
SolveStatus project_joint_positions(const Model& m, Data& d, Eigen::Ref<Eigen::VectorXd> q,
                                    ProjectionReport* report = nullptr);
// The velocity projection in joint coordinates (J-P2): moves u (tree().nu) at q, d.t.
// Leaves d.body, d.J and the extra rows' fields at (q, u).  Returns Ok, or Inconsistent as
// project_velocities; report->correction is ‖Δu‖_H.
SolveStatus project_joint_velocities(const Model& m, Data& d,
                                     const Eigen::Ref<const Eigen::VectorXd>& q,
                                     Eigen::Ref<Eigen::VectorXd> u,
                                     ProjectionReport* report = nullptr);
// The start of a run up to its evaluation: initial_conditions() (appell/forward.hpp)
// without the final forward().  Positions checked on the extra rows, velocities projected
// (J-P2), body states computed from the joint coordinates only; d.q, d.u are not written
// and d.body, d.J, the extra rows' fields describe ic.state afterwards.  For a run, which
// evaluates the state it starts from itself.  Throws std::invalid_argument when s does
// not have the model's sizes.
SolveStatus project_initial_state(const Model& m, Data& d, const State& s, InitialConditions& ic);
// The tree's u at q (d.t) whose body velocities are nearest to bodies' v̄, ω in the mass
// metric, u = H⁻¹ Jᵀ M V (M at q): after (J-P1) moved q, the velocities the bodies had,
// as the maximal projection keeps them (P1–P3), so that (J-P2) then gives what P3 gives.
// Writes d.body, d.J.  O(n).
void joint_velocities_of(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                         const std::vector<BodyState>& bodies, Eigen::Ref<Eigen::VectorXd> u);
// The largest |g| over the holonomic extra rows (tree().extra) and its constraint (−1 if
// none); the tree's rows hold in joint coordinates.  Reads d.position_residual.
double max_extra_position_violation(const Model& m, const Data& d, int* constraint = nullptr);

// The largest |g| over the holonomic rows and the constraint it belongs to (−1 if none).
// Reads d.position_residual (call constraint_rows first).
double max_position_violation(const Model& m, const Data& d, int* constraint = nullptr);

}  // namespace appell
