// The linear model of a model with constraint rows beyond its tree (appell/derivatives.hpp
// linearize()), reduced to independent coordinates and velocities by coordinate
// partitioning.
//
// The chart x = (δ, u): q = q_ref(t) ⊕ δ (tangent_step), about the reference motion through
// s at the same instant, so that a steady motion (a bicycle on a straight road, a rolling
// disk, a spinning top) is a fixed point of the linear model.  A coordinate whose q̇ = u has
// δ̇ = u − u_ref.  A quaternion joint's q ⊕ δ = (1 + δ/2) ⊗ q_ref, normalised: δ is twice the
// Gibbs vector of r = q ⊗ q_ref⁻¹ (about the parent frame), and ṙ = ½ ω ⊗ r − ½ r ⊗ ω_ref
// gives
//   δ̇ = (ω − ω_ref) + ½ (ω + ω_ref) × δ + ¼ δ (δ · (ω − ω_ref)).                  (1)
// Its linear part ω_ref × δ is what a spinning joint adds: with δ̇ = ω − ω_ref alone, or a
// chart fixed at s.q, a spinning wheel at the root gives the wrong eigenvalues.
//
// The constrained motion keeps to the manifold g(q) = 0, A_c(q) u = 0, so its linear model
// maps the manifold's tangent space into itself: x = (δq_I, u_V) spans it, E lifts x to the
// full (δ, δu) with
//   A_h δ = 0                            (the dependent coordinates δ_D),           (2)
//   A_c δu + ∂(A_c(q ⊕ δ) u)/∂δ δ = 0     (the dependent velocities δu_D),          (3)
// and the reduced A is the independent rows of ∂F/∂x E, F = (δ̇, u̇).  Each column is a
// derivative of F along a straight line in the chart, so no point has to be brought onto
// the manifold first (points off it by O(h²) do not change a derivative along it).
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "appell/derivatives.hpp"
#include "appell/inverse_dynamics.hpp"
#include "appell/jacobians.hpp"
#include "appell/model.hpp"
#include "appell/tree.hpp"
#include "engine/formulations/recursive/linearize_chart.hpp"

namespace appell {
namespace linearization {

namespace {

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

// The partition of the tree's coordinates and velocities at s into independent (I, V) and
// dependent (D) ones, and the lift E of x = (δq_I, u_V) to the full (δ, δu), eqs (2), (3).
class ConstrainedChart {
 public:
  ConstrainedChart(const Model& m, const State& s) : s_(s), nu_(m.tree().nu) {
    for (int c : m.tree().extra)
      for (int r = 0; r < m.constraints()[c]->rows(); ++r)
        holonomic_.push_back(m.constraints()[c]->holonomic(r) ? 1 : 0);
    R0_ = extra_rows(m, s);
    if (R0_.rows() != static_cast<int>(holonomic_.size()))
      throw std::logic_error("linearize(): the extra rows are not the extra constraints' rows");
    const double violation = (R0_ * s.u).cwiseAbs().maxCoeff();
    if (violation > 1e-8 * std::max(1.0, s.u.cwiseAbs().maxCoeff()))
      throw std::invalid_argument(
          "linearize(): the state's velocities violate the constraint rows (|A u| = " +
          std::to_string(violation) +
          "); rows with a right side (prescribed motion) are not reduced");
    H0_ = holonomic_rows(R0_);
    partition(H0_, nu_, dep_q_, coordinates);
    partition(R0_, nu_, dep_u_, velocities);
    nI = static_cast<int>(coordinates.size());
    nV = static_cast<int>(velocities.size());
    RV_ = columns(R0_, velocities);
    RDqr_ = columns(R0_, dep_u_).colPivHouseholderQr();
    for (const TreeJoint& t : m.tree().joints)
      if (t.type->quaternion() >= 0) rotations_.push_back(t.u_offset + t.type->nu() - 3);
  }

  std::vector<int> coordinates, velocities;  // I and V, ascending
  int nI = 0, nV = 0;

  int rows() const { return static_cast<int>(R0_.rows()); }

  // δ with δ_I = dI and A_h δ = 0, eq (2)
  Eigen::VectorXd lift_coordinates(const Eigen::VectorXd& dI) const {
    Eigen::VectorXd delta = Eigen::VectorXd::Zero(nu_);
    for (int k = 0; k < nI; ++k) delta(coordinates[k]) = dI(k);
    if (!dep_q_.empty()) {
      const Eigen::VectorXd dd =
          columns(H0_, dep_q_).colPivHouseholderQr().solve(-(columns(H0_, coordinates) * dI));
      for (size_t k = 0; k < dep_q_.size(); ++k) delta(dep_q_[k]) = dd(k);
    }
    return delta;
  }

