// The linear model about a state (appell/derivatives.hpp linearize()) of a tree, and of a
// tree with coordinates held by their limits; with constraint rows beyond the tree,
// linearize_constrained.cpp.
#include <Eigen/Cholesky>
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
#include "engine/formulations/recursive/linearize_chart.hpp"

namespace appell {

namespace linearization {

Eigen::VectorXd richardson(const std::function<Eigen::VectorXd(double)>& f, double h) {
  auto D = [&](double s) -> Eigen::VectorXd { return (f(s) - f(-s)) / (2 * s); };
  const Eigen::VectorXd d0 = D(h), d1 = D(h / 2), d2 = D(h / 4);
  const Eigen::VectorXd e0 = (4 * d1 - d0) / 3, e1 = (4 * d2 - d1) / 3;
  return (16 * e1 - e0) / 15;
}

Eigen::VectorXd Turn::apply(const Eigen::VectorXd& v) const {
  Eigen::VectorXd out = Eigen::VectorXd::Zero(v.size());
  for (int b : blocks) out.segment<3>(b) = rate * axis.cross(Eigen::Vector3d(v.segment<3>(b)));
  return out;
}

std::string Turn::note() const {
  return "a steady turn at " + std::to_string(rate) +
         " rad/s about the vertical: x is taken in a frame turning with it";
}

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

namespace {

// the linear part of eq (1) of linearize_constrained.cpp on a quaternion joint's tangent
// coordinates, δ̇ = ω − ω_ref + ω_ref × δ + …, in the chart that follows the reference
// motion: ω_ref × in A's block of δq (rows and columns: the joint's ω in x's coordinates I)
void add_spin_blocks(const Model& m, const State& s, const std::vector<int>& I,
                     Eigen::MatrixXd& A) {
  for (const TreeJoint& t : m.tree().joints)
    if (t.type->quaternion() >= 0) {
      const int k0 = t.u_offset + t.type->nu() - 3;
      const int r0 = static_cast<int>(std::find(I.begin(), I.end(), k0) - I.begin());
      const Eigen::Vector3d w = s.u.segment<3>(k0);
      Eigen::Matrix3d wx;
      wx << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
      A.block<3, 3>(r0, r0) = wx;
    }
}

// The dynamics on the free coordinates I of a tree whose held quasi-velocities keep zero rate:
//   M_II u̇_I = −ID(q, u, 0)_I + τ_I                 (the held rows' forces take the rest)
class HeldDynamics {
 public:
  HeldDynamics(const Model& m, const std::vector<int>& I) : m_(m), d_(m), I_(I) {}

  // X's rows and columns I
  Eigen::MatrixXd restrict(const Eigen::MatrixXd& X) const {
    const int n = static_cast<int>(I_.size());
    Eigen::MatrixXd Y(n, n);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) Y(r, c) = X(I_[r], I_[c]);
    return Y;
  }

  // u̇_I at (q, u) with generalized forces tau (tree nu, or empty: none)
  Eigen::VectorXd udot(const State& p, const Eigen::VectorXd& tau) {
    const int n = static_cast<int>(I_.size());
    Eigen::VectorXd bias;
    Eigen::MatrixXd M;
    inverse_dynamics(m_, d_, p, Eigen::VectorXd::Zero(m_.tree().nu), bias);
    mass_matrix(m_, d_, p, M);
    Eigen::VectorXd rhs(n);
    for (int r = 0; r < n; ++r) rhs(r) = (tau.size() ? tau(I_[r]) : 0.0) - bias(I_[r]);
    return Eigen::VectorXd(restrict(M).ldlt().solve(rhs));
  }

  Data& data() { return d_; }

