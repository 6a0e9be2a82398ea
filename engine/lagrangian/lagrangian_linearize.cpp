// The linear model of a Lagrangian system in (q, ν) about a state (appell/lagrangian_run.hpp).
//   x = (q, ν),   ẋ = F(x, t) = (Y(q, t) ν + y(q, t),  H⁻¹ F_ν)      [L96 §5.3; (Q2), (G1)]
//   A = ∂F/∂x,  column j by Richardson's extrapolation of central differences:
//   D(h) = (F(x + h e_j) − F(x − h e_j)) / 2h,  E(h) = (4 D(h/2) − D(h)) / 3,
//   A e_j = (16 E(h/2) − E(h)) / 15                                      (error O(h⁶))
// The evaluations themselves are exact (nested dual numbers); only this outer derivative is
// a difference, as in the recursive formulation's fallback (engine/formulations/recursive/
// linearize.cpp).
#include <cmath>

#include "appell/lagrangian_run.hpp"
#include "engine/lagrangian/first_order.hpp"

namespace appell {

namespace lagrangian_detail {

bool richardson_jacobian(const std::function<bool(const Eigen::VectorXd&, Eigen::VectorXd&)>& F,
                         const Eigen::VectorXd& X, int nq, Eigen::MatrixXd& A,
                         std::string& message) {
  const int nx = static_cast<int>(X.size());
  A.setZero(nx, nx);
  Eigen::VectorXd fp, fm, Zp, Zm;
  for (int j = 0; j < nx; ++j) {
    const double h = (j < nq ? 1e-2 : 1e-1) * std::max(1.0, std::abs(X(j)));
    Eigen::VectorXd D[3];
    for (int level = 0; level < 3; ++level) {
      const double step = h / (1 << level);
      Zp = X;
      Zm = X;
      Zp(j) += step;
      Zm(j) -= step;
      if (!F(Zp, fp) || !F(Zm, fm)) {
        message +=
            " (at a step of " + std::to_string(step) + " along state " + std::to_string(j) + ")";
        return false;
      }
      D[level] = (fp - fm) / (2 * step);
    }
    const Eigen::VectorXd e0 = (4 * D[1] - D[0]) / 3, e1 = (4 * D[2] - D[1]) / 3;
    A.col(j) = (16 * e1 - e0) / 15;
  }
  return true;
}

}  // namespace lagrangian_detail

LagrangianStatus linearize_lagrangian(const LagrangianSystem& s, const LagrangianState& x0,
                                      Eigen::MatrixXd& A, std::string& message) {
  const int n = s.n(), k = s.dof(), nx = n + k;
  LagrangianData d(s);
  // x0's ν
  LagrangianStatus st = quasi_velocity_map(s, x0, d);
  if (st != LagrangianStatus::Ok) {
    message = d.message;
    return st;
  }
  Eigen::VectorXd X(nx);
  X << x0.q, d.nu;
  // F at X
  LagrangianState x = x0;
  auto F = [&](const Eigen::VectorXd& Z, Eigen::VectorXd& out) {
    x.q = Z.head(n);
    st = rates_of(s, x0.t, x.q, Z.tail(k), d, x.qd);
    if (st == LagrangianStatus::Ok) st = lagrangian_terms(s, x, d);
    if (st == LagrangianStatus::Ok) st = quasi_velocity_map(s, x, d);
    if (st == LagrangianStatus::Ok) st = gibbs_appell_nu(s, d);
    if (st != LagrangianStatus::Ok) {
      message = d.message;
      return false;
    }
    out.resize(nx);
    out << x.qd, d.nudot;
    return true;
  };
  return lagrangian_detail::richardson_jacobian(F, X, n, A, message) ? LagrangianStatus::Ok : st;
}

}  // namespace appell
