// The {1}-inverse form of the generalized-inverse equation, with a sparse factorisation.
//
// Ref: [UK98] eq. 26:   M ü = F + Aᵀ (A M⁻¹ Aᵀ)^{1} (b − A a),   a = M⁻¹F.
// Any {1}-inverse gives the same ü [UK98, after eq. 26], so when A M⁻¹ Aᵀ is nonsingular
// its inverse is applied through a sparse LDLᵀ factorisation (Eigen SimplicialLDLT with
// AMD ordering).  For chains and sparse graphs A M⁻¹ Aᵀ has O(n) nonzeros (a row touches
// at most two bodies; two rows couple only when they share a body), so the whole
// evaluation is about O(n).  The multipliers are then λ = (A M⁻¹ Aᵀ)⁻¹(b − A a), unique.
//
// Scaling: rows are scaled so that A M⁻¹ Aᵀ has a unit diagonal (its Jacobi scaling);
// a pivot of the scaled factor below kRankTolerance (dense.hpp) means the rows are
// redundant.  Then A M⁻¹ Aᵀ is singular, a plain LDLᵀ is not a {1}-inverse, and the
// evaluation falls back to the dense Moore–Penrose solve (`pinv`), which also yields the
// minimum-norm multipliers — correct, at O(n³).  Diagnostics record the fallback.
#pragma once

#include "engine/data.hpp"

namespace appell {

// Reads d.terms, d.b, d.F, d.J.  Writes d.udot, d.lambda, d.diagnostics (and d.A when
// falling back).
void solve_sparse(const Model& m, Data& d);

}  // namespace appell
