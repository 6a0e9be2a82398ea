// The linear model about a state (appell/derivatives.hpp linearize()).
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

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

// A steady turn (appell/derivatives.hpp): the world-frame blocks of u (a root free joint's
// v and ω, a root ball joint's ω) turn at Ω about the vertical, u̇ = Ω ẑ × u there, while
// every other rate stays, u̇ = 0.  In a frame turning with it the motion is a fixed point,
// and every world-frame 3-vector of x (those blocks of δq and of δu) gains −Ω ẑ × in its
// rate: δq' = Rᵀ δq gives δq̇' = Rᵀ (δq̇ − Ω ẑ × δq) at R = I.  Ω is the least-squares fit;
// a state that no Ω makes steady (to 1e-9 of its rates) is linearized as it is (Ω = 0).
struct Turn {
  double rate = 0;
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();
  std::vector<int> blocks;  // where the world-frame 3-vectors start (tree nu indices)
  // Ω ẑ × on the world blocks of v (tree nu), zero elsewhere
  Eigen::VectorXd apply(const Eigen::VectorXd& v) const {
    Eigen::VectorXd out = Eigen::VectorXd::Zero(v.size());
    for (int b : blocks) out.segment<3>(b) = rate * axis.cross(Eigen::Vector3d(v.segment<3>(b)));
    return out;
  }
  std::string note() const {
    return "a steady turn at " + std::to_string(rate) +
           " rad/s about the vertical: x is taken in a frame turning with it";
  }
};

Turn steady_turn(const Model& m, const State& s, const Eigen::VectorXd& udot) {
  Turn turn;
  const Vec3 g = m.gravity();
  if (g.norm() > 0) turn.axis = -g.normalized();
  for (const TreeJoint& t : m.tree().joints)
    if (t.parent == -1 && t.type->quaternion() >= 0)
      for (int b = t.u_offset; b < t.u_offset + t.type->nu(); b += 3) turn.blocks.push_back(b);
  double num = 0, den = 0;
  for (int b : turn.blocks) {
    const Eigen::Vector3d k = turn.axis.cross(Eigen::Vector3d(s.u.segment<3>(b)));
    num += k.dot(udot.segment<3>(b));
    den += k.squaredNorm();
  }
  if (!(den > 0)) return turn;
  turn.rate = num / den;
  const double scale = std::max({1.0, s.u.cwiseAbs().maxCoeff(), udot.cwiseAbs().maxCoeff()});
  if (!((udot - turn.apply(s.u)).cwiseAbs().maxCoeff() <= 1e-9 * scale) ||
      std::abs(turn.rate) <= 1e-12 * scale)
    turn.rate = 0;
  return turn;
}

