#include "engine/dense.hpp"

#include <Eigen/QR>
#include <cmath>
#include <sstream>

#include "engine/forward.hpp"

namespace appell {

void check_consistency(const Model& m, Data& d) {
  Diagnostics& diag = d.diagnostics;
  diag.inconsistent.clear();
  const Eigen::VectorXd r = d.A * d.udot - d.b;
  diag.residual = r.norm() / (1.0 + d.b.norm());
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const int r0 = m.row_offset(c);
    for (int i = 0; i < m.constraints()[c]->rows(); ++i) {
      const double scale = 1.0 + std::abs(d.b(r0 + i)) +
                           (d.A.row(r0 + i).transpose().cwiseProduct(d.udot)).cwiseAbs().sum();
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
