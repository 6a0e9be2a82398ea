// A body's maximal coordinates (internal to the library; appell/body.hpp): the one place
// that knows their two layouts, so that the passes over bodies never ask which one a body
// has.
//   rigid body:  q = (x̄, quaternion [w x y z]) (7),  u = (v̄, ω) (6), ω in the world
//   particle:    q = x̄ (3),                          u = v̄ (3)
// Each function reads and writes b.nq() or b.nu() entries from the pointers it is given
// (a body's segment of a model's q, u or a vector laid out as u).  O(1).
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "appell/body.hpp"

namespace appell {

// the layout question, answered here once for the functions below: whether the body's q
// holds a quaternion after x̄ and its u an ω after v̄ (a rigid body's do, a particle's not)
inline bool has_rotation(const Body& b) {
  return b.rigid();
}

// the three entries at p (x̄, v̄ or ω)
inline Eigen::Map<Vec3> three_at(double* p) {
  return Eigen::Map<Vec3>(p);
}
inline Eigen::Map<const Vec3> three_at(const double* p) {
  return Eigen::Map<const Vec3>(p);
}

// the quaternion [w x y z] of a rigid body's q, after x̄
inline Quat body_quaternion(const double* q) {
  return Quat(q[3], q[4], q[5], q[6]);
}
inline void set_body_quaternion(const Quat& o, double* q) {
  q[3] = o.w(), q[4] = o.x(), q[5] = o.y(), q[6] = o.z();
}

// The body's state at (q, u): Q of the normalised quaternion (the flow keeps |q| = 1, this
// keeps round-off from leaking into Q); a particle's Q is I and its ω zero.
inline void read_body_coordinates(const Body& b, const double* q, const double* u, BodyState& s) {
  s.x = Vec3(q[0], q[1], q[2]);
  s.v = Vec3(u[0], u[1], u[2]);
  if (has_rotation(b)) {
    s.Q = body_quaternion(q).normalized().toRotationMatrix();
    s.w = Vec3(u[3], u[4], u[5]);
  } else {
    s.Q.setIdentity();
    s.w.setZero();
  }
}

// (q, u) of the body's state
inline void write_body_coordinates(const Body& b, const BodyState& s, double* q, double* u) {
  three_at(q) = s.x;
  three_at(u) = s.v;
  if (!has_rotation(b)) return;
  set_body_quaternion(Quat(s.Q), q);
  three_at(u + 3) = s.w;
}

// q̇ = N(q) u: dx̄/dt = v̄, and dq/dt = ½ (0, ω) ⊗ q with ω in the world (keeps |q|
// constant exactly)
inline void body_q_rate(const Body& b, const double* q, const double* u, double* qdot) {
  three_at(qdot) = three_at(u);
  if (!has_rotation(b)) return;
  const Quat qd = Quat(0.0, u[3], u[4], u[5]) * body_quaternion(q);
  set_body_quaternion(Quat(0.5 * qd.w(), 0.5 * qd.x(), 0.5 * qd.y(), 0.5 * qd.z()), qdot);
}

// |quaternion| = 1 (a zero one is left as it is)
inline void normalize_body_q(const Body& b, double* q) {
  if (!has_rotation(b)) return;
  Eigen::Map<Eigen::Vector4d> o(q + 3);
  const double n = o.norm();
  if (n > 0) o /= n;
}

// q ⊕ δ with δ laid out as u: x̄ += δv̄, Q ← exp(δθ×) Q (left multiplication: δθ is a
// world-frame rotation vector), normalised
inline void integrate_body_q(const Body& b, const double* delta, double* q) {
  three_at(q) += three_at(delta);
  if (!has_rotation(b)) return;
  const Quat o = (quat_from_rotation_vector(three_at(delta + 3)) * body_quaternion(q)).normalized();
  set_body_quaternion(o, q);
}

// y = M_b x, M_b written into M at (o, o), and x = M_b⁻¹ y for the body's block M_b = diag(m I, J)
// of the maximal mass matrix (J its world inertia; a particle's block is m I)
inline void body_mass_times(const Body& b, const Mat3& J, const double* x, double* y) {
  three_at(y) = b.mass * three_at(x);
  if (has_rotation(b)) three_at(y + 3) = J * three_at(x + 3);
}
inline void body_mass_block(const Body& b, const Mat3& J, int o, Eigen::MatrixXd& M) {
  M.block<3, 3>(o, o) = b.mass * Mat3::Identity();
  if (has_rotation(b)) M.block<3, 3>(o + 3, o + 3) = J;
}
inline void body_mass_solve(const Body& b, const Mat3& J, const double* y, double* x) {
  three_at(x) = three_at(y) / b.mass;
  if (has_rotation(b)) three_at(x + 3) = J.ldlt().solve(Vec3(three_at(y + 3)));
}
// τᵀ J⁻¹ τ, the moment's share of Fᵀ M_b⁻¹ F (zero for a particle, whose J is not
// inverted: its moments are zero)
inline double body_inverse_turn_norm2(const Body& b, const Mat3& J, const Vec3& tau) {
  return has_rotation(b) ? tau.dot(J.ldlt().solve(tau)) : 0.0;
}

}  // namespace appell
