// The rates on the constraint set in terms of the quasi-velocities.  Ref: [L96] §4.3, §5.3;
// [UK98] eqs. (2), (3).
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
//
// Rows nonlinear in the rates, φ(q, q̇, t) = 0 [UK98 (2)], are the general constraints of
// [L96 §4.3]: their codistribution has β̂ = ∂φ/∂q̇ (of full rank), and an admissible
// acceleration satisfies (4.1)/(4.3),  ∂φ/∂q̇ q̈ + ∂φ/∂q q̇ + ∂φ/∂t = 0  [UK98 (3)], which is
// (R1) with γ = ∂φ/∂q̇ taken at the state's rates.  The constraint set is then curved in
// the rates, so the map ν ↦ q̇ is not affine.  At (t, q) the rates of given ν solve
//   Φ(q̇) = [φ(q, q̇, t); C q̇ + s − ν] = 0,    ∂Φ/∂q̇ = [∂φ/∂q̇; C]                     (Q4)
// by Newton's method, q̇ ← q̇ − [∂φ/∂q̇; C]⁻¹ Φ(q̇), from the rates given (the branch of the
// constraint set a run follows: its previous rates; the first iterate is the tangent map's
// q̇ = Y ν + y there, the linear guess), until a step is below 1e-13 of the rates (quadratic
// convergence: the next step is at round-off).  At the solution (Q1)–(Q3) with γ = ∂φ/∂q̇
// give the tangent of the constraint set [L96 Remark 5.4.2, (5.4) with A_a^k = Y]: q̇ = Y ν + y
// holds at the state (y = S⁻¹ [γ q̇ − φ; C q̇ − ν] is then the tangent's offset) and
// q̈ = Y ν̇ + Z exactly.  Systems whose rows are all affine never take the Newton branch.
#include <cstdio>
#include <string>

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

namespace {

constexpr int kNewtonIterations = 50;

std::string listed(const Eigen::VectorXd& v) {
  std::string out = "(";
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v(i));
    out += (i ? ", " : "") + std::string(buf);
  }
  return out + ")";
}

// (Q4): Newton's method for the rates of ν from the rates qd holds
LagrangianStatus newton_rates(const LagrangianSystem& s, double t, const Eigen::VectorXd& q,
                              const Eigen::VectorXd& nu, LagrangianData& d, Eigen::VectorXd& qd) {
  LagrangianData::Buffers& b = *d.buffers;
  const int n = s.n(), m = s.m(), k = s.dof();
  b.nu_target = nu;  // (nu may be d.nu, which the sweeps overwrite)
  LagrangianState& x = b.newton;
  x.t = t;
  x.q = q;
  if (qd.size() == n && qd.allFinite())
    x.qd = qd;
  else
    x.qd = b.qd0;
  for (int it = 0; it < kNewtonIterations; ++it) {
    d.newton_iterations = it + 1;
    // Φ and ∂Φ/∂q̇ at the iterate
    velocity_rows(s.constraints, x, d, d.A, d.r, d.alpha, &d.g);
    velocity_rows(s.quasi_velocities, x, d, d.W, d.nu, d.beta, nullptr);
    b.S.topRows(m) = d.A;
    b.S.bottomRows(k) = d.W;
    b.tmp.head(m) = d.r;
    b.tmp.tail(k) = d.nu - b.nu_target;
    if (!b.S.allFinite() || !b.tmp.allFinite()) {
      d.message =
          "a constraint or quasi-velocity is not finite (or not differentiable) at the "
          "rates " +
          listed(x.qd);
      return LagrangianStatus::NotFinite;
    }
    b.lu.compute(b.S);
    const auto pivots = b.lu.matrixLU().diagonal().cwiseAbs();
    if (!(pivots.minCoeff() > 1e-12 * pivots.maxCoeff())) {
      d.message = "the quasi-velocities are not independent on the constraint set at the rates " +
                  listed(x.qd) + " ([∂φ/∂q̇; C] is singular)";
      return LagrangianStatus::DependentQuasiVelocities;
    }
    b.a.noalias() = b.lu.solve(b.tmp);
    x.qd -= b.a;
    if (!x.qd.allFinite()) break;
    if (b.a.cwiseAbs().maxCoeff() <= 1e-13 * (1.0 + x.qd.cwiseAbs().maxCoeff())) {
      qd = x.qd;
      return LagrangianStatus::Ok;
    }
  }
  d.message = "no rates on the constraint set for the quasi-velocities " + listed(b.nu_target) +
              " (Newton's method from the rates " + (qd.size() == n ? listed(qd) : "0") +
              " did not converge): ν has left the values the constraints allow, or the "
              "quasi-velocities have become dependent on the constraint set";
  return LagrangianStatus::OffConstraintSet;
}

}  // namespace

LagrangianStatus rates_of(const LagrangianSystem& s, double t, const Eigen::VectorXd& q,
                          const Eigen::VectorXd& nu, LagrangianData& d, Eigen::VectorXd& qd) {
  if (s.nonlinear()) return newton_rates(s, t, q, nu, d, qd);
  d.newton_iterations = 0;
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
