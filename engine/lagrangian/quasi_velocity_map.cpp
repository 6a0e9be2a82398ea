// The rates on the constraint set in terms of the quasi-velocities.  Ref: [L96] §5.3.
//
// With m constraint rows  γ q̇ = −γ₀  and k = n − m quasi-velocities  C q̇ = ν − s,  the
// affine system [L96 §5.3, after eq. (5.4)]
//   [γ; C] q̇ = [−γ₀; ν − s]                                                       (Q1)
// is solved once for the three right-hand sides
//   q̇ = Y ν + y,   Y = [γ; C]⁻¹ [0; I],   y = [γ; C]⁻¹ [−γ₀; −s]                    (Q2)
// (L96's B and r), and, differentiating (Q1) with (R1)/(R2) of velocity_rows.cpp,
//   q̈ = Y ν̇ + Z,   Z = [γ; C]⁻¹ [−α; −β]                                          (Q3)
// where α, β are the rows' ṙ − R q̈.  Z is L96's lifted acceleration less B α (the terms
// ∂B/∂q B ν ν + ... of i_D^lift), computed without differentiating B.  [γ; C] is
// factored by LU with partial pivoting; a smallest pivot below 1e-12 of the largest means
// the quasi-velocities are not independent on the constraint set (or the constraints
// are dependent).
#include "appell/lagrangian.hpp"
#include "engine/lagrangian/sweep.hpp"

namespace appell {

LagrangianStatus quasi_velocity_map(const LagrangianSystem& s, const LagrangianState& x,
                                    LagrangianData& d) {
  const int n = s.n(), m = s.m(), k = s.dof();
  if (m + k != n) {
    d.message = "there are " + std::to_string(k) + " quasi-velocities for " + std::to_string(n) +
                " coordinates and " + std::to_string(m) + " constraint rows";
    return LagrangianStatus::DependentQuasiVelocities;
  }
  velocity_rows(s.constraints, x, d, d.A, d.r, d.alpha, &d.g);
  velocity_rows(s.quasi_velocities, x, d, d.W, d.nu, d.beta, nullptr);
  return quasi_velocity_solve(x.qd, d);
}

LagrangianStatus quasi_velocity_solve(const Eigen::VectorXd& qd, LagrangianData& d) {
  LagrangianData::Buffers& b = *d.buffers;
  const int n = static_cast<int>(d.M.rows()), m = static_cast<int>(d.A.rows()),
            k = static_cast<int>(d.W.rows());
  // (Q1): the stacked rows and the right-hand sides of (Q2), (Q3)
  b.S.topRows(m) = d.A;
  b.S.bottomRows(k) = d.W;
  b.rhs.setZero();
  b.rhs.bottomLeftCorner(k, k).setIdentity();
  b.rhs.col(k).head(m).noalias() = d.A * qd;  // −γ₀ = γ q̇ − r
  b.rhs.col(k).head(m) -= d.r;
  b.rhs.col(k).tail(k).noalias() = d.W * qd;  // −s = C q̇ − ν
  b.rhs.col(k).tail(k) -= d.nu;
  b.rhs.col(k + 1).head(m) = -d.alpha;
  b.rhs.col(k + 1).tail(k) = -d.beta;
  if (!b.S.allFinite() || !b.rhs.allFinite()) {
    d.message = "a constraint or quasi-velocity is not finite";
    return LagrangianStatus::NotFinite;
  }
  b.lu.compute(b.S);
  // the pivots' spread (Eigen's rcond() estimate allocates)
  const auto pivots = b.lu.matrixLU().diagonal().cwiseAbs();
  if (n > 0 && !(pivots.minCoeff() > 1e-12 * pivots.maxCoeff())) {
    d.message =
        "the quasi-velocities are not independent on the constraint set ([γ; C] is "
        "singular)";
    return LagrangianStatus::DependentQuasiVelocities;
  }
  b.sol.noalias() = b.lu.solve(b.rhs);
  d.Y = b.sol.leftCols(k);  // (Q2)
  d.y = b.sol.col(k);
  d.Z = b.sol.col(k + 1);  // (Q3)
  return LagrangianStatus::Ok;
}

LagrangianStatus rates_of(const LagrangianSystem& s, double t, const Eigen::VectorXd& q,
                          const Eigen::VectorXd& nu, LagrangianData& d, Eigen::VectorXd& qd) {
  // the rows are affine in q̇: Y and y do not depend on the rates the map is taken at
  LagrangianState x;
  x.t = t;
  x.q = q;
  x.qd = d.buffers->qd0;
  const LagrangianStatus st = quasi_velocity_map(s, x, d);
  if (st != LagrangianStatus::Ok) return st;
  qd.noalias() = d.Y * nu;
  qd += d.y;
  return LagrangianStatus::Ok;
}

}  // namespace appell
