#include "engine/sparse.hpp"

#include <Eigen/SparseCore>
#include <vector>

#include "engine/ldlt_zero_pivot.hpp"
#include "engine/rank_policy.hpp"
#include "engine/stages.hpp"

namespace appell {

namespace {

using SpMat = Eigen::SparseMatrix<double>;

// A (rows × nu) and A M⁻¹ (rows × nu) from the row terms, as triplets
void assemble(const Model& m, const Data& d, SpMat& A, SpMat& AMinv) {
  std::vector<Eigen::Triplet<double>> ta, tm;
  ta.reserve(6 * m.nterms());
  tm.reserve(6 * m.nterms());
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const Constraint& con = *m.constraints()[c];
    const int nb = static_cast<int>(con.bodies().size());
    for (int i = 0; i < con.rows(); ++i) {
      const int row = m.row_offset(c) + i;
      for (int j = 0; j < nb; ++j) {
        const int body = con.bodies()[j];
        const Body& bd = m.bodies()[body];
        const RowTerm& t = d.terms[m.term_offset(c) + i * nb + j];
        const int iu = m.u_offset(body);
        const Vec3 lin_m = t.lin / bd.mass;
        for (int k = 0; k < 3; ++k) {
          ta.emplace_back(row, iu + k, t.lin(k));
          tm.emplace_back(row, iu + k, lin_m(k));
        }
        if (bd.rigid()) {
          const Vec3 ang_m = d.J[body].ldlt().solve(t.ang);  // J symmetric: (J⁻¹ ang)ᵀ
          for (int k = 0; k < 3; ++k) {
            ta.emplace_back(row, iu + 3 + k, t.ang(k));
            tm.emplace_back(row, iu + 3 + k, ang_m(k));
          }
        }
      }
    }
  }
  A.resize(m.nrows(), m.nu());
  AMinv.resize(m.nrows(), m.nu());
  A.setFromTriplets(ta.begin(), ta.end());  // duplicates (a body named twice) are summed
  AMinv.setFromTriplets(tm.begin(), tm.end());
}

}  // namespace

void solve_sparse(const Model& m, Data& d) {
  Eigen::VectorXd a;
  solve_mass(m, d, d.F, a);
  if (m.nrows() == 0) {
    d.udot = a;
    return;
  }
  SpMat A, AMinv;
  assemble(m, d, A, AMinv);

  // rows scaled to unit response: Ĝ = D A M⁻¹ Aᵀ D has a unit diagonal (rank_policy.hpp)
  Eigen::VectorXd rho;
  row_responses(m, d, rho);
  const double tau = dependence_tolerance(m, d, rho);
  const Eigen::VectorXd D = rho.unaryExpr([](double r) { return r > 0 ? 1.0 / r : 0.0; });
  const SpMat G = D.asDiagonal() * (AMinv * A.transpose()) * D.asDiagonal();
  const Eigen::VectorXd e = D.cwiseProduct(d.b - A * a);  // ê = D (b − A a)  [UK98 eq. 26]

  // μ = Ĝ⁻ ê with the zero-pivot LDLᵀ, a {1}-inverse (ldlt_zero_pivot.hpp)
  ZeroPivotLDLT ldlt;
  ldlt.compute(G, tau);
  Eigen::VectorXd mu;
  ldlt.solve(e, mu);  // the dropped rows' consistency: check_consistency below
  d.lambda = D.cwiseProduct(mu);
  d.udot = a + AMinv.transpose() * d.lambda;  // ü = a + M⁻¹ Aᵀ λ
  d.diagnostics.rank = ldlt.rank();
  d.diagnostics.rank_tolerance = tau;
  check_consistency(m, d, rho, tau);
}

}  // namespace appell
