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

void RollingConstraint::contact(const BodyState& s, Vec3& rc, Vec3& rc_dot) const {
  if (shape_ == Shape::Sphere) {
    rc = -r_ * n_;
    rc_dot.setZero();
    return;
  }
  // (R1)
  const Vec3 e3 = s.Q.col(2);
  const Vec3 e3_dot = s.w.cross(e3);
  const double ne = n_.dot(e3);
  const Vec3 n_perp = n_ - ne * e3;
  const double len = n_perp.norm();
  const Vec3 c = -n_perp / len;
  const Vec3 n_perp_dot = -n_.dot(e3_dot) * e3 - ne * e3_dot;
  const Vec3 c_dot = -(n_perp_dot - c * c.dot(n_perp_dot)) / len;
  rc = r_ * c;
  rc_dot = r_ * c_dot;
}

void RollingConstraint::evaluate(const StateView& in, const RowSpan& out) const {
  const BodyState& s = in.body(body_.body);
  Vec3 rc, rc_dot;
  contact(s, rc, rc_dot);
  const Vec3 vc = s.v + s.w.cross(rc);
  const Vec3 w_rc_dot = s.w.cross(rc_dot);
  const Vec3* E[3] = {&n_, &t1_, &t2_};
  for (int k = 0; k < 3; ++k) {  // (R2)
    RowTerm& t = out.term(k, body_.slot);
    t.lin = *E[k];
    t.ang = rc.cross(*E[k]);
    out.b[k] = -E[k]->dot(w_rc_dot);
    out.velocity[k] = E[k]->dot(vc);
    out.position[k] = 0.0;
  }
  out.position[0] = n_.dot(s.x + rc) - h0_;
}

KnifeEdgeConstraint::KnifeEdgeConstraint(std::string name, int body, const BodyState& body0,
                                         const Vec3& point, const Vec3& direction)
    : Constraint(std::move(name), {body}),
      body_{body, slot(body)},
      X_(body0.Q.transpose() * (point - body0.x)),
      D_(body0.Q.transpose() * direction.normalized()) {}

void KnifeEdgeConstraint::evaluate(const StateView& in, const RowSpan& out) const {
  const BodyState& s = in.body(body_.body);
  const Vec3 d = s.Q * D_;
  const Vec3 r = s.offset(X_);
  const Vec3 vA = s.v + s.w.cross(r);
  // (N1)
  const double kappa = add_point_term(out, 0, body_, s, r, d) + s.w.cross(d).dot(vA);
  out.b[0] = -kappa;
  out.velocity[0] = d.dot(vA);
  out.position[0] = 0.0;
}

}  // namespace appell