  // δu with δu_V = dv and A_c δu = −rhs, eq (3)
  Eigen::VectorXd lift_velocities(const Eigen::VectorXd& dv, const Eigen::VectorXd& rhs) const {
    Eigen::VectorXd du = Eigen::VectorXd::Zero(nu_);
    for (int k = 0; k < nV; ++k) du(velocities[k]) = dv(k);
    if (!dep_u_.empty()) {
      const Eigen::VectorXd dd = RDqr_.solve(-(RV_ * dv + rhs));
      for (size_t k = 0; k < dep_u_.size(); ++k) du(dep_u_[k]) = dd(k);
    }
    return du;
  }

  // δ̇ at δ with the rates u, eq (1) on each quaternion joint's block
  Eigen::VectorXd rate(const Eigen::VectorXd& delta, const Eigen::VectorXd& u) const {
    Eigen::VectorXd r = u - s_.u;
    for (int k : rotations_) {
      const Eigen::Vector3d w = u.segment<3>(k), w0 = s_.u.segment<3>(k), dl = delta.segment<3>(k);
      r.segment<3>(k) = (w - w0) + 0.5 * (w + w0).cross(dl) + 0.25 * dl * dl.dot(w - w0);
    }
    return r;
  }

  // x's rows of (f_q, f_u): f_q at I, f_u at V
  Eigen::VectorXd in_x(const Eigen::VectorXd& fq, const Eigen::VectorXd& fu) const {
    Eigen::VectorXd f(nI + nV);
    for (int k = 0; k < nI; ++k) f(k) = fq(coordinates[k]);
    for (int k = 0; k < nV; ++k) f(nI + k) = fu(velocities[k]);
    return f;
  }

 private:
  // the holonomic rows of R (A_h)
  Eigen::MatrixXd holonomic_rows(const Eigen::MatrixXd& R) const {
    std::vector<int> rows;
    for (int r = 0; r < static_cast<int>(holonomic_.size()); ++r)
      if (holonomic_[r]) rows.push_back(r);
    Eigen::MatrixXd H(rows.size(), nu_);
    for (size_t k = 0; k < rows.size(); ++k) H.row(k) = R.row(rows[k]);
    return H;
  }

