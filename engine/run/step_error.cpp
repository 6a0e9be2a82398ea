// The error an adaptive step controls (StateSpace::step_error).
//
// In joint coordinates a closed loop is held by extra rows that the joint coordinates do
// not satisfy by construction, and an error that is small against the size of every joint
// coordinate can still open the loop: the mixed test accepts a change of 1e-6 rad in an angle
// of 1 rad, which moves a link's end across the loop's closure by the same 1e-6 times its
// length, on every step, and the drift of the loop (and of the energy) grows with it.  In
// maximal coordinates the same step is held to atol on every body coordinate that is near
// zero, which is what keeps a maximal run on the manifold.  So a tree with extra rows
// controls both: the mixed test on x, and the same test on the bodies' maximal coordinates
// (x̄, the orientation quaternion, v̄, ω) that x and x + err give, as the maximal
// formulations would apply it to their own coordinates.  A tree without extra rows has no
// manifold to leave, and keeps the joint-coordinate test alone.
#include <algorithm>
#include <cmath>

#include "appell/model.hpp"
#include "appell/state_space.hpp"
#include "engine/run/tree_state_space.hpp"

namespace appell {

namespace {

// |e| / (atol + rtol (|x| + |dt ẋ|)), the mixed test on one component
double scaled(double e, double x, double dt_rate, double atol, double rtol) {
  return std::abs(e) / (atol + rtol * (std::abs(x) + std::abs(dt_rate)));
}

// the body states of the tree at (q, u), base to tip
void body_states(const TreeModel& tree, const double* q, const double* u,
                 std::vector<BodyState>& body) {
  static const BodyState rest{};
  JointMotion jm;
  Vec6 V_J;
  for (const TreeJoint& j : tree.joints) {
    const BodyState& P = j.parent_body == kWorld ? rest : body[j.parent_body];
    joint_kinematics(j, P, q + j.q_offset, u + j.u_offset, body[j.body], jm, V_J);
  }
}

// the quaternion (w, x, y, z) of Q, on the side of `near` (q and −q are one rotation)
Eigen::Vector4d quaternion(const Mat3& Q, const Eigen::Vector4d& near) {
  const Quat o(Q);
  Eigen::Vector4d v(o.w(), o.x(), o.y(), o.z());
  return v.dot(near) < 0 ? Eigen::Vector4d(-v) : v;
}

}  // namespace

double StateSpace::step_error(const Eigen::VectorXd& x, const Eigen::VectorXd& xdot,
                              const Eigen::VectorXd& err, double dt, double atol, double rtol) {
  double e = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i)
    e = std::max(e, scaled(err(i), x(i), dt * xdot(i), atol, rtol));
  return e;
}

double TreeStateSpace::step_error(const Eigen::VectorXd& x, const Eigen::VectorXd& xdot,
                                  const Eigen::VectorXd& err, double dt, double atol, double rtol) {
  double e = StateSpace::step_error(x, xdot, err, dt, atol, rtol);
  if (tree_.nrows_extra == 0 || !(e <= 1.0)) return e;  // rejected (or not finite) already
  const int nq = tree_.nq, n = m_.nbody();
  at_x_.resize(n);
  at_moved_.resize(n);
  at_rate_.resize(n);
  // x, x + err (its quaternions on the unit sphere, as after an accepted step), and
  // (q, u + dt u̇), whose body velocities differ from x's by dt times the part of the
  // bodies' accelerations that u̇ makes: the scale of the velocities' rates
  body_states(tree_, x.data(), x.data() + nq, at_x_);
  moved_ = x + err;
  tree_normalize(tree_, moved_.head(nq));
  body_states(tree_, moved_.data(), moved_.data() + nq, at_moved_);
  moved_ = x;
  moved_.tail(tree_.nu) += dt * xdot.tail(tree_.nu);
  body_states(tree_, moved_.data(), moved_.data() + nq, at_rate_);
  const double h = std::abs(dt);
  for (int b = 0; b < n; ++b) {
    const BodyState &a = at_x_[b], &c = at_moved_[b], &r = at_rate_[b];
    for (int k = 0; k < 3; ++k) {
      e = std::max(e, scaled(c.x(k) - a.x(k), a.x(k), h * a.v(k), atol, rtol));
      e = std::max(e, scaled(c.v(k) - a.v(k), a.v(k), r.v(k) - a.v(k), atol, rtol));
    }
    // (a particle's Q is I and its ω zero: no error)
    const Quat o(a.Q);
    const Eigen::Vector4d qa(o.w(), o.x(), o.y(), o.z()), qc = quaternion(c.Q, qa);
    // the quaternion's rate ½ (0, ω) ⊗ q, ω in the world
    const Quat rate = Quat(0.0, 0.5 * a.w(0), 0.5 * a.w(1), 0.5 * a.w(2)) * o;
    const Eigen::Vector4d qr(rate.w(), rate.x(), rate.y(), rate.z());
    for (int k = 0; k < 4; ++k)
      e = std::max(e, scaled(qc(k) - qa(k), qa(k), h * qr(k), atol, rtol));
    for (int k = 0; k < 3; ++k)
      e = std::max(e, scaled(c.w(k) - a.w(k), a.w(k), r.w(k) - a.w(k), atol, rtol));
  }
  return e;
}

}  // namespace appell
