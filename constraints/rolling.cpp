#include "appell/rolling.hpp"

#include <cmath>
#include <stdexcept>

#include "constraints/kernels.hpp"

namespace appell {

RollingConstraint::RollingConstraint(std::string name, int body, const BodyState& body0,
                                     double radius, Shape shape, const Vec3& normal)
    : Constraint(std::move(name), {body}),
      body_{body, slot(body)},
      r_(radius),
      shape_(shape),
      n_(normal.normalized()) {
  perpendicular_basis(n_, t1_, t2_);
  if (shape_ == Shape::Disk && n_.cross(body0.Q.col(2)).norm() < 1e-9)
    throw std::invalid_argument(
        "RollingConstraint: the disk lies flat on the plane; its contact point is undefined");
  Vec3 rc, rc_dot;
  contact(body0, rc, rc_dot);
  h0_ = n_.dot(body0.x + rc);  // the plane through the contact point at t = 0
}

namespace {

// the contact offset r_C and its rate of a sphere (radius r) or a disk (radius r about its
// z axis) on the plane of normal n                                                  (R1)
template <class Body, class V>
void contact_point(const Body& s, double r, bool disk, const Vec3& n, V& rc, V& rc_dot) {
  if (!disk) {
    rc = V(-r * n);
    rc_dot.setZero();
    return;
  }
  const V e3 = s.Q.col(2);
  const V e3_dot = s.w.cross(e3);
  const auto ne = e3.dot(n);
  const V n_perp = n - ne * e3;
  const auto len = n_perp.norm();
  const V c = -n_perp / len;
  const V n_perp_dot = -e3_dot.dot(n) * e3 - ne * e3_dot;
  const V c_dot = -(n_perp_dot - c * c.dot(n_perp_dot)) / len;
  rc = r * c;
  rc_dot = r * c_dot;
}

}  // namespace

void RollingConstraint::contact(const BodyState& s, Vec3& rc, Vec3& rc_dot) const {
  contact_point(s, r_, shape_ == Shape::Disk, n_, rc, rc_dot);
}

template <class View, class Span>
void RollingConstraint::write_rows(const View& in, const Span& out) const {
  using V = Eigen::Matrix<ScalarOf<View>, 3, 1>;
  const auto& s = in.body(body_.body);
  V rc, rc_dot;
  contact_point(s, r_, shape_ == Shape::Disk, n_, rc, rc_dot);
  const V vc = s.v + s.w.cross(rc);
  const V w_rc_dot = s.w.cross(rc_dot);
  const Vec3* E[3] = {&n_, &t1_, &t2_};
  for (int k = 0; k < 3; ++k) {  // (R2)
    auto& t = out.term(k, body_.slot);
    t.force = *E[k];
    t.moment = rc.cross(V(*E[k]));
    out.b[k] = -w_rc_dot.dot(*E[k]);
    out.velocity[k] = vc.dot(*E[k]);
    out.position[k] = 0.0;
  }
  out.position[0] = (s.x + rc).dot(n_) - h0_;
}

void RollingConstraint::evaluate(const StateView& in, const RowSpan& out) const {
  write_rows(in, out);
}

bool RollingConstraint::evaluate_tangent(const StateView& in, const StateView& tangent,
                                         const RowSpan& out, const RowSpan& dout) const {
  return rows_along(in, tangent, 3, out, dout,
                    [&](const auto& view, const auto& span) { write_rows(view, span); });
}

KnifeEdgeConstraint::KnifeEdgeConstraint(std::string name, int body, const BodyState& body0,
                                         const Vec3& point, const Vec3& direction)
    : Constraint(std::move(name), {body}),
      body_{body, slot(body)},
      X_(body0.Q.transpose() * (point - body0.x)),
      D_(body0.Q.transpose() * direction.normalized()) {}

template <class View, class Span>
void KnifeEdgeConstraint::write_rows(const View& in, const Span& out) const {
  using V = Eigen::Matrix<ScalarOf<View>, 3, 1>;
  const auto& s = in.body(body_.body);
  const V d = s.Q * D_;
  const V r = s.offset(X_);
  const V vA = s.v + s.w.cross(r);
  // (N1)
  const auto kappa = add_point_term(out, 0, body_, s, r, d) + s.w.cross(d).dot(vA);
  out.b[0] = -kappa;
  out.velocity[0] = d.dot(vA);
  out.position[0] = 0.0;
}

void KnifeEdgeConstraint::evaluate(const StateView& in, const RowSpan& out) const {
  write_rows(in, out);
}

bool KnifeEdgeConstraint::evaluate_tangent(const StateView& in, const StateView& tangent,
                                           const RowSpan& out, const RowSpan& dout) const {
  return rows_along(in, tangent, 1, out, dout,
                    [&](const auto& view, const auto& span) { write_rows(view, span); });
}

}  // namespace appell
