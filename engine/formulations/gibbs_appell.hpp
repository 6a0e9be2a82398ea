// The explicit extended Gibbs–Appell equation in maximal quasi-velocities.
//
// Ref: [UK98] Udwadia & Kalaba, Quart. Appl. Math. 56(2), 1998, eqs. 7–8, 34–37;
//      [HO21] Honein & O'Reilly, J. Appl. Mech. 88(7), 2021, §6.
// With r = rank A found numerically, the quasi-accelerations are split into r eliminated
// ones ü_e and n − r independent ones ü_I, A = [A_e A_I] (columns of A_e independent):
//   ü_e = A_e⁺ (b − A_I ü_I)                                                  (eq. 8)
//   M = [M_ee M_eI; M_Ie M_II],  R = A_e⁺ A_I                                  (eq. 34)
//   (M_II + Rᵀ M_ee R − M_Ie R − Rᵀ M_Ieᵀ) ü_I
//         = F_I − Rᵀ F_e + (Rᵀ M_ee − M_Ie) A_e⁺ b        i.e. ∂S/∂ü_I = P     (eqs. 35–36)
// and ü_e follows from the first block row of eq. 37.  M_Ie ≠ 0 here because J couples
// the three components of ω.  The reduced (reactionless) matrix is symmetric positive
// definite [UK98 (i)–(ii)], so it is solved by Cholesky.
//
// Splitting.  The rank r is decided by the rule every formulation shares (rank_policy.hpp,
// on the unit-response rows); a column-pivoted Householder QR of the scaled A then gives
// the split: A P = Q [R11 R12; 0 R22], R22 ≈ 0; the first r pivoted columns
// are the eliminated quasi-accelerations, A_e⁺ A_I = R11⁻¹ R12 and A_e⁺ b = R11⁻¹ (Qᵀb)₁.
// The quasi-velocities are scaled by diag(M)^{-1/2} first (still quasi-velocities), so
// pivoting does not depend on units.
//
// Constraint forces are recovered afterwards from the eliminated equations: the
// generalized constraint force is M ü − F, and λ = (Aᵀ)⁺(M ü − F) [HO21 §6, UK96 eq. 22],
// minimum-norm for the unit-response rows (dense.hpp).
//
// Cost O(m n² + (n − r)³); dense.
#pragma once

#include "appell/data.hpp"

namespace appell {

// Reads d.terms, d.b, d.F, d.J.  Writes d.A, d.udot, d.lambda, d.diagnostics.
void solve_gibbs_appell(const Model& m, Data& d);

}  // namespace appell
