// Prescribed motion as a constraint: Udwadia and Kalaba's "control force" [UK96 §4].
//
// A joint coordinate, or a material point of a body, follows a given function of time.
// The requirement is a holonomic, time-dependent constraint; the generalized-inverse
// equation [UK96 eq. 4] then yields the force that realises it, which is the force an
// ideal actuator must supply.  Its multiplier is that force itself:
//
//   joint coordinate k of joint j:   g = q_k − f(t),   π = u_k − ḟ(t),
//                                     b = f̈(t) − bias_k                (joint_state.hpp G2)
//     one row whose canonical terms are those of u_k (G2), so its multiplier λ is the
//     generalized force along u_k (N·m or N) that the joint's actuator applies: the
//     constraint force of Lagrange's prescription [HO21 eq. 15] is the wrench S_k λ (G1).
//   point X of body B:               g = x_A − p(t),   π = v_A − ṗ(t),
//                                     b = p̈(t) − ω × (ω × r_A)
//     three rows (world x, y, z); the multipliers are the world force at the point.
//
// f and p are expressions of t (and parameters); ḟ and f̈ are exact, from the Taylor
// coefficients of the expression's sweep (expression.hpp E2, E3: ḟ = f₁, f̈ = 2 f₂).
// Angle coordinates (joint_state.hpp periodic_coordinates) are compared modulo 2π.
// Joint coordinates need nq = nu (not the quaternions of spherical and free joints).
// Cost: one joint_rate_row() (O(1)) and one sweep of the expression per evaluation.
#pragma once

#include <array>
#include <memory>

#include "appell/expression.hpp"
#include "appell/joint.hpp"

namespace appell {

class PrescribedJointConstraint final : public Constraint {
 public:
  // Throws std::invalid_argument for a quaternion joint or a coordinate out of range, and
  // ExpressionError when `f` reads anything but t.
  PrescribedJointConstraint(std::string name, std::shared_ptr<const Joint> joint, int coordinate,
                            Expression f);
  std::string type() const override { return "prescribed"; }
  int rows() const override { return 1; }
  bool holonomic(int) const override { return true; }
  void evaluate(const StateView& in, const RowSpan& out) const override;
  size_t scratch_size() const override { return f_.scratch_size(false); }

  const Joint& joint() const { return *joint_; }
  int coordinate() const { return k_; }

 private:
  std::shared_ptr<const Joint> joint_;
  int k_;
  Expression f_;
  bool periodic_ = false;
};

class PrescribedPointConstraint final : public Constraint {
 public:
  // point: world frame at t = 0.  Throws ExpressionError when p reads anything but t.
  PrescribedPointConstraint(std::string name, int body, const BodyState& body0, const Vec3& point,
                            std::array<Expression, 3> p);
  std::string type() const override { return "prescribed"; }
  int rows() const override { return 3; }
  bool holonomic(int) const override { return true; }
  void evaluate(const StateView& in, const RowSpan& out) const override;
  size_t scratch_size() const override;

  int body() const { return body_; }
  const Vec3& point() const { return X_; }  // body frame

 private:
  int body_;
  Vec3 X_;  // the point, body frame
  std::array<Expression, 3> p_;
};

}  // namespace appell
