// The linear model about a state (appell/derivatives.hpp linearize()).
#include <functional>
#include <stdexcept>

#include "appell/derivatives.hpp"
#include "appell/jacobians.hpp"
#include "appell/model.hpp"
#include "appell/tree.hpp"

namespace appell {

namespace {

// d/dh f(h) at 0: central differences extrapolated twice (Richardson, error O(h⁶))
Eigen::VectorXd richardson(const std::function<Eigen::VectorXd(double)>& f, double h) {
  auto D = [&](double s) -> Eigen::VectorXd { return (f(s) - f(-s)) / (2 * s); };
  const Eigen::VectorXd d0 = D(h), d1 = D(h / 2), d2 = D(h / 4);
  const Eigen::VectorXd e0 = (4 * d1 - d0) / 3, e1 = (4 * d2 - d1) / 3;
  return (16 * e1 - e0) / 15;
}

}  // namespace

LinearModel linearize(const Model& m, const State& s, const std::vector<int>& inputs) {
  const TreeModel& tree = m.tree();
  const int nu = tree.nu;
  if (tree.nrows_extra > 0)
    throw std::invalid_argument(
        "linearize(): the model has " + std::to_string(tree.nrows_extra) +
        " constraint rows beyond its spanning tree (loops, holonomic or nonholonomic "
        "constraints); linearize reduces trees only");
  for (int c : inputs)
    if (c < 0 || c >= nu)
      throw std::invalid_argument("linearize(): input " + std::to_string(c) +
                                  " is not a quasi-velocity index (nu = " + std::to_string(nu) +
                                  ")");
  LinearModel out;
  Data d(m);
  ForwardDerivatives fd;
  try {
    forward_dynamics_derivatives(m, d, s, Eigen::VectorXd(), fd);
  } catch (const std::invalid_argument& e) {
    out.exact = false;
    out.note = std::string(e.what()) +
               "; differentiated by Richardson-extrapolated central differences (about 1e-10)";
    JointForward forward(m);
    auto udot_at = [&](const State& p, const Eigen::VectorXd& tau) {
      Eigen::VectorXd r;
      forward(p, tau, r);
      return r;
    };
    const Eigen::VectorXd none;
    fd.udot = udot_at(s, none);
    fd.dudot_dq.resize(nu, nu);
    fd.dudot_du.resize(nu, nu);
    fd.dudot_dtau.resize(nu, nu);
    for (int j = 0; j < nu; ++j) {
      const Eigen::VectorXd e = Eigen::VectorXd::Unit(nu, j);
      fd.dudot_dq.col(j) = richardson(
          [&](double h) {
            State p = s;
            p.q = tangent_step(m, s.q, h * e);
            return udot_at(p, none);
          },
          1e-3);
      fd.dudot_du.col(j) = richardson(
          [&](double h) {
            State p = s;
            p.u += h * e;
            return udot_at(p, none);
          },
          1e-3);
      // u̇ is affine in τ: one central difference is exact up to rounding
      fd.dudot_dtau.col(j) = (udot_at(s, e) - udot_at(s, -e)) / 2;
    }
  }
  out.udot = fd.udot;
  out.A = Eigen::MatrixXd::Zero(2 * nu, 2 * nu);
  out.B = Eigen::MatrixXd::Zero(2 * nu, inputs.size());
  out.A.topRightCorner(nu, nu).setIdentity();
  out.A.bottomLeftCorner(nu, nu) = fd.dudot_dq;
  out.A.bottomRightCorner(nu, nu) = fd.dudot_du;
  for (size_t c = 0; c < inputs.size(); ++c) out.B.col(c).tail(nu) = fd.dudot_dtau.col(inputs[c]);
  return out;
}

}  // namespace appell
