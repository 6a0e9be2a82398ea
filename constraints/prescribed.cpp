// Prescribed motion as a constraint (appell/prescribed.hpp).
#include "appell/prescribed.hpp"

#include <algorithm>
#include <stdexcept>

#include "appell/joint_state.hpp"

namespace appell {

namespace {

void require_time_only(const Expression& f) {
  for (const ExprVariable& v : f.variables())
    if (v.kind != ExprVariable::Kind::Time)
      throw ExpressionError(v.column,
                            "prescribed motion is a function of t only, got '" + v.text + "'");
}

const Joint& checked(const std::shared_ptr<const Joint>& j) {
  if (!j) throw std::invalid_argument("PrescribedJointConstraint: no joint");
  return *j;
}

}  // namespace

PrescribedJointConstraint::PrescribedJointConstraint(std::string name,
                                                     std::shared_ptr<const Joint> joint,
                                                     int coordinate, Expression f)
    : Constraint(std::move(name), {checked(joint).parent(), checked(joint).child()}),
      joint_(std::move(joint)),
      k_(coordinate),
      f_(std::move(f)) {
  const JointType& t = joint_->joint_type();
  if (t.quaternion() >= 0)
    throw std::invalid_argument("joint '" + joint_->name() + "' (" + t.name() +
                                ") has quaternion coordinates; prescribe a body point instead");
  if (k_ < 0 || k_ >= t.nq())
    throw std::invalid_argument("joint '" + joint_->name() + "' has " + std::to_string(t.nq()) +
                                " coordinates, got coordinate " + std::to_string(k_));
  require_time_only(f_);
  periodic_ = periodic_coordinates(t)[k_];
}

void PrescribedJointConstraint::evaluate(const StateView& in, const RowSpan& out) const {
  const JointRateRow row = joint_rate_row(*joint_, in, k_);
  if (slot(joint_->parent()) >= 0) out.term(0, slot(joint_->parent())) = row.parent;
  if (slot(joint_->child()) >= 0) out.term(0, slot(joint_->child())) = row.child;
  double q[8], u[6];
  joint_coordinates(*joint_, in, q, u);
  // f, ḟ = f₁ and f̈ = 2 f₂ (expression.hpp E2, E3)
  const Expression::Jet f = f_.evaluate(in, nullptr, true);
  const double e = q[k_] - f.value;
  out.position[0] = periodic_ ? wrap_angle(e) : e;
  out.velocity[0] = u[k_] - f.d1;
  out.b[0] = 2.0 * f.d2 - row.bias;  // u̇_k = f̈ (G2)
}

PrescribedPointConstraint::PrescribedPointConstraint(std::string name, int body,
                                                     const BodyState& body0, const Vec3& point,
                                                     std::array<Expression, 3> p)
    : Constraint(std::move(name), {body}),
      body_(body),
      X_(body0.Q.transpose() * (point - body0.x)),
      p_(std::move(p)) {
  for (const Expression& e : p_) require_time_only(e);
}

size_t PrescribedPointConstraint::scratch_size() const {
  return std::max(
      {p_[0].scratch_size(false), p_[1].scratch_size(false), p_[2].scratch_size(false)});
}

void PrescribedPointConstraint::evaluate(const StateView& in, const RowSpan& out) const {
  const BodyState& B = in.body(body_);
  const Vec3 r = B.offset(X_);
  const Vec3 x = B.x + r, v = B.point_velocity(X_);
  const Vec3 centripetal = B.w.cross(B.w.cross(r));
  for (int i = 0; i < 3; ++i) {
    // the row of the point's i-th world coordinate (C2 with f = e_i, h = 0)
    const Vec3 e = Vec3::Unit(i);
    out.term(i, 0).force = e;
    out.term(i, 0).moment = r.cross(e);
    const Expression::Jet p = p_[i].evaluate(in, nullptr, true);
    out.position[i] = x(i) - p.value;
    out.velocity[i] = v(i) - p.d1;
    out.b[i] = 2.0 * p.d2 - centripetal(i);
  }
}

}  // namespace appell
