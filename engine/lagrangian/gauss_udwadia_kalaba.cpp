// Gauss's principle for a regular Lagrangian with M = ∂²L/∂q̇² as the metric, solved by
// the generalized inverse.  Ref: [L96] Thm 7.1; [UK98] eqs. (5), (24)–(26).
//
// Among the accelerations that satisfy the constraints at (q, q̇, t),  A q̈ = −α
// (velocity_rows.cpp (R1), (R2); for a row nonlinear in the rates A = ∂φ/∂q̇ at the state,
// UK98 (3)), the motion minimizes the Gaussian
//   G(L, F) = (q̈ − a)ᵀ M (q̈ − a),   a = M⁻¹ f                            [L96 Thm 7.1; UK98 (5),
//   (6)]
// whose minimizer is [UK98 (26), with b = −α]
//   M q̈ = f + Aᵀ (A M⁻¹ Aᵀ)^{1} (b − A a)                                        (U1)
// The constraint rows are independent (quasi_velocity_map.cpp refuses them otherwise), so
// A M⁻¹ Aᵀ is positive definite and its {1}-inverse is its inverse, applied by Cholesky:
//   λ = (A M⁻¹ Aᵀ)⁻¹ (b − A a),   q̈ = a + M⁻¹ Aᵀ λ,   Q_c = Aᵀ λ                    (U2)
// λ are the multipliers (Lagrange's equations of the first kind: M q̈ = f + Aᵀ λ) and Q_c
// the generalized constraint forces.  The quasi-velocities' rates follow from (R1):
//   ν̇ = C q̈ + β                                                                  (U3)
// This is the range-space solve; gibbs_appell_nu.cpp is the null-space one.  Both give the
// same q̈ (UK98, "Equivalence ..."); tests/lagrangian_test.cpp checks it to round-off.
// Cost: O(n² m + m³) after the terms.
#include "appell/lagrangian.hpp"
#include "engine/lagrangian/sweep.hpp"

namespace appell {

LagrangianStatus gauss_udwadia_kalaba(const LagrangianSystem&, LagrangianData& d) {
  return gauss_udwadia_kalaba(d);
}

LagrangianStatus gauss_udwadia_kalaba(LagrangianData& d) {
  LagrangianData::Buffers& b = *d.buffers;
  const int m = static_cast<int>(d.A.rows());
  // the unconstrained acceleration [UK98 (5)]
  b.a = d.M_llt.solve(d.f);
  d.qdd_gauss = b.a;
  d.lambda.setZero();
  if (m > 0) {
    // (U2)
    b.MinvAt = d.M_llt.solve(d.A.transpose());
    b.K.noalias() = d.A * b.MinvAt;
    b.K_llt.compute(b.K);
    if (b.K_llt.info() != Eigen::Success) {
      d.message = "the constraint rows are dependent (A M⁻¹ Aᵀ is singular)";
      return LagrangianStatus::NotRegular;
    }
    d.lambda = -d.alpha;
    d.lambda.noalias() -= d.A * b.a;
    b.K_llt.solveInPlace(d.lambda);
    d.qdd_gauss.noalias() += b.MinvAt * d.lambda;
  }
  d.Qc.noalias() = d.A.transpose() * d.lambda;
  // (U3)
  d.nudot_gauss = d.beta;
  d.nudot_gauss.noalias() += d.W * d.qdd_gauss;
  return LagrangianStatus::Ok;
}

}  // namespace appell
