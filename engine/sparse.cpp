#include "engine/sparse.hpp"

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <vector>

#include "engine/dense.hpp"
#include "engine/forward.hpp"
#include "engine/pinv.hpp"

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

  // K = A M⁻¹ Aᵀ with a unit diagonal; e = b − A a                       [UK98 eq. 26]
  SpMat K = AMinv * A.transpose();
  Eigen::VectorXd e = d.b - A * a;
  Eigen::VectorXd s(m.nrows());
  for (int r = 0; r < m.nrows(); ++r) {
    const double kr = K.coeff(r, r);
    s(r) = kr > 0 ? 1.0 / std::sqrt(kr) : 0.0;
  }
  K = s.asDiagonal() * K * s.asDiagonal();
  for (int r = 0; r < m.nrows(); ++r)
    if (s(r) == 0.0) K.coeffRef(r, r) = 1.0;  // an empty row decouples (checked below)
  const Eigen::VectorXd es = s.cwiseProduct(e);

  Eigen::SimplicialLDLT<SpMat> ldlt(K);
  bool full_rank = ldlt.info() == Eigen::Success;
  if (full_rank) {
    const Eigen::VectorXd D = ldlt.vectorD();
    full_rank = D.minCoeff() > kRankTolerance * std::max(1.0, D.maxCoeff());
  }
  if (!full_rank) {
    // redundant rows: A M⁻¹ Aᵀ is singular; the Moore–Penrose solve handles it
    solve_pinv(m, d);
    d.diagnostics.message.clear();
    return;
  }
  const Eigen::VectorXd w = s.cwiseProduct(ldlt.solve(es));  // (A M⁻¹ Aᵀ)⁻¹ e
  d.lambda = w;
  d.udot = a + AMinv.transpose() * w;  // ü = a + M⁻¹ Aᵀ λ
  d.diagnostics.rank = m.nrows();
  d.diagnostics.rank_tolerance = kRankTolerance;
  for (int r = 0; r < m.nrows(); ++r)
    if (s(r) == 0.0 && std::abs(e(r)) > kConsistencyTolerance * (1.0 + std::abs(d.b(r)))) {
      dense_rows(m, d);
      check_consistency(m, d);
      break;
    }
}

}  // namespace appell
