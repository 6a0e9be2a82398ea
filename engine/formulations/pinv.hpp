// The generalized-inverse (Udwadia–Kalaba) equation in maximal quasi-velocities.
//
// Ref: [UK96] Udwadia & Kalaba, J. Aerospace Eng. 9(3), 1996.
//   M ü = F + M^{1/2} (A M^{-1/2})⁺ (b − A M⁻¹F)                               (eq. 4)
//   ü  = a + M^{-1/2} (A M^{-1/2})⁺ (b − A a),   a = M⁻¹F                       (eq. 5)
//   F^c = M^{1/2} C⁺ e,  C = A M^{-1/2},  e = b − A a                           (eq. 17)
//   λ  = (Aᵀ)⁺ F^c  (minimum norm; unique when A has full row rank)            (eq. 22)
// (all three written for the unit-response rows of rank_policy.hpp, which leaves ü unchanged)
// u = (v̄, ω) per body, M = diag(m I, J), F = (f, τ − ω × Jω) [HO21 eq. 7].
//
// Why the Moore–Penrose inverse and not a Cholesky solve of A M⁻¹ Aᵀ.  The Cholesky route
// (the {1}-inverse form, [UK98 eq. 26], used by `sparse`) is cheaper, but A M⁻¹ Aᵀ is
// singular as soon as rows are redundant (a closed loop, a fixed joint written twice),
// and its condition number is the square of C's.  C⁺ is applied through one complete
// orthogonal decomposition of Cᵀ (column-pivoted QR of the unit rows, then a QR of R's
// transpose), which gives the minimum-norm least-squares solution — exactly C⁺e — with
// the rank decided by rank_policy.hpp (P2), and the same factorisation gives the
// minimum-norm multipliers, at a cost O(m² n) rather than the SVD's larger constant.  M^{1/2} is
// the symmetric square root, per body (eigen-decomposition of each 3×3 J), as in the paper.
//
// Cost O(m² n + n) for m rows and n quasi-velocities; dense.  Prefer `recursive` for
// trees and `sparse` for large, sparse systems.
#pragma once

#include "appell/data.hpp"

namespace appell {

// Reads d.terms, d.b, d.F, d.J.  Writes d.A, d.udot, d.lambda, d.diagnostics.
void solve_pinv(const Model& m, Data& d);

}  // namespace appell
