#include "engine/formulations/sparse.hpp"

#include "engine/assembly/stages.hpp"
#include "engine/formulations/rank_policy.hpp"
#include "engine/formulations/sparse_workspace.hpp"

namespace appell {

namespace {

// M_b⁻¹ per body, a = M⁻¹ F, w = M⁻¹ t per term, ρ_r² = Σ_t tᵀ M⁻¹ t per row (P1, as
// row_responses) and e = b − A a, in one pass over the terms.  O(n + terms).
void weighted_terms(const Model& m, const Data& d, SparseWorkspace& ws) {
  for (int b = 0; b < m.ncomposite(); ++b) {
    const BodyBlock block = m.block(b);
    const int o = block.offset;
    ws.a.segment<3>(o) = d.F.segment<3>(o) / m.composites()[b].mass;
    if (block.size() == 3) continue;  // a particle's block: no angular part, J⁻¹ stays zero
    ws.Jinv[b] = composite_inertia(m, d, b).inverse();  // symmetric positive definite 3 × 3
    ws.a.segment<3>(o + 3) = ws.Jinv[b] * d.F.segment<3>(o + 3);
  }
  ws.rho.setZero();
  ws.e = d.b;
  const SpatialForce* terms = composite_terms(m, d);
  for (int t = 0; t < m.nterms(); ++t) {
    const int b = ws.term_body[t], row = ws.term_row[t];
    const SpatialForce& term = terms[t];
    SpatialForce& w = ws.w[t];  // M⁻¹ of the term (a particle's J⁻¹ and moment are zero)
    w.force = term.force / m.composites()[b].mass;
    // a particle's turn costs nothing (its block has no angular part; w.moment stays zero)
    if (m.block(b).size() == 6) w.moment = ws.Jinv[b] * term.moment;
    ws.rho(row) += term.force.dot(w.force) + term.moment.dot(w.moment);
    ws.e(row) -= m.block(b).dot(term, ws.a);
  }
  ws.rho = ws.rho.cwiseSqrt();
}

// G = A M⁻¹ Aᵀ straight into the factor's pattern: (S1) per body and pair of its terms
// (the scaling by D happens in the factorisation).  O(Σ_b k_b²).
void assemble_gram(const Model& m, SparseWorkspace& ws, const Data& d) {
  std::vector<double>& Gx = ws.ldlt.values();
  std::fill(Gx.begin(), Gx.end(), 0.0);
  const int* slot = ws.pair_slot.data();
  const SpatialForce* terms = composite_terms(m, d);
  for (int b = 0; b < m.ncomposite(); ++b) {
    // a particle's pairs skip the moments' half of their block (a net of particles: 6% of its
    // solve where they were taken as zeros)
    const bool angular = m.block(b).size() == 6;
    const int p0 = ws.body_terms_p[b], p1 = ws.body_terms_p[b + 1];
    for (int p = p0; p < p1; ++p) {
      const SpatialForce& tx = terms[ws.body_terms[p]];
      for (int q = p; q < p1; ++q, ++slot) {
        const SpatialForce& wy = ws.w[ws.body_terms[q]];
        double g = tx.force.dot(wy.force);
        if (angular) g += tx.moment.dot(wy.moment);
        if (*slot >= 0) {
          Gx[*slot] += g;
        } else {
          Gx[-1 - *slot] += 2.0 * g;  // two terms of one row on this body
        }
      }
    }
  }
}

}  // namespace

void solve_sparse(const Model& m, Data& d) {
  SparseWorkspace& ws = sparse_workspace(m, d);
  weighted_terms(m, d, ws);
  if (m.nrows() == 0) {
    d.udot = ws.a;
    return;
  }
  // rows scaled to unit response: Ĝ = D A M⁻¹ Aᵀ D has a unit diagonal (rank_policy.hpp)
  const double tau = dependence_tolerance(m, d, ws.rho);
  for (int r = 0; r < m.nrows(); ++r) ws.D(r) = ws.rho(r) > 0 ? 1.0 / ws.rho(r) : 0.0;
  assemble_gram(m, ws, d);
  ws.e.array() *= ws.D.array();  // ê = D (b − A a)  [UK98 eq. 26]

  // μ = Ĝ⁻ ê with the zero-pivot LDLᵀ of Ĝ = D G D, a {1}-inverse (ldlt_zero_pivot.hpp)
  ws.ldlt.factorize(tau, &ws.D);
  ws.ldlt.solve(ws.e, ws.mu);  // the dropped rows' consistency: check_consistency below
  d.lambda = ws.D.cwiseProduct(ws.mu);

  // ü = a + M⁻¹ Aᵀ λ, term by term
  d.udot = ws.a;
  for (int t = 0; t < m.nterms(); ++t)
    m.block(ws.term_body[t]).add(d.udot, d.lambda(ws.term_row[t]) * ws.w[t]);
  d.diagnostics.rank = ws.ldlt.rank();
  d.diagnostics.rank_tolerance = tau;
  check_consistency(m, d, ws.rho, tau);
}

}  // namespace appell