// what the note says when a quaternion joint spins at s (see appell/derivatives.hpp)
std::string spin_note(const Model& m, const State& s) {
  std::string out;
  for (const TreeJoint& t : m.tree().joints) {
    if (t.type->quaternion() < 0) continue;
    const double w = s.u.segment<3>(t.u_offset + t.type->nu() - 3).norm();
    if (!(w > 0)) continue;
    out += (out.empty() ? "" : "; ") + std::string("the quaternion joint of '") +
           m.bodies()[t.body].name + "' spins at " + std::to_string(w) + " rad/s";
  }
  if (!out.empty())
    out +=
        ": its δq follow the reference rotation about the parent frame's axes, so the "
        "eigenvalues are the motion's exponents when the spin is a symmetry of what the "
        "joint carries (a wheel, a disk), not for an unsymmetric body spinning freely";
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
  // The chart x = (δ, u): q = q_ref(t) ⊕ δ (tangent_step), about the reference motion
  // through s at the same instant, so that a steady motion (a bicycle on a straight road, a
  // rolling disk, a spinning top) is a fixed point of the linear model.  A coordinate whose
  // q̇ = u has δ̇ = u − u_ref.  A quaternion joint's q ⊕ δ = (1 + δ/2) ⊗ q_ref, normalised:
  // δ is twice the Gibbs vector of r = q ⊗ q_ref⁻¹ (about the parent frame), and
  // ṙ = ½ ω ⊗ r − ½ r ⊗ ω_ref gives
  //   δ̇ = (ω − ω_ref) + ½ (ω + ω_ref) × δ + ¼ δ (δ · (ω − ω_ref)).
  // Its linear part ω_ref × δ is what a spinning joint adds: with δ̇ = ω − ω_ref alone, or a
  // chart fixed at s.q, a spinning wheel at the root gives the wrong eigenvalues.
  std::vector<int> rotations;  // where ω (and its δ) starts, per quaternion joint: its last 3
  for (const TreeJoint& t : tree.joints)
    if (t.type->quaternion() >= 0) rotations.push_back(t.u_offset + t.type->nu() - 3);
  auto chart_rate = [&](const Eigen::VectorXd& delta, const Eigen::VectorXd& u) {
    Eigen::VectorXd r = u - s.u;
    for (int k : rotations) {
      const Eigen::Vector3d w = u.segment<3>(k), w0 = s.u.segment<3>(k), dl = delta.segment<3>(k);
      r.segment<3>(k) = (w - w0) + 0.5 * (w + w0).cross(dl) + 0.25 * dl * dl.dot(w - w0);
    }
    return r;
  };
  // The constrained motion keeps to the manifold g(q) = 0, A_c(q) u = 0, so its linear
  // model maps the manifold's tangent space into itself: x = (δq_I, u_V) spans it, E lifts
  // x to the full (δ, δu) with
  //   A_h δ = 0                         (the dependent coordinates δ_D),
  //   A_c δu + ∂(A_c(q ⊕ δ) u)/∂δ δ = 0   (the dependent velocities δu_D),
  // and the reduced A is the independent rows of ∂F/∂x E, F = (δ̇, u̇).  Each column is a
  // derivative of F along a straight line in the chart, so no point has to be brought
  // onto the manifold first (points off it by O(h²) do not change a derivative along it).
  const Eigen::MatrixXd H0 = holonomic_rows(R0);
  auto lift_coordinates = [&](const Eigen::VectorXd& dI) {
    Eigen::VectorXd delta = Eigen::VectorXd::Zero(nu);
    for (int k = 0; k < nI; ++k) delta(out.coordinates[k]) = dI(k);
    if (!dep_q.empty()) {
      const Eigen::VectorXd dd =
          columns(H0, dep_q).colPivHouseholderQr().solve(-(columns(H0, out.coordinates) * dI));
      for (size_t k = 0; k < dep_q.size(); ++k) delta(dep_q[k]) = dd(k);
    }
    return delta;
  };
  const Eigen::MatrixXd RD = columns(R0, dep_u), RV = columns(R0, out.velocities);
  const auto RDqr = RD.colPivHouseholderQr();
  // δu with δu_V = dv, A_c δu = −rhs
  auto lift_velocities = [&](const Eigen::VectorXd& dv, const Eigen::VectorXd& rhs) {
    Eigen::VectorXd du = Eigen::VectorXd::Zero(nu);
    for (int k = 0; k < nV; ++k) du(out.velocities[k]) = dv(k);
    if (!dep_u.empty()) {
      const Eigen::VectorXd dd = RDqr.solve(-(RV * dv + rhs));
      for (size_t k = 0; k < dep_u.size(); ++k) du(dep_u[k]) = dd(k);
    }
    return du;
  };
  JointForward forward(m);
  const Eigen::VectorXd none;
  // the independent rows of F at s.q ⊕ delta, s.u + du, with the generalized forces tau
  auto reduced = [&](const Eigen::VectorXd& delta, const Eigen::VectorXd& du,
                     const Eigen::VectorXd& tau) {
    State p = s;
    p.q = tangent_step(m, s.q, delta);
    p.u = s.u + du;
    Eigen::VectorXd ud;
    forward(p, tau, ud);
    const Eigen::VectorXd rate = chart_rate(delta, p.u);
    Eigen::VectorXd f(nI + nV);
    for (int k = 0; k < nI; ++k) f(k) = rate(out.coordinates[k]);
    for (int k = 0; k < nV; ++k) f(nI + k) = ud(out.velocities[k]);
    return f;
  };
  forward(s, none, out.udot);
  const Turn turn = steady_turn(m, s, out.udot);
  // −Ω × on the world blocks of (δ, δu), in x's rows
  auto turning = [&](const Eigen::VectorXd& delta, const Eigen::VectorXd& du) {
    const Eigen::VectorXd kd = turn.apply(delta), ku = turn.apply(du);
    Eigen::VectorXd f(nI + nV);
    for (int k = 0; k < nI; ++k) f(k) = kd(out.coordinates[k]);
    for (int k = 0; k < nV; ++k) f(nI + k) = ku(out.velocities[k]);
    return f;
  };
  out.A.resize(nI + nV, nI + nV);
  out.B = Eigen::MatrixXd::Zero(nI + nV, inputs.size());
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(nu);
  // Steps: the extrapolated error is O(h⁶), so rounding (ε |f| / h) decides; 1e-2 along the
  // coordinates and 1e-1 along the velocities (where u̇ is quadratic, and central differences
  // of a quadratic are exact) put the benchmark bicycle's eigenvalues within 1e-11 of
  // Meijaard et al.'s at every speed from 0 to 10 m/s, where 1e-3 left 3e-10 near capsize.
  // Exact where the derivatives cover the model (forward_dynamics_derivatives() with its
  // rows): along the line (h δ, h δu) the chart's rate changes by δu + W δ (W: ω_ref × on a
  // quaternion joint's block, chart_rate's linear part) and u̇ by ∂u̇/∂q δ + ∂u̇/∂u δu.
  Data d(m);
  ForwardDerivatives fd;
  std::string why;
  try {
    forward_dynamics_derivatives(m, d, s, none, fd);
  } catch (const std::invalid_argument& e) {
    why = e.what();
  }
  if (why.empty()) {
    auto column = [&](const Eigen::VectorXd& delta, const Eigen::VectorXd& du) {
      const Eigen::VectorXd rate = du + (chart_rate(delta, s.u) - chart_rate(zero, s.u));
      const Eigen::VectorXd acc = fd.dudot_dq * delta + fd.dudot_du * du;
      Eigen::VectorXd f(nI + nV);
      for (int k = 0; k < nI; ++k) f(k) = rate(out.coordinates[k]);
      for (int k = 0; k < nV; ++k) f(nI + k) = acc(out.velocities[k]);
      return f;
    };
    for (int j = 0; j < nI; ++j) {
      const Eigen::VectorXd delta = lift_coordinates(Eigen::VectorXd::Unit(nI, j));
      const Eigen::VectorXd du = lift_velocities(Eigen::VectorXd::Zero(nV), fd.dpi_dq * delta);
      out.A.col(j) = column(delta, du);
      if (turn.rate != 0) out.A.col(j) -= turning(delta, du);
    }
    for (int j = 0; j < nV; ++j) {
      const Eigen::VectorXd du =
          lift_velocities(Eigen::VectorXd::Unit(nV, j), Eigen::VectorXd::Zero(R0.rows()));
      out.A.col(nI + j) = column(zero, du);
      if (turn.rate != 0) out.A.col(nI + j) -= turning(zero, du);
    }
    for (size_t c = 0; c < inputs.size(); ++c)
      for (int k = 0; k < nV; ++k) out.B(nI + k, c) = fd.dudot_dtau(out.velocities[k], inputs[c]);
    out.exact = true;
    out.note = "the model has " + std::to_string(tree.nrows_extra) +
               " constraint rows beyond its tree: reduced to independent coordinates and "
               "velocities (coordinate partitioning), with the exact derivatives of the "
               "constrained accelerations";
    if (const std::string spin = spin_note(m, s); !spin.empty()) out.note += "; " + spin;
    if (turn.rate != 0) out.note += "; " + turn.note();
    out.turn_rate = turn.rate;
    return out;
  }
  for (int j = 0; j < nI; ++j) {
    const Eigen::VectorXd delta = lift_coordinates(Eigen::VectorXd::Unit(nI, j));
    const Eigen::VectorXd rows_rate = richardson(
        [&](double h) {
          State p = s;
          p.q = tangent_step(m, s.q, h * delta);
          return Eigen::VectorXd(extra_rows(m, p) * s.u);
        },
        1e-2);
    const Eigen::VectorXd du = lift_velocities(Eigen::VectorXd::Zero(nV), rows_rate);
    out.A.col(j) = richardson([&](double h) { return reduced(h * delta, h * du, none); }, 1e-2);
    if (turn.rate != 0) out.A.col(j) -= turning(delta, du);
  }
  for (int j = 0; j < nV; ++j) {
    const Eigen::VectorXd du =
        lift_velocities(Eigen::VectorXd::Unit(nV, j), Eigen::VectorXd::Zero(R0.rows()));
    out.A.col(nI + j) = richardson([&](double h) { return reduced(zero, h * du, none); }, 1e-1);
    if (turn.rate != 0) out.A.col(nI + j) -= turning(zero, du);
  }
  for (size_t c = 0; c < inputs.size(); ++c) {
    const Eigen::VectorXd e = Eigen::VectorXd::Unit(nu, inputs[c]);
    out.B.col(c) = (reduced(zero, zero, e) - reduced(zero, zero, -e)) / 2;  // affine in τ
  }
  out.exact = false;
  out.note = "the model has " + std::to_string(tree.nrows_extra) +
             " constraint rows beyond its tree: reduced to independent coordinates and "
             "velocities (coordinate partitioning) and differentiated by Richardson-"
             "extrapolated central differences (about 1e-12), since " +
             why;
  if (const std::string spin = spin_note(m, s); !spin.empty()) out.note += "; " + spin;
  if (turn.rate != 0) out.note += "; " + turn.note();
  out.turn_rate = turn.rate;
  return out;
}

