// Pieces shared by the dense formulations (pinv, gibbs-appell) and the projections.
//
// Both formulations start from the same scaled system (rank_policy.hpp): the rows of
// A u̇ = b divided by their unconstrained responses ρ_k = ‖A_k‖_{M⁻¹}, and the columns
// multiplied by the symmetric M^{-1/2}, so that C = D A M^{-1/2} has unit rows, and one
// complete orthogonal decomposition of Cᵀ decides the rank (P2), gives C⁺ and the minimum-
// norm multipliers.  Cost: O(m² n) for m rows and n quasi-velocities.
#pragma once

#include "engine/formulations/rank_policy.hpp"

namespace appell {

// The unit-response rows of the current state and their generalized inverse.
struct UnitRows {
  Eigen::VectorXd rho;  // ρ_k = ‖A_k‖_{M⁻¹} (P1)                                  (m)
  Eigen::VectorXd D;    // 1/ρ_k (0 for an empty row)                                (m)
  double tau = 0.0;     // τ of the state (P3)
  Eigen::MatrixXd C;    // D A M^{-1/2}                                              (m × n)
  UnitRowInverse inverse;
};

// Reads d.A (dense_rows first), d.J, d.position_residual, d.terms.  Writes `out`.
void unit_rows(const Model& m, const Data& d, const InverseSqrtMass& Mis, UnitRows& out);

// λ = D μ, μ = (Cᵀ)⁺ M^{-1/2} (M u̇ − F): the minimum-norm multipliers of the unit rows
// [UK96 eq. 22 with h = 0] (rank_policy.hpp, "Multipliers").  Reads d.udot, d.F, d.J.
// Writes d.lambda.
void minimum_norm_multipliers(const Model& m, Data& d, const InverseSqrtMass& Mis,
                              const UnitRows& rows);

// Reads d.J.  Dense generalized mass matrix (nu × nu, block diagonal).
Eigen::MatrixXd dense_mass(const Model& m, const Data& d);

}  // namespace appell