  const State& s_;
  int nu_;
  std::vector<char> holonomic_;
  Eigen::MatrixXd R0_, H0_, RV_;                      // A_c at s, A_h at s, A_c's columns V
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> RDqr_;  // A_c's columns D
  std::vector<int> dep_q_, dep_u_;
  std::vector<int> rotations_;  // where ω (and its δ) starts, per quaternion joint: its last 3
};

// −Ω × on the world blocks of (δ, δu), in x's rows
Eigen::VectorXd turning(const ConstrainedChart& chart, const Turn& turn,
                        const Eigen::VectorXd& delta, const Eigen::VectorXd& du) {
  return chart.in_x(turn.apply(delta), turn.apply(du));
}

// A and B from forward_dynamics_derivatives() with its rows: along the line (h δ, h δu) the
// chart's rate changes by δu + W δ (W: ω_ref × on a quaternion joint's block, the linear
// part of eq (1)) and u̇ by ∂u̇/∂q δ + ∂u̇/∂u δu
void exact_columns(const ConstrainedChart& chart, const State& s, const ForwardDerivatives& fd,
                   const Turn& turn, const std::vector<int>& inputs, LinearModel& out) {
  const int nI = chart.nI, nV = chart.nV;
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(s.u.size());
  auto column = [&](const Eigen::VectorXd& delta, const Eigen::VectorXd& du) {
    const Eigen::VectorXd rate = du + (chart.rate(delta, s.u) - chart.rate(zero, s.u));
    return chart.in_x(rate, fd.dudot_dq * delta + fd.dudot_du * du);
  };
  for (int j = 0; j < nI; ++j) {
    const Eigen::VectorXd delta = chart.lift_coordinates(Eigen::VectorXd::Unit(nI, j));
    const Eigen::VectorXd du = chart.lift_velocities(Eigen::VectorXd::Zero(nV), fd.dpi_dq * delta);
    out.A.col(j) = column(delta, du);
    if (turn.rate != 0) out.A.col(j) -= turning(chart, turn, delta, du);
  }
  for (int j = 0; j < nV; ++j) {
    const Eigen::VectorXd du =
        chart.lift_velocities(Eigen::VectorXd::Unit(nV, j), Eigen::VectorXd::Zero(chart.rows()));
    out.A.col(nI + j) = column(zero, du);
    if (turn.rate != 0) out.A.col(nI + j) -= turning(chart, turn, zero, du);
  }
  for (size_t c = 0; c < inputs.size(); ++c)
    for (int k = 0; k < nV; ++k) out.B(nI + k, c) = fd.dudot_dtau(chart.velocities[k], inputs[c]);
}

// A and B by Richardson differences of F.  Steps: the extrapolated error is O(h⁶), so
// rounding (ε |f| / h) decides; 1e-2 along the coordinates and 1e-1 along the velocities
// (where u̇ is quadratic, and central differences of a quadratic are exact) put the
// benchmark bicycle's eigenvalues within 1e-11 of Meijaard et al.'s at every speed from 0
// to 10 m/s, where 1e-3 left 3e-10 near capsize.
void numerical_columns(const Model& m, const State& s, const ConstrainedChart& chart,
                       JointForward& forward, const Turn& turn, const std::vector<int>& inputs,
                       LinearModel& out) {
  const int nI = chart.nI, nV = chart.nV;
  const Eigen::VectorXd none, zero = Eigen::VectorXd::Zero(s.u.size());
  // the independent rows of F at s.q ⊕ delta, s.u + du, with the generalized forces tau
  auto reduced = [&](const Eigen::VectorXd& delta, const Eigen::VectorXd& du,
                     const Eigen::VectorXd& tau) {
    State p = s;
    p.q = tangent_step(m, s.q, delta);
    p.u = s.u + du;
    Eigen::VectorXd ud;
    forward(p, tau, ud);
    return chart.in_x(chart.rate(delta, p.u), ud);
  };
  for (int j = 0; j < nI; ++j) {
    const Eigen::VectorXd delta = chart.lift_coordinates(Eigen::VectorXd::Unit(nI, j));
    const Eigen::VectorXd rows_rate = richardson(
        [&](double h) {
          State p = s;
          p.q = tangent_step(m, s.q, h * delta);
          return Eigen::VectorXd(extra_rows(m, p) * s.u);
        },
        1e-2);
    const Eigen::VectorXd du = chart.lift_velocities(Eigen::VectorXd::Zero(nV), rows_rate);
    out.A.col(j) = richardson([&](double h) { return reduced(h * delta, h * du, none); }, 1e-2);
    if (turn.rate != 0) out.A.col(j) -= turning(chart, turn, delta, du);
  }
  for (int j = 0; j < nV; ++j) {
    const Eigen::VectorXd du =
        chart.lift_velocities(Eigen::VectorXd::Unit(nV, j), Eigen::VectorXd::Zero(chart.rows()));
    out.A.col(nI + j) = richardson([&](double h) { return reduced(zero, h * du, none); }, 1e-1);
    if (turn.rate != 0) out.A.col(nI + j) -= turning(chart, turn, zero, du);
  }
  for (size_t c = 0; c < inputs.size(); ++c) {
    const Eigen::VectorXd e = Eigen::VectorXd::Unit(s.u.size(), inputs[c]);
    out.B.col(c) = (reduced(zero, zero, e) - reduced(zero, zero, -e)) / 2;  // affine in τ
  }
}

}  // namespace

LinearModel linearize_constrained(const Model& m, const State& s, const std::vector<int>& inputs) {
  const ConstrainedChart chart(m, s);
  LinearModel out;
  out.coordinates = chart.coordinates;
  out.velocities = chart.velocities;
  JointForward forward(m);
  const Eigen::VectorXd none;
  forward(s, none, out.udot);
  const Turn turn = steady_turn(m, s, out.udot);
  out.A.resize(chart.nI + chart.nV, chart.nI + chart.nV);
  out.B = Eigen::MatrixXd::Zero(chart.nI + chart.nV, inputs.size());
  // exact where the derivatives cover the model (forward_dynamics_derivatives() with its rows)
  Data d(m);
  ForwardDerivatives fd;
  std::string why;
  try {
    forward_dynamics_derivatives(m, d, s, none, fd);
  } catch (const std::invalid_argument& e) {
    why = e.what();
  }
  out.exact = why.empty();
  out.note = "the model has " + std::to_string(m.tree().nrows_extra) +
             " constraint rows beyond its tree: reduced to independent coordinates and "
             "velocities (coordinate partitioning)";
  if (out.exact) {
    exact_columns(chart, s, fd, turn, inputs, out);
    out.note += ", with the exact derivatives of the constrained accelerations";
  } else {
    numerical_columns(m, s, chart, forward, turn, inputs, out);
    out.note +=
        " and differentiated by Richardson-extrapolated central differences (about 1e-12), "
        "since " +
        why;
  }
  if (const std::string spin = spin_note(m, s); !spin.empty()) out.note += "; " + spin;
  if (turn.rate != 0) out.note += "; " + turn.note();
  out.turn_rate = turn.rate;
  return out;
}

}  // namespace linearization
}  // namespace appell
