// Small helpers shared by the joint types (internal to constraints/joints/).
#pragma once

#include <cmath>

#include "appell/joint_type.hpp"
#include "constraints/kernels.hpp"
#include "constraints/row_jet.hpp"

namespace appell {

// A joint type whose rows are one template over the state view and the span,
//   template <class View, class Span> void write_rows(in, P, C, f, out) const,
// which gives both evaluate_rows() and, on jets, evaluate_rows_tangent().
template <class T>
class JointRows : public JointType {
 public:
  void evaluate_rows(const StateView& in, End P, End C, const JointFrames& f,
                     const RowSpan& out) const override {
    static_cast<const T*>(this)->write_rows(in, P, C, f, out);
  }
  bool evaluate_rows_tangent(const StateView& in, const StateView& tangent, End P, End C,
                             const JointFrames& f, const RowSpan& out,
                             const RowSpan& dout) const override {
    return rows_along(in, tangent, rows(), out, dout, [&](const auto& view, const auto& span) {
      static_cast<const T*>(this)->write_rows(view, P, C, f, span);
    });
  }
  // and  template <class S, class Motion> void write_motion(const S* q, const S* u, Motion&)
  // const,  which gives motion() and, on jets, motion_tangent()
  void motion(const double* q, const double* u, JointMotion& m) const override {
    static_cast<const T*>(this)->write_motion(q, u, m);
  }
  bool motion_tangent(const double* q, const double* u, const double* dq, const double* du,
                      JointMotion& m, JointMotion& dm) const override {
    Jet jq[8], ju[8];
    for (int k = 0; k < nq(); ++k) jq[k] = Jet(q[k], {dq[k]});
    for (int k = 0; k < nu(); ++k) ju[k] = Jet(u[k], {du[k]});
    JetMotion jm;
    static_cast<const T*>(this)->write_motion(jq, ju, jm);
    m.R = value(jm.R), m.d = value(jm.d), m.S = value(jm.S), m.c = value(jm.c);
    dm.R = slope(jm.R), dm.d = slope(jm.d), dm.S = slope(jm.S), dm.c = slope(jm.c);
    return true;
  }
};

}  // namespace appell

namespace appell::joint_math {

// rotations about the frame's axes by θ (S: double, or Jet for motion_tangent())
template <class S>
Eigen::Matrix<S, 3, 3> rot_x(const S& t) {
  using std::cos, std::sin;
  const S c = cos(t), s = sin(t);
  Eigen::Matrix<S, 3, 3> R;
  R << S(1), S(0), S(0), S(0), c, -s, S(0), s, c;
  return R;
}
template <class S>
Eigen::Matrix<S, 3, 3> rot_y(const S& t) {
  using std::cos, std::sin;
  const S c = cos(t), s = sin(t);
  Eigen::Matrix<S, 3, 3> R;
  R << c, S(0), s, S(0), S(1), S(0), -s, S(0), c;
  return R;
}
template <class S>
Eigen::Matrix<S, 3, 3> rot_z(const S& t) {
  using std::cos, std::sin;
  const S c = cos(t), s = sin(t);
  Eigen::Matrix<S, 3, 3> R;
  R << c, -s, S(0), s, c, S(0), S(0), S(0), S(1);
  return R;
}

// the angle θ of R = rot_z(θ)
inline double angle_z(const Mat3& R) {
  return std::atan2(R(1, 0), R(0, 0));
}

// the rotation of the quaternion [w x y z] at q (normalised on the fly)
inline Mat3 quat_rotation(const double* q) {
  return Quat(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix();
}
inline Mat3J quat_rotation(const Jet* q) {
  const Jet n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  const Jet w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
  Mat3J R;
  R << 1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y),
      2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x),
      2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y);
  return R;
}
inline void quat_store(const Mat3& R, double* q) {
  const Quat o(R);
  q[0] = o.w(), q[1] = o.x(), q[2] = o.y(), q[3] = o.z();
}
// ½ (0, ω) ⊗ q: the rate of a quaternion whose frame turns with ω (ω in the left frame)
inline void quat_rate(const double* q, const double* w, double* out) {
  const Quat r = Quat(0.0, w[0], w[1], w[2]) * Quat(q[0], q[1], q[2], q[3]);
  out[0] = 0.5 * r.w(), out[1] = 0.5 * r.x(), out[2] = 0.5 * r.y(), out[3] = 0.5 * r.z();
}
// |q|, without overflow or underflow for any finite q ([1e154]*4 squares to infinity)
inline double quat_norm(const double* q) {
  const double n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  if (std::isnormal(n2) && n2 < 1e300) return std::sqrt(n2);  // the usual case
  return Eigen::Map<const Eigen::Vector4d>(q).stableNorm();
}
inline void quat_normalize(double* q) {
  const double n = quat_norm(q);
  if (n > 0 && std::isfinite(n))
    for (int k = 0; k < 4; ++k) q[k] /= n;
}

// S's column k: a slide along e (lin = e) or a turn about e through the anchor (ang = e)
template <class Motion, class V>
void slide(Motion& m, int k, const V& e) {
  m.S.col(k).template head<3>() = e;
  m.S.col(k).template tail<3>().setZero();
}
template <class Motion, class V>
void turn(Motion& m, int k, const V& e) {
  m.S.col(k).template head<3>().setZero();
  m.S.col(k).template tail<3>() = e;
}

// Closed-form multipliers of the row kernels (JointType::multipliers, kernels.hpp) for a
// wrench (f, m about the child's anchor) the rows can carry.  point_coincident's lin are
// the world axes (λ = f), rotation_lock's ang too (λ = m); a plane row's lin is its unit
// normal n, and the planes of one joint are orthogonal (λ = n · f); the angle rows
// k = c × n carry the moment: λ solves the normal equations of m = Σ λ_j k_j.    (K1–K4)
inline void point_multipliers(const Vec3& f, double* l) {
  l[0] = f.x(), l[1] = f.y(), l[2] = f.z();
}
inline double plane_multiplier(const BodyState& P, const Vec3& N, const Vec3& f) {
  return (P.Q * N).dot(f);
}
// k of the angle row between direction Na of P and Cb of C
inline Vec3 angle_axis(const BodyState& P, const BodyState& C, const Vec3& Na, const Vec3& Cb) {
  return (C.Q * Cb).cross(P.Q * Na);
}
inline void angle_multipliers(const Vec3& k1, const Vec3& k2, const Vec3& m, double* l) {
  const double a = k1.dot(k1), b = k1.dot(k2), c = k2.dot(k2);
  const double r1 = k1.dot(m), r2 = k2.dot(m), det = a * c - b * b;
  l[0] = (c * r1 - b * r2) / det;
  l[1] = (a * r2 - b * r1) / det;
}
// the pair angle(x_P ⊥ z_C), angle(y_P ⊥ z_C) that keeps the axes z aligned
inline void axis_pair_multipliers(const BodyState& P, const BodyState& C, const JointFrames& fr,
                                  const Vec3& m, double* l) {
  const Vec3 c = C.Q * fr.E_C.col(2);
  angle_multipliers(c.cross(P.Q * fr.E_P.col(0)), c.cross(P.Q * fr.E_P.col(1)), m, l);
}

}  // namespace appell::joint_math
