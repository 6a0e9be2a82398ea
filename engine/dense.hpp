// Pieces shared by the dense formulations (pinv, gibbs-appell).
//
// Rank tolerance.  Rows of A carry different units (m/s² for point rows, 1/s² for angle
// rows) and columns mix linear and angular accelerations, so a raw pivot threshold would
// depend on the choice of units.  Both formulations therefore scale first: columns by
// the mass metric (M^{-1/2} in pinv, diag(M)^{-1/2} in gibbs-appell) and then each row to
// unit length.  Neither scaling changes the constrained minimiser of the Gaussian.  A
// pivot then counts as nonzero when |r_kk| > kRankTolerance · |r_00|.  1e-10 separates
// exactly redundant rows (pivots ~1e-16 after scaling) from independent rows near a
// singular configuration (pivots ~1e-6 and up in practice) with wide margins on both
// sides.
//
// Consistency.  After the solve, row i of A u̇ = b is violated when
//     |A_i u̇ − b_i| > kConsistencyTolerance · (|b_i| + Σ_j |A_ij u̇_j| + |C_i| s),
//     C = A M^{-1/2},  s = |M^{1/2} u̇| + |M^{-1/2} F| + max_k |b_k| / |C_k|,
// which happens only when b is not in the range of A (contradictory constraints).  Every
// term is in the row's own units (|A_i u̇| ≤ |C_i| |M^{1/2} u̇|), so the test does not
// depend on the choice of units: an absolute floor would hide the contradictions of a
// mechanism measured in micrometres.
#pragma once

#include "engine/data.hpp"

namespace appell {

constexpr double kRankTolerance = 1e-10;
constexpr double kConsistencyTolerance = 1e-6;

// Marks d.diagnostics Inconsistent (naming the constraints) when A u̇ ≠ b; also records
// the relative residual.  Reads d.A, d.b, d.udot.
void check_consistency(const Model& m, Data& d);

// λ = (Aᵀ)⁺ (M u̇ − F): the minimum-norm multipliers [UK96 eq. 22 with h = 0], with the
// rank of A decided on unit rows (so a row's arbitrary scale cannot hide its force).
// Reads d.A, d.udot, d.F, d.J.  Writes d.lambda.
void minimum_norm_multipliers(const Model& m, Data& d);

// Reads d.J.  Dense generalized mass matrix (nu × nu, block diagonal).
Eigen::MatrixXd dense_mass(const Model& m, const Data& d);

}  // namespace appell