// The tree with the quasi-velocities `held` kept at zero rate (one-coordinate joints resting
// on a limit: while its force is positive a closed limit is the holonomic row q_j = bound,
// appell/derivatives.hpp).  x = (δq_I, u_I) over the other coordinates I, and on them
//   M_II u̇_I = −ID(q, u, 0)_I + τ_I                 (the held rows' forces take the rest)
//   δu̇_I = −M_II⁻¹ (∂τ/∂q_II δq_I + ∂τ/∂u_II δu_I) + M_II⁻¹ δτ_I,
// the derivatives of inverse dynamics at u̇ = (u̇_I, 0) (exact where they cover the
// forces; else Richardson differences of u̇_I).
LinearModel linearize_held(const Model& m, const State& s, const std::vector<int>& inputs,
                           const std::vector<int>& held) {
  const TreeModel& tree = m.tree();
  const int nu = tree.nu;
  std::vector<char> is_held(nu, 0);
  for (int k : held) is_held[k] = 1;
  LinearModel out;
  for (int k = 0; k < nu; ++k)
    if (!is_held[k]) out.coordinates.push_back(k), out.velocities.push_back(k);
  out.held = held;
  const int n = static_cast<int>(out.coordinates.size());
  const auto& I = out.coordinates;
  auto restrict = [&](const Eigen::MatrixXd& X) {
    Eigen::MatrixXd Y(n, n);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) Y(r, c) = X(I[r], I[c]);
    return Y;
  };
  Data d(m);
  // u̇_I at (q, u) with generalized forces tau on the free coordinates
  auto udot_at = [&](const State& p, const Eigen::VectorXd& tau) {
    Eigen::VectorXd bias;
    Eigen::MatrixXd M;
    inverse_dynamics(m, d, p, Eigen::VectorXd::Zero(nu), bias);
    mass_matrix(m, d, p, M);
    Eigen::VectorXd rhs(n);
    for (int r = 0; r < n; ++r) rhs(r) = (tau.size() ? tau(I[r]) : 0.0) - bias(I[r]);
    return Eigen::VectorXd(restrict(M).ldlt().solve(rhs));
  };
  const Eigen::VectorXd none;
  const Eigen::VectorXd a = udot_at(s, none);
  out.udot = Eigen::VectorXd::Zero(nu);
  for (int r = 0; r < n; ++r) out.udot(I[r]) = a(r);
  out.A = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  out.B = Eigen::MatrixXd::Zero(2 * n, inputs.size());
  out.A.topRightCorner(n, n).setIdentity();
  // δ̇ = ω − ω_ref + ω_ref × δ on a quaternion joint's block (never held), as linearize()
  for (const TreeJoint& t : tree.joints)
    if (t.type->quaternion() >= 0) {
      const int k0 = t.u_offset + t.type->nu() - 3;
      const int r0 = static_cast<int>(std::find(I.begin(), I.end(), k0) - I.begin());
      const Eigen::Vector3d w = s.u.segment<3>(k0);
      Eigen::Matrix3d wx;
      wx << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
      out.A.block<3, 3>(r0, r0) = wx;
    }
  InverseDerivatives id;
  std::string why;
  try {
    inverse_dynamics_derivatives(m, d, s, out.udot, id);
  } catch (const std::invalid_argument& e) {
    why = e.what();
  }
  if (why.empty()) {
    const auto Mii = restrict(id.M).ldlt();
    out.A.bottomLeftCorner(n, n) = -Mii.solve(restrict(id.dtau_dq));
    out.A.bottomRightCorner(n, n) = -Mii.solve(restrict(id.dtau_du));
    for (size_t c = 0; c < inputs.size(); ++c)
      if (!is_held[inputs[c]]) {
        Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
        e(std::find(I.begin(), I.end(), inputs[c]) - I.begin()) = 1.0;
        out.B.col(c).tail(n) = Mii.solve(e);
      }
    out.exact = true;
  } else {
    for (int j = 0; j < n; ++j) {
      const Eigen::VectorXd e = Eigen::VectorXd::Unit(nu, I[j]);
      out.A.col(j).tail(n) = richardson(
          [&](double h) {
            State p = s;
            p.q = tangent_step(m, s.q, h * e);
            return udot_at(p, none);
          },
          1e-3);
      out.A.col(n + j).tail(n) = richardson(
          [&](double h) {
            State p = s;
            p.u += h * e;
            return udot_at(p, none);
          },
          1e-3);
    }
    for (size_t c = 0; c < inputs.size(); ++c) {
      const Eigen::VectorXd e = Eigen::VectorXd::Unit(nu, inputs[c]);
      out.B.col(c).tail(n) = (udot_at(s, e) - udot_at(s, -e)) / 2;  // affine in τ
    }
    out.exact = false;
    out.note = why +
               "; differentiated by Richardson-extrapolated central differences (about "
               "1e-10)";
  }
  if (const std::string spin = spin_note(m, s); !spin.empty())
    out.note += (out.note.empty() ? "" : "; ") + spin;
  return out;
}

}  // namespace