 private:
  const Model& m_;
  Data d_;
  const std::vector<int>& I_;
};

// A's lower blocks and B from inverse dynamics' derivatives at u̇ = (u̇_I, 0):
//   δu̇_I = −M_II⁻¹ (∂τ/∂q_II δq_I + ∂τ/∂u_II δu_I) + M_II⁻¹ δτ_I
void held_exact(const HeldDynamics& dyn, const InverseDerivatives& id,
                const std::vector<int>& inputs, LinearModel& out) {
  const std::vector<int>& I = out.coordinates;
  const int n = static_cast<int>(I.size());
  const auto Mii = dyn.restrict(id.M).ldlt();
  out.A.bottomLeftCorner(n, n) = -Mii.solve(dyn.restrict(id.dtau_dq));
  out.A.bottomRightCorner(n, n) = -Mii.solve(dyn.restrict(id.dtau_du));
  for (size_t c = 0; c < inputs.size(); ++c) {
    const auto at = std::find(I.begin(), I.end(), inputs[c]);
    if (at == I.end()) continue;  // a held input: a zero column
    Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
    e(at - I.begin()) = 1.0;
    out.B.col(c).tail(n) = Mii.solve(e);
  }
}

// the same by Richardson differences of u̇_I
void held_numerical(const Model& m, const State& s, HeldDynamics& dyn,
                    const std::vector<int>& inputs, LinearModel& out) {
  const std::vector<int>& I = out.coordinates;
  const int n = static_cast<int>(I.size()), nu = m.tree().nu;
  const Eigen::VectorXd none;
  for (int j = 0; j < n; ++j) {
    const Eigen::VectorXd e = Eigen::VectorXd::Unit(nu, I[j]);
    out.A.col(j).tail(n) = linearization::richardson(
        [&](double h) {
          State p = s;
          p.q = tangent_step(m, s.q, h * e);
          return dyn.udot(p, none);
        },
        1e-3);
    out.A.col(n + j).tail(n) = linearization::richardson(
        [&](double h) {
          State p = s;
          p.u += h * e;
          return dyn.udot(p, none);
        },
        1e-3);
  }
  for (size_t c = 0; c < inputs.size(); ++c) {
    const Eigen::VectorXd e = Eigen::VectorXd::Unit(nu, inputs[c]);
    out.B.col(c).tail(n) = (dyn.udot(s, e) - dyn.udot(s, -e)) / 2;  // affine in τ
  }
}

// The tree with the quasi-velocities `held` kept at zero rate (one-coordinate joints resting
// on a limit: while its force is positive a closed limit is the holonomic row q_j = bound,
// appell/derivatives.hpp).  x = (δq_I, u_I) over the other coordinates I, and on them the
// derivatives of HeldDynamics (exact where inverse dynamics' derivatives cover the forces;
// else Richardson differences of u̇_I).
LinearModel linearize_held(const Model& m, const State& s, const std::vector<int>& inputs,
                           const std::vector<int>& held) {
  const int nu = m.tree().nu;
  LinearModel out;
  for (int k = 0; k < nu; ++k)
    if (std::find(held.begin(), held.end(), k) == held.end())
      out.coordinates.push_back(k), out.velocities.push_back(k);
  out.held = held;
  const int n = static_cast<int>(out.coordinates.size());
  HeldDynamics dyn(m, out.coordinates);
  const Eigen::VectorXd a = dyn.udot(s, Eigen::VectorXd());
  out.udot = Eigen::VectorXd::Zero(nu);
  for (int r = 0; r < n; ++r) out.udot(out.coordinates[r]) = a(r);
  out.A = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  out.B = Eigen::MatrixXd::Zero(2 * n, inputs.size());
  out.A.topRightCorner(n, n).setIdentity();
  add_spin_blocks(m, s, out.coordinates, out.A);  // never held
  InverseDerivatives id;
  std::string why;
  try {
    inverse_dynamics_derivatives(m, dyn.data(), s, out.udot, id);
  } catch (const std::invalid_argument& e) {
    why = e.what();
  }
  out.exact = why.empty();
  if (out.exact) {
    held_exact(dyn, id, inputs, out);
  } else {
    held_numerical(m, s, dyn, inputs, out);
    out.note =
        why + "; differentiated by Richardson-extrapolated central differences (about 1e-10)";
  }
  if (const std::string spin = linearization::spin_note(m, s); !spin.empty())
    out.note += (out.note.empty() ? "" : "; ") + spin;
  return out;
}

// u̇ and its derivatives on a tree by Richardson differences of forward dynamics, where
// forward_dynamics_derivatives() does not cover the model
void numerical_forward_derivatives(const Model& m, const State& s, ForwardDerivatives& fd) {
  const int nu = m.tree().nu;
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
    fd.dudot_dq.col(j) = linearization::richardson(
        [&](double h) {
          State p = s;
          p.q = tangent_step(m, s.q, h * e);
          return udot_at(p, none);
        },
        1e-3);
    fd.dudot_du.col(j) = linearization::richardson(
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

}  // namespace
}  // namespace linearization

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
  return linearization::linearize_held(m, s, inputs, held);
}

// On a tree, x = (δq, u) over every quasi-velocity:
//   A = [ W       I     ]     B = [ 0        ]
//       [ ∂u̇/∂q   ∂u̇/∂u ]         [ ∂u̇/∂τ E  ]
// W the spin blocks (add_spin_blocks), less −Ω × on the world blocks in a steady turn.
LinearModel linearize(const Model& m, const State& s, const std::vector<int>& inputs) {
  const TreeModel& tree = m.tree();
  const int nu = tree.nu;
  for (int c : inputs)
    if (c < 0 || c >= nu)
      throw std::invalid_argument("linearize(): input " + std::to_string(c) +
                                  " is not a quasi-velocity index (nu = " + std::to_string(nu) +
                                  ")");
  if (tree.nrows_extra > 0) return linearization::linearize_constrained(m, s, inputs);
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
    linearization::numerical_forward_derivatives(m, s, fd);
  }
  out.udot = fd.udot;
  out.A = Eigen::MatrixXd::Zero(2 * nu, 2 * nu);
  out.B = Eigen::MatrixXd::Zero(2 * nu, inputs.size());
  out.A.topRightCorner(nu, nu).setIdentity();
  linearization::add_spin_blocks(m, s, out.coordinates, out.A);
  out.A.bottomLeftCorner(nu, nu) = fd.dudot_dq;
  out.A.bottomRightCorner(nu, nu) = fd.dudot_du;
  for (size_t c = 0; c < inputs.size(); ++c) out.B.col(c).tail(nu) = fd.dudot_dtau.col(inputs[c]);
  if (const linearization::Turn turn = linearization::steady_turn(m, s, fd.udot); turn.rate != 0) {
    for (int j = 0; j < nu; ++j) {
      const Eigen::VectorXd k = turn.apply(Eigen::VectorXd::Unit(nu, j));
      out.A.block(0, j, nu, 1) -= k;
      out.A.block(nu, nu + j, nu, 1) -= k;
    }
    out.turn_rate = turn.rate;
    out.note += (out.note.empty() ? "" : "; ") + turn.note();
  }
  if (const std::string spin = linearization::spin_note(m, s); !spin.empty())
    out.note += (out.note.empty() ? "" : "; ") + spin;
  return out;
}

}  // namespace appell
