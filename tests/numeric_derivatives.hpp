// The independent reference of the derivative tests: Richardson-extrapolated central
// differences of the recursion itself (inverse_dynamics, JointForward) in the tangent space.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <appell/derivatives.hpp>
#include <appell/inverse_dynamics.hpp>
#include <appell/jacobians.hpp>
#include <appell/tree.hpp>
#include <functional>

namespace appell {
namespace test_derivatives {

// d/dh f(h) at 0 by central differences extrapolated twice (error O(h⁶))
inline Eigen::VectorXd richardson(const std::function<Eigen::VectorXd(double)>& f, double h) {
  auto D = [&](double s) -> Eigen::VectorXd { return (f(s) - f(-s)) / (2 * s); };
  const Eigen::VectorXd d0 = D(h), d1 = D(h / 2), d2 = D(h / 4);
  const Eigen::VectorXd e0 = (4 * d1 - d0) / 3, e1 = (4 * d2 - d1) / 3;
  return (16 * e1 - e0) / 15;
}

inline double rel_gap(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

// ∂τ/∂q, ∂τ/∂u of inverse dynamics at (s, udot), ∂u̇/∂q, ∂u̇/∂u, ∂u̇/∂τ of forward
// dynamics at (s, tau), column by column (steps 1e-2 in q and u, 1e-1 in τ)
struct NumericDerivatives {
  Eigen::MatrixXd id_q, id_u, fd_q, fd_u, fd_tau;
};

inline NumericDerivatives numeric_derivatives(const Model& m, const State& s,
                                              const Eigen::VectorXd& udot,
                                              const Eigen::VectorXd& tau) {
  const int nu = m.tree().nu;
  NumericDerivatives out{Eigen::MatrixXd(nu, nu), Eigen::MatrixXd(nu, nu), Eigen::MatrixXd(nu, nu),
                         Eigen::MatrixXd(nu, nu), Eigen::MatrixXd(nu, nu)};
  JointForward forward(m);
  Data d(m);
  const auto id_of = [&](const State& p) {
    Eigen::VectorXd r;
    inverse_dynamics(m, d, p, udot, r);
    return r;
  };
  const auto fd_of = [&](const State& p, const Eigen::VectorXd& t) {
    Eigen::VectorXd r;
    forward(p, t, r);
    return r;
  };
  for (int j = 0; j < nu; ++j) {
    const Eigen::VectorXd e = Eigen::VectorXd::Unit(nu, j);
    const auto at_q = [&](double h) {
      State p = s;
      p.q = tangent_step(m, s.q, h * e);
      return p;
    };
    const auto at_u = [&](double h) {
      State p = s;
      p.u += h * e;
      return p;
    };
    out.id_q.col(j) = richardson([&](double h) { return id_of(at_q(h)); }, 1e-2);
    out.id_u.col(j) = richardson([&](double h) { return id_of(at_u(h)); }, 1e-2);
    out.fd_q.col(j) = richardson([&](double h) { return fd_of(at_q(h), tau); }, 1e-2);
    out.fd_u.col(j) = richardson([&](double h) { return fd_of(at_u(h), tau); }, 1e-2);
    out.fd_tau.col(j) = richardson([&](double h) { return fd_of(s, tau + h * e); }, 1e-1);
  }
  return out;
}

}  // namespace test_derivatives
}  // namespace appell
