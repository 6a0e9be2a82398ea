#include "engine/formulations/dense.hpp"

#include "engine/assembly/stages.hpp"
#include "engine/model/body_coordinates.hpp"

namespace appell {

void unit_rows(const Model& m, const Data& d, const InverseSqrtMass& Mis, UnitRows& out) {
  row_responses(m, d, out.rho);
  out.tau = dependence_tolerance(m, d, out.rho);
  out.D = out.rho.unaryExpr([](double r) { return r > 0 ? 1.0 / r : 0.0; });
  out.C = out.D.asDiagonal() * d.A;
  Mis.right_multiply(out.C);  // rows of unit length: |C_k| = ρ_k / ρ_k           (P1)
  out.inverse.compute(out.C, out.tau);
}

void minimum_norm_multipliers(const Model& m, Data& d, const InverseSqrtMass& Mis,
                              const UnitRows& rows) {
  if (m.nrows() == 0) return;
  Eigen::VectorXd Mu, f;
  multiply_mass(m, d, d.udot, Mu);
  Mis.apply(Mu - d.F, f);  // the constraint force Aᵀλ in the scaled space: Cᵀ μ = f
  d.lambda = rows.D.cwiseProduct(rows.inverse.multipliers(f));  // [UK96 eq. 22]
}

Eigen::MatrixXd dense_mass(const Model& m, const Data& d) {
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(m.nu(), m.nu());
  for (int i = 0; i < m.ncomposite(); ++i)
    body_mass_block(m.composites()[i], composite_inertia(m, d, i), m.u_offset(i), M);
  return M;
}

}  // namespace appell
