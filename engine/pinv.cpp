#include "engine/pinv.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>

#include "engine/dense.hpp"
#include "engine/forward.hpp"

namespace appell {

void solve_pinv(const Model& m, Data& d) {
  dense_rows(m, d);
  // unconstrained acceleration a = M⁻¹F
  Eigen::VectorXd a;
  solve_mass(m, d, d.F, a);
  if (m.nrows() == 0) {
    d.udot = a;
    return;
  }

  // per-body symmetric M^{-1/2}
  std::vector<Mat3> Jinvsqrt(m.nbody(), Mat3::Zero());
  for (int i = 0; i < m.nbody(); ++i)
    if (m.bodies()[i].rigid())
      Jinvsqrt[i] = Eigen::SelfAdjointEigenSolver<Mat3>(d.J[i]).operatorInverseSqrt();
  auto apply_Minvsqrt_cols = [&](Eigen::MatrixXd& X) {  // X ← X M^{-1/2}
    for (int i = 0; i < m.nbody(); ++i) {
      const int o = m.u_offset(i);
      X.middleCols<3>(o) /= std::sqrt(m.bodies()[i].mass);
      if (m.bodies()[i].rigid()) X.middleCols<3>(o + 3) = X.middleCols<3>(o + 3) * Jinvsqrt[i];
    }
  };

  // constraint matrix C = A M^{-1/2}, e = b − A a                     [UK96 eqs. 4, 14]
  Eigen::MatrixXd C = d.A;
  apply_Minvsqrt_cols(C);
  Eigen::VectorXd e = d.b - d.A * a;

  // scale rows to unit length (the solution set of C y = e is unchanged)
  for (int r = 0; r < C.rows(); ++r) {
    const double n = C.row(r).norm();
    const double s = n > 0 ? 1.0 / n : 0.0;  // a zero row only constrains through e (checked below)
    C.row(r) *= s;
    e(r) *= s;
  }

  // y = C⁺ e: the minimum-norm least-squares solution                  [UK96 eq. 4]
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
  cod.setThreshold(kRankTolerance);
  cod.compute(C);
  const Eigen::VectorXd y = cod.solve(e);
  d.diagnostics.rank = static_cast<int>(cod.rank());
  d.diagnostics.rank_tolerance = kRankTolerance;

  // ü = a + M^{-1/2} y                                                 [UK96 eq. 5]
  d.udot = a;
  for (int i = 0; i < m.nbody(); ++i) {
    const int o = m.u_offset(i);
    d.udot.segment<3>(o) += y.segment<3>(o) / std::sqrt(m.bodies()[i].mass);
    if (m.bodies()[i].rigid()) d.udot.segment<3>(o + 3) += Jinvsqrt[i] * y.segment<3>(o + 3);
  }

  check_consistency(m, d);
  minimum_norm_multipliers(m, d);  // [UK96 eq. 22]
}

}  // namespace appell
