// Helical (screw) joint: a turn θ about the joint axis z through the anchor with the slide
// p θ along it; the pitch p (metres per radian, negative: left-handed) is the scene's
// "pitch".  S must have a unit column (joint_state.hpp reads u as Sᵀ V), so the coordinate
// is the length along the unit screw twist, s = θ √(1 + p²), and u = ṡ:
//   c = 1/√(1 + p²),  θ = c s,  R = rot_z(θ),  d = p θ e_z,  S = c (p e_z; e_z),  Ṡ u = 0.
//   rows (5): the cylindrical's four, angle(x_P ⊥ z_C) + angle(y_P ⊥ z_C) + plane(x_P) +
//   plane(y_P) at the anchor, and the screw row g = d_z − p θ, where d_z is plane(z_P)'s
//   value and θ = atan2(b, a) the turn of the child's x axis c = Q_C E_C e_x between the
//   parent's n₁ = Q_P E_P e_x and n₂ = Q_P E_P e_y (a = n₁·c, b = n₂·c), taken in the turn
//   nearest d_z / p so that g is smooth through every winding.  Everywhere, not only on the
//   manifold, with Δω = ω_C − ω_P, ȧ = Δω·(c × n₁), ḃ = Δω·(c × n₂) (K3):
//     θ̇ = k·Δω,  k = c × m / r²,  m = a n₂ − b n₁,  r² = a² + b²,
//     κ_θ = k̇·Δω,  k̇ = (ċ × m + c × ṁ − 2 (a ȧ + b ḃ) k) / r²,
//     ċ = ω_C × c,  ṁ = ȧ n₂ − ḃ n₁ + ω_P × m,
//   so the row adds −p k to ang_C, p k to ang_P, −p k·Δω to π and p κ_θ to b = −κ.  On the
//   manifold (c ⊥ e_z) k is the axis e = Q_P E_P e_z.
// Run from the child, the motion is R(θ)ᵀ = rot_z(−θ), −R(θ)ᵀ d = −p θ e_z: the same
// screw at −s, on the same axes.
#include <cmath>
#include <stdexcept>
#include <string>

#include "constraints/joints/common.hpp"

namespace appell {

namespace {

class Helical final : public JointRows<Helical> {
 public:
  explicit Helical(double pitch) : p_(pitch), c_(1.0 / std::sqrt(1.0 + pitch * pitch)) {}

  const char* name() const override { return "helical"; }
  int nq() const override { return 1; }
  int nu() const override { return 1; }
  JointSyntax syntax() const override { return {true, 1, true, "pitch"}; }
  // a screw of pitch 0 is a revolute joint whose slide is locked: then s is an angle
  bool angle(int) const override { return p_ == 0.0; }
  std::shared_ptr<const JointType> with_parameter(double pitch) const override {
    if (!std::isfinite(pitch))
      throw std::invalid_argument("the pitch of a helical joint must be finite");
    return std::make_shared<const Helical>(pitch);
  }
  template <class S, class Motion>
  void write_motion(const S* q, const S*, Motion& m) const {
    using V = Eigen::Matrix<S, 3, 1>;
    const S theta = c_ * q[0];
    m.R = joint_math::rot_z(theta);
    m.d = V(S(0), S(0), p_ * theta);
    m.S.col(0) << S(0), S(0), S(c_ * p_), S(0), S(0), S(c_);
    m.c.setZero();
  }

  void coordinates(const Mat3& R, const Vec3& d, double* q) const override {
    q[0] = turns_near(joint_math::angle_z(R), d.z()) / c_;
  }
  int rows() const override { return 5; }
  template <class View, class Span>
  void write_rows(const View& in, End P, End C, const JointFrames& f, const Span& out) const {
    int row = angle_row(in, P, C, f.E_P.col(0), f.E_C.col(2), 0.0, out, 0);
    row = angle_row(in, P, C, f.E_P.col(1), f.E_C.col(2), 0.0, out, row);
    row = plane_row(in, P, C, f.X_P, f.X_C, f.E_P.col(0), 0.0, out, row);
    row = plane_row(in, P, C, f.X_P, f.X_C, f.E_P.col(1), 0.0, out, row);
    // the screw row: plane(z_P) gives d_z, then − p θ
    plane_row(in, P, C, f.X_P, f.X_C, f.E_P.col(2), 0.0, out, row);
    using S = ScalarOf<View>;
    using V = Eigen::Matrix<S, 3, 1>;
    const auto& sp = in.body(P.body);
    const auto& sc = in.body(C.body);
    const V n1 = sp.Q * f.E_P.col(0), n2 = sp.Q * f.E_P.col(1), c = sc.Q * f.E_C.col(0);
    const V dw = sc.w - sp.w;
    const S a = n1.dot(c), b = n2.dot(c), r2 = a * a + b * b;
    const S adot = dw.dot(c.cross(n1)), bdot = dw.dot(c.cross(n2));
    const V m = a * n2 - b * n1;
    const V k = c.cross(m) / r2;
    const V mdot = adot * n2 - bdot * n1 + sp.w.cross(m);
    const V kdot = (sc.w.cross(c).cross(m) + c.cross(mdot) - 2.0 * (a * adot + b * bdot) * k) / r2;
    // θ's value only: positions are not differentiated
    const double theta = turns_near(std::atan2(value(b), value(a)), value(out.position[row]));
    out.position[row] -= p_ * theta;
    out.velocity[row] -= p_ * k.dot(dw);
    out.b[row] += p_ * kdot.dot(dw);
    if (C.slot >= 0) out.term(row, C.slot).moment -= p_ * k;
    if (P.slot >= 0) out.term(row, P.slot).moment += p_ * k;
  }
  // the child's terms are: angle rows k₁, k₂; plane rows (n_x; r_C × n_x), (n_y; r_C × n_y);
  // the screw row (n_z; r_C × n_z − p n_z).  So λ₃ = n_x·f, λ₄ = n_y·f, λ₅ = n_z·f, and
  // λ₁ k₁ + λ₂ k₂ = m + p λ₅ n_z, which is ⊥ n_z for a transmitted wrench (its power
  // c (p f + m)·n_z on the motion is zero).
  void multipliers(const BodyState& P, const BodyState& C, const JointFrames& fr, const Vec3& f,
                   const Vec3& m, double* l) const override {
    l[2] = joint_math::plane_multiplier(P, fr.E_P.col(0), f);
    l[3] = joint_math::plane_multiplier(P, fr.E_P.col(1), f);
    l[4] = joint_math::plane_multiplier(P, fr.E_P.col(2), f);
    joint_math::axis_pair_multipliers(P, C, fr, m + p_ * l[4] * (P.Q * fr.E_P.col(2)), l);
  }

 private:
  // θ, the angle of R in (−π, π], moved by whole turns to the one nearest d_z / p (the
  // slide counts the turns the rotation cannot)
  double turns_near(double theta, double dz) const {
    if (p_ == 0.0) return theta;
    return theta + 2.0 * M_PI * std::round((dz / p_ - theta) / (2.0 * M_PI));
  }

  double p_;  // pitch, metres per radian
  double c_;  // 1/√(1 + p²)
};

}  // namespace

// the registry's instance has pitch 0.1 m/rad; a scene's joint makes its own (with_parameter)
const JointType& helical_joint() {
  static const Helical type(0.1);
  return type;
}

}  // namespace appell
