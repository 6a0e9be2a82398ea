#include "engine/formulations/gibbs_appell.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>

#include "engine/assembly/stages.hpp"
#include "engine/formulations/dense.hpp"

namespace appell {

void solve_gibbs_appell(const Model& m, Data& d) {
  dense_rows(m, d);
  const int n = m.nu();
  if (m.nrows() == 0) {
    solve_mass(m, d, d.F, d.udot);
    return;
  }

  // the rank, decided on the unit-response rows like every formulation (rank_policy.hpp)
  const InverseSqrtMass Mis(m, d);
  UnitRows rows;
  unit_rows(m, d, Mis, rows);
  const int r = rows.inverse.rank();
  const int k = n - r;
  d.diagnostics.rank = r;
  d.diagnostics.rank_tolerance = rows.tau;

  // scaled quasi-velocities z = diag(M)^{1/2} ü, unit rows
  const Eigen::MatrixXd M = dense_mass(m, d);
  const Eigen::VectorXd Dc = M.diagonal().cwiseSqrt().cwiseInverse();
  Eigen::MatrixXd As = d.A * Dc.asDiagonal();
  Eigen::VectorXd bs = d.b;
  for (int r = 0; r < As.rows(); ++r) {
    const double nr = As.row(r).norm();
    const double s = nr > 0 ? 1.0 / nr : 0.0;
    As.row(r) *= s;
    bs(r) *= s;
  }
  const Eigen::MatrixXd Ms = Dc.asDiagonal() * M * Dc.asDiagonal();
  const Eigen::VectorXd Fs = Dc.cwiseProduct(d.F);

  // split: A P = Q [R11 R12; 0 R22], the first r pivoted columns eliminated [UK98 eq. 7]
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(As);
  const auto& P = qr.colsPermutation();
  const Eigen::MatrixXd QR = qr.matrixQR();
  const auto R11 = QR.topLeftCorner(r, r).triangularView<Eigen::Upper>();
  Eigen::VectorXd Qtb = bs;
  Qtb.applyOnTheLeft(qr.householderQ().transpose());

  // R = A_e⁺ A_I and s = A_e⁺ b                                          [UK98 eqs. 8, 34]
  // (empty blocks are skipped: Eigen's triangular solve reads the first coefficient of its
  // right-hand side, undefined behaviour when every coordinate is locked, k = 0)
  Eigen::MatrixXd Rm = Eigen::MatrixXd::Zero(r, k);
  Eigen::VectorXd s = Eigen::VectorXd::Zero(r);
  if (r > 0 && k > 0) Rm = R11.solve(QR.topRightCorner(r, k));
  if (r > 0) s = R11.solve(Qtb.head(r));

  // permute M and F into (e, I) blocks
  const Eigen::MatrixXd Mp = P.transpose() * Ms * P;
  const Eigen::VectorXd Fp = P.transpose() * Fs;
  const auto Mee = Mp.topLeftCorner(r, r);
  const auto MIe = Mp.bottomLeftCorner(k, r);
  const auto MII = Mp.bottomRightCorner(k, k);

  // the reactionless equations ∂S/∂ü_I = P                              [UK98 eq. 35]
  Eigen::VectorXd xI(k);
  if (k > 0) {
    const Eigen::MatrixXd MeeR = Mee * Rm;
    Eigen::MatrixXd K = MII + Rm.transpose() * MeeR - MIe * Rm;
    K -= (MIe * Rm).transpose();
    const Eigen::VectorXd rhs =
        Fp.tail(k) - Rm.transpose() * Fp.head(r) + (Rm.transpose() * Mee - MIe) * s;
    xI = K.llt().solve(rhs);
  }
  // the eliminated ones from the constraints                            [UK98 eq. 8, 37]
  Eigen::VectorXd z(n);
  z.head(r) = s;
  if (k > 0) z.head(r) -= Rm * xI;
  z.tail(k) = xI;
  d.udot = Dc.cwiseProduct(P * z);

  check_consistency(m, d, rows.rho, rows.tau);
  minimum_norm_multipliers(m, d, Mis, rows);  // [HO21 §6], [UK96 eq. 22]
}

}  // namespace appell