LinearModel linearize(const Model& m, const State& s, const std::vector<int>& inputs,
                      const std::vector<int>& held) {
  const TreeModel& tree = m.tree();
  if (held.empty()) return linearize(m, s, inputs);
  for (int c : inputs)
    if (c < 0 || c >= tree.nu)
      throw std::invalid_argument(
          "linearize(): input " + std::to_string(c) +
          " is not a quasi-velocity index (nu = " + std::to_string(tree.nu) + ")");
  for (int k : held)
    if (k < 0 || k >= tree.nu || std::count(held.begin(), held.end(), k) > 1)
      throw std::invalid_argument("linearize(): held coordinate " + std::to_string(k) +
                                  " is not a quasi-velocity index (nu = " +
                                  std::to_string(tree.nu) + ") or is given twice");
  if (tree.nrows_extra > 0)
    throw std::invalid_argument(
        "linearize(): coordinates held by their limits in a model with constraint rows "
        "beyond its tree (loops) are not supported");
  return linearize_held(m, s, inputs, held);
}

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
  // δ̇ = ω − ω_ref + ω_ref × δ + … on a quaternion joint's tangent coordinates, in the
  // chart that follows the reference motion (see linearize_constrained)
  for (const TreeJoint& t : tree.joints)
    if (t.type->quaternion() >= 0) {
      const int k = t.u_offset + t.type->nu() - 3;
      const Eigen::Vector3d w = s.u.segment<3>(k);
      Eigen::Matrix3d wx;
      wx << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
      out.A.block<3, 3>(k, k) = wx;
    }
  out.A.bottomLeftCorner(nu, nu) = fd.dudot_dq;
  out.A.bottomRightCorner(nu, nu) = fd.dudot_du;
  for (size_t c = 0; c < inputs.size(); ++c) out.B.col(c).tail(nu) = fd.dudot_dtau.col(inputs[c]);
  if (const Turn turn = steady_turn(m, s, fd.udot); turn.rate != 0) {
    for (int j = 0; j < nu; ++j) {
      const Eigen::VectorXd k = turn.apply(Eigen::VectorXd::Unit(nu, j));
      out.A.block(0, j, nu, 1) -= k;
      out.A.block(nu, nu + j, nu, 1) -= k;
    }
    out.turn_rate = turn.rate;
    out.note += (out.note.empty() ? "" : "; ") + turn.note();
  }
  if (const std::string spin = spin_note(m, s); !spin.empty())
    out.note += (out.note.empty() ? "" : "; ") + spin;
  return out;
}

}  // namespace appell
