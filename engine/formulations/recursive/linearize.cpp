// The linear model about a state (appell/derivatives.hpp linearize()).
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "appell/derivatives.hpp"
#include "appell/inverse_dynamics.hpp"
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

// the extra rows in tree coordinates at q (A_c, m × nu)
Eigen::MatrixXd extra_rows(const Model& m, const State& s) {
  Data d(m);
  return inverse_dynamics_constrained(m, d, s, Eigen::VectorXd::Zero(m.tree().nu)).A;
}

// the columns a column-pivoted QR of R takes first (the dependent ones, rank of them) and
// the others, ascending
void partition(const Eigen::MatrixXd& R, int n, std::vector<int>& dep, std::vector<int>& ind) {
  dep.clear();
  ind.clear();
  if (R.rows() == 0) {
    for (int k = 0; k < n; ++k) ind.push_back(k);
    return;
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(R);
  qr.setThreshold(1e-9);
  const int rank = static_cast<int>(qr.rank());
  for (int k = 0; k < n; ++k) (k < rank ? dep : ind).push_back(qr.colsPermutation().indices()(k));
  std::sort(dep.begin(), dep.end());
  std::sort(ind.begin(), ind.end());
}

Eigen::MatrixXd columns(const Eigen::MatrixXd& R, const std::vector<int>& c) {
  Eigen::MatrixXd out(R.rows(), c.size());
  for (size_t k = 0; k < c.size(); ++k) out.col(k) = R.col(c[k]);
  return out;
}

LinearModel linearize_constrained(const Model& m, const State& s, const std::vector<int>& inputs) {
  const TreeModel& tree = m.tree();
  const int nu = tree.nu;
  std::vector<char> holonomic;
  for (int c : tree.extra)
    for (int r = 0; r < m.constraints()[c]->rows(); ++r)
      holonomic.push_back(m.constraints()[c]->holonomic(r) ? 1 : 0);
  auto holonomic_rows = [&](const Eigen::MatrixXd& R) {
    std::vector<int> rows;
    for (int r = 0; r < static_cast<int>(holonomic.size()); ++r)
      if (holonomic[r]) rows.push_back(r);
    Eigen::MatrixXd H(rows.size(), nu);
    for (size_t k = 0; k < rows.size(); ++k) H.row(k) = R.row(rows[k]);
    return H;
  };
  const Eigen::MatrixXd R0 = extra_rows(m, s);
  if (R0.rows() != static_cast<int>(holonomic.size()))
    throw std::logic_error("linearize(): the extra rows are not the extra constraints' rows");
  if ((R0 * s.u).cwiseAbs().maxCoeff() > 1e-8 * std::max(1.0, s.u.cwiseAbs().maxCoeff()))
    throw std::invalid_argument(
        "linearize(): the state's velocities violate the constraint rows (|A u| = " +
        std::to_string((R0 * s.u).cwiseAbs().maxCoeff()) +
        "); rows with a right side (prescribed motion) are not reduced");
  LinearModel out;
  std::vector<int> dep_q, dep_u;
  partition(holonomic_rows(R0), nu, dep_q, out.coordinates);
  partition(R0, nu, dep_u, out.velocities);
  const int nI = static_cast<int>(out.coordinates.size()),
            nV = static_cast<int>(out.velocities.size());
  // u with u_V = v and A_c(q) u = 0
  auto velocities_at = [&](const State& p, const Eigen::VectorXd& v) {
    const Eigen::MatrixXd R = extra_rows(m, p);
    Eigen::VectorXd u = Eigen::VectorXd::Zero(nu);
    for (int k = 0; k < nV; ++k) u(out.velocities[k]) = v(k);
    if (!dep_u.empty()) {
      const Eigen::VectorXd ud =
          columns(R, dep_u).colPivHouseholderQr().solve(-(columns(R, out.velocities) * v));
      for (size_t k = 0; k < dep_u.size(); ++k) u(dep_u[k]) = ud(k);
    }
    return u;
  };
  // the point of the constraint manifold with independent tangent coordinates δ_I: the
  // path q(σ), σ ∈ [0, 1], with q̇ = w, w_I = δ_I and A_h(q) w = 0 (RK4, 8 steps)
  auto manifold_point = [&](const Eigen::VectorXd& dI) {
    auto rate = [&](const Eigen::VectorXd& q) {
      State p = s;
      p.q = q;
      const Eigen::MatrixXd H = holonomic_rows(extra_rows(m, p));
      Eigen::VectorXd w = Eigen::VectorXd::Zero(nu);
      for (int k = 0; k < nI; ++k) w(out.coordinates[k]) = dI(k);
      if (!dep_q.empty()) {
        const Eigen::VectorXd wd =
            columns(H, dep_q).colPivHouseholderQr().solve(-(columns(H, out.coordinates) * dI));
        for (size_t k = 0; k < dep_q.size(); ++k) w(dep_q[k]) = wd(k);
      }
      return w;
    };
    Eigen::VectorXd q = s.q;
    const int steps = 8;
    const double h = 1.0 / steps;
    for (int i = 0; i < steps; ++i) {
      const Eigen::VectorXd k1 = rate(q), k2 = rate(tangent_step(m, q, 0.5 * h * k1)),
                            k3 = rate(tangent_step(m, q, 0.5 * h * k2)),
                            k4 = rate(tangent_step(m, q, h * k3));
      q = tangent_step(m, q, h / 6 * (k1 + 2 * k2 + 2 * k3 + k4));
    }
    return q;
  };
  JointForward forward(m);
  Eigen::VectorXd v0(nV);
  for (int k = 0; k < nV; ++k) v0(k) = s.u(out.velocities[k]);
  // ẋ_red = (u_I, u̇_V) at (δ_I, v) with the generalized forces tau
  auto reduced = [&](const Eigen::VectorXd& dI, const Eigen::VectorXd& v,
                     const Eigen::VectorXd& tau) {
    State p = s;
    if (dI.cwiseAbs().maxCoeff() > 0) p.q = manifold_point(dI);
    p.u = velocities_at(p, v);
    Eigen::VectorXd ud;
    forward(p, tau, ud);
    Eigen::VectorXd f(nI + nV);
    for (int k = 0; k < nI; ++k) f(k) = p.u(out.coordinates[k]);
    for (int k = 0; k < nV; ++k) f(nI + k) = ud(out.velocities[k]);
    return f;
  };
  const Eigen::VectorXd zI = Eigen::VectorXd::Zero(nI), none;
  forward(s, none, out.udot);
  out.A.resize(nI + nV, nI + nV);
  out.B = Eigen::MatrixXd::Zero(nI + nV, inputs.size());
  for (int j = 0; j < nI; ++j)
    out.A.col(j) = richardson(
        [&](double h) { return reduced(h * Eigen::VectorXd::Unit(nI, j), v0, none); }, 1e-3);
  for (int j = 0; j < nV; ++j)
    out.A.col(nI + j) = richardson(
        [&](double h) { return reduced(zI, v0 + h * Eigen::VectorXd::Unit(nV, j), none); }, 1e-3);
  for (size_t c = 0; c < inputs.size(); ++c) {
    const Eigen::VectorXd e = Eigen::VectorXd::Unit(nu, inputs[c]);
    out.B.col(c) = (reduced(zI, v0, e) - reduced(zI, v0, -e)) / 2;  // affine in τ
  }
  out.exact = false;
  out.note = "the model has " + std::to_string(tree.nrows_extra) +
             " constraint rows beyond its tree: reduced to independent coordinates and "
             "velocities (coordinate partitioning) and differentiated by Richardson-"
             "extrapolated central differences (about 1e-10)";
  return out;
}

}  // namespace

LinearModel linearize(const Model& m, const State& s, const std::vector<int>& inputs) {
  const TreeModel& tree = m.tree();
  const int nu = tree.nu;
  for (int c : inputs)
    if (c < 0 || c >= nu)
      throw std::invalid_argument("linearize(): input " + std::to_string(c) +
                                  " is not a quasi-velocity index (nu = " + std::to_string(nu) +
                                  ")");
  if (tree.nrows_extra > 0) return linearize_constrained(m, s, inputs);
  LinearModel out;
  for (int k = 0; k < nu; ++k) out.coordinates.push_back(k), out.velocities.push_back(k);
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
