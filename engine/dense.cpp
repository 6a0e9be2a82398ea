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
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(d.A.transpose());
  cod.setThreshold(kRankTolerance);
  d.lambda = cod.solve(Fc);
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
