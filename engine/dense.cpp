#include "engine/dense.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "engine/forward.hpp"

namespace appell {

void check_consistency(const Model& m, Data& d) {
  Diagnostics& diag = d.diagnostics;
  diag.inconsistent.clear();
  const Eigen::VectorXd r = d.A * d.udot - d.b;
  diag.residual = r.norm() / (1.0 + d.b.norm());
  // a size for each row in its own units (dense.hpp): |C_i| s with C = A M^{-1/2};
  // the former absolute "1 +" hid the contradictions of small mechanisms
  std::vector<Mat3> Jinv(m.nbody(), Mat3::Zero());
  for (int i = 0; i < m.nbody(); ++i)
    if (m.bodies()[i].rigid()) Jinv[i] = d.J[i].inverse();
  Eigen::VectorXd Cn(m.nrows());  // |C_i|
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const Constraint& con = *m.constraints()[c];
    const int nb = static_cast<int>(con.bodies().size());
    for (int i = 0; i < con.rows(); ++i) {
      double c2 = 0.0;
      for (int j = 0; j < nb; ++j) {
        const int body = con.bodies()[j];
        const RowTerm& t = d.terms[m.term_offset(c) + i * nb + j];
        c2 += t.lin.squaredNorm() / m.bodies()[body].mass;
        if (m.bodies()[body].rigid()) c2 += t.ang.dot(Jinv[body] * t.ang);
      }
      Cn(m.row_offset(c) + i) = std::sqrt(c2);
    }
  }
  // s = |M^{1/2} u̇| + |M^{-1/2} F| + max_k |b_k| / |C_k|
  Eigen::VectorXd Mu, a;
  multiply_mass(m, d, d.udot, Mu);
  solve_mass(m, d, d.F, a);
  double s = std::sqrt(std::max(0.0, d.udot.dot(Mu))) + std::sqrt(std::max(0.0, d.F.dot(a)));
  double bmax = 0.0;
  for (int k = 0; k < m.nrows(); ++k)
    if (Cn(k) > 0) bmax = std::max(bmax, std::abs(d.b(k)) / Cn(k));
  s += bmax;
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const int r0 = m.row_offset(c);
    for (int i = 0; i < m.constraints()[c]->rows(); ++i) {
      const double scale = std::abs(d.b(r0 + i)) +
                           (d.A.row(r0 + i).transpose().cwiseProduct(d.udot)).cwiseAbs().sum() +
                           Cn(r0 + i) * s;
      if (!(std::abs(r(r0 + i)) <= kConsistencyTolerance * scale)) {
        diag.inconsistent.push_back(c);
        break;
      }
    }
  }
  if (diag.inconsistent.empty()) return;
  std::ostringstream os;
  os << "inconsistent constraints (no acceleration satisfies A u̇ = b): ";
  for (size_t k = 0; k < diag.inconsistent.size(); ++k)
    os << (k ? ", " : "") << "'" << m.constraints()[diag.inconsistent[k]]->name() << "'";
  os << "; residual " << diag.residual;
  diag.status = SolveStatus::Inconsistent;
  diag.message = os.str();
}

void minimum_norm_multipliers(const Model& m, Data& d) {
  if (m.nrows() == 0) return;
  Eigen::VectorXd Mu(m.nu());
  multiply_mass(m, d, d.udot, Mu);
  const Eigen::VectorXd Fc = Mu - d.F;  // the generalized constraint force, Aᵀλ
  const int nr = m.nrows();

  // Each row's scale is arbitrary (f·v = 0 for any |f|), so the rank is decided on unit rows
  // A_s = D A, D = diag(1/|A_i|), as the solvers do (dense.hpp, "Rank tolerance");
  // a pivot threshold on A itself dropped a row written with |f| = 1e-12 and lost its
  // force.  Aᵀλ = Fc  ⟺  A_sᵀ μ = Fc with λ = D μ.  With A_s P = Q [R11 R12; 0 0]:
  //   μ = Q [R11⁻ᵀ (PᵀFc)₁; 0]  solves it,  and null(Aᵀ) = D span(Q₂).
  Eigen::VectorXd D(nr);
  for (int r = 0; r < nr; ++r) {
    const double n = d.A.row(r).norm();
    D(r) = n > 0 ? 1.0 / n : 1.0;
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr;
  qr.setThreshold(kRankTolerance);
  qr.compute(D.asDiagonal() * d.A);
  const int rank = static_cast<int>(qr.rank());
  const Eigen::VectorXd PtFc = qr.colsPermutation().transpose() * Fc;
  Eigen::VectorXd w = Eigen::VectorXd::Zero(nr);
  if (rank > 0)
    w.head(rank) = qr.matrixQR()
                       .topLeftCorner(rank, rank)
                       .triangularView<Eigen::Upper>()
                       .transpose()
                       .solve(PtFc.head(rank));
  const Eigen::MatrixXd Q = qr.householderQ();
  d.lambda = D.cwiseProduct(Q * w);

  // the minimum-norm multipliers [UK96 eq. 22]: remove the component in null(Aᵀ)
  if (rank < nr) {
    const Eigen::MatrixXd N = D.asDiagonal() * Q.rightCols(nr - rank);
    const Eigen::MatrixXd U = Eigen::HouseholderQR<Eigen::MatrixXd>(N).householderQ() *
                              Eigen::MatrixXd::Identity(nr, nr - rank);
    d.lambda -= U * (U.transpose() * d.lambda);
  }
}

Eigen::MatrixXd dense_mass(const Model& m, const Data& d) {
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(m.nu(), m.nu());
  for (int i = 0; i < m.nbody(); ++i) {
    const Body& b = m.bodies()[i];
    const int o = m.u_offset(i);
    M.block<3, 3>(o, o) = b.mass * Mat3::Identity();
    if (b.rigid()) M.block<3, 3>(o + 3, o + 3) = d.J[i];
  }
  return M;
}

}  // namespace appell
