// Projections onto the constraint manifolds in maximal coordinates, in the mass metric.
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
#pragma once

#include "appell/data.hpp"

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

// The largest |g| over the holonomic rows and the constraint it belongs to (−1 if none).
// Reads d.position_residual (call constraint_rows first).
double max_position_violation(const Model& m, const Data& d, int* constraint = nullptr);

}  // namespace appell
