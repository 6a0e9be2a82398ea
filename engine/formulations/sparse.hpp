// The {1}-inverse form of the generalized-inverse equation, with a sparse factorisation.
//
// Ref: [UK98] eq. 26:   M ü = F + Aᵀ (A M⁻¹ Aᵀ)^{1} (b − A a),   a = M⁻¹F.
// Any {1}-inverse gives the same ü [UK98, after eq. 26].  The rows are scaled to unit
// response (rank_policy.hpp), so Ĝ = D A M⁻¹ Aᵀ D has a unit diagonal, and Ĝ's {1}-inverse
// is applied through a sparse LDLᵀ that drops dependent rows (ldlt_zero_pivot.hpp): a row
// whose pivot — the squared sine of its angle to the rows kept before it — is below τ²
// gets no pivot, which is exactly the rank policy every formulation follows.  Redundant
// rows (closed loops, a joint written twice) therefore cost nothing extra: no dense
// fallback, still O(n) for chains and sparse graphs (a row touches at most two bodies;
// two rows couple only when they share a body, so Ĝ has O(n) nonzeros).
//
// Multipliers.  With independent rows λ = D Ĝ⁻¹ ê is unique.  With redundant rows the
// zero-pivot inverse yields the basic multipliers: a dependent row's multiplier is 0 and
// the rows kept before it (in the fill-reducing order) carry its force.  The forces on
// every body, Aᵀλ, are the unique ones, equal to pinv's; the split among the redundant
// rows is not pinv's minimum-norm split.  Making it minimum-norm would need a basis of
// null(Âᵀ) (one sparse solve per dropped row) and a dense projection on it, O(n p + p³)
// for p dependent rows, which is what this formulation exists to avoid.
//
// Once per model.  The pattern of Ĝ, its ordering, elimination tree and the pattern of L
// depend only on which rows name which bodies: the first evaluation on a Data analyses them
// (engine/formulations/sparse_workspace.hpp) and keeps them in d.sparse; every later evaluation
// assembles Ĝ straight into the factor's pattern, factorises and solves without
// allocating.
#pragma once

#include "appell/data.hpp"

namespace appell {

// Reads d.terms, d.b, d.F, d.J, d.position_residual.  Writes d.udot, d.lambda,
// d.diagnostics, and d.sparse (analysed on the first call for m).  O(nnz(L)) and no
// allocation after the first call: about O(n) for chains and sparse graphs.
void solve_sparse(const Model& m, Data& d);

}  // namespace appell
