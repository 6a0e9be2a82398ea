#include "engine/formulations/pinv.hpp"

#include "engine/assembly/stages.hpp"
#include "engine/formulations/dense.hpp"

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

  // unit-response rows C = D A M^{-1/2} and their rank (rank_policy.hpp)
  const InverseSqrtMass Mis(m, d);
  UnitRows rows;
  unit_rows(m, d, Mis, rows);
  d.diagnostics.rank = rows.inverse.rank();
  d.diagnostics.rank_tolerance = rows.tau;

  // y = C⁺ e, e = D (b − A a): the minimum-norm least-squares solution   [UK96 eqs. 4, 14]
  const Eigen::VectorXd e = rows.D.cwiseProduct(d.b - d.A * a);
  const Eigen::VectorXd y = rows.inverse.solve(e);

  // ü = a + M^{-1/2} y                                                 [UK96 eq. 5]
  Eigen::VectorXd dy;
  Mis.apply(y, dy);
  d.udot = a + dy;

  check_consistency(m, d, rows.rho, rows.tau);
  // Cᵀ μ = M^{-1/2}(M ü − F) = y: the minimum-norm multipliers          [UK96 eq. 22]
  d.lambda = rows.D.cwiseProduct(rows.inverse.multipliers(y));
}

}  // namespace appell
