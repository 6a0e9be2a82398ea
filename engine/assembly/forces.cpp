#include "appell/forces.hpp"

namespace appell {

SpringForce::SpringForce(int a, int b, const BodyState& a0, const BodyState& b0, const Vec3& pa,
                         const Vec3& pb, double stiffness, double rest_length, double damping)
    : a_(a),
      b_(b),
      Xa_(a0.Q.transpose() * (pa - a0.x)),
      Xb_(b0.Q.transpose() * (pb - b0.x)),
      k_(stiffness),
      l0_(rest_length),
      c_(damping) {}

void SpringForce::apply(const StateView& s, SpatialForce* out) const {
  const BodyState& sa = s.body(a_);
  const BodyState& sb = s.body(b_);
  const Vec3 ra = sa.offset(Xa_), rb = sb.offset(Xb_);
  const Vec3 d = (sb.x + rb) - (sa.x + ra);
  const double l = d.norm();
  if (l == 0.0) return;  // direction undefined; the force is zero by symmetry
  const Vec3 e = d / l;
  const double ldot = e.dot(sb.point_velocity(Xb_) - sa.point_velocity(Xa_));
  const Vec3 f = -(k_ * (l - l0_) + c_ * ldot) * e;  // on B
  if (b_ != kWorld) out[b_].add_at(rb, f);
  if (a_ != kWorld) out[a_].add_at(ra, -f);
}

double SpringForce::potential(const StateView& s) const {
  const Vec3 d = s.body(b_).point(Xb_) - s.body(a_).point(Xa_);
  const double dl = d.norm() - l0_;
  return 0.5 * k_ * dl * dl;
}

PointForce::PointForce(int body, const BodyState& body0, const Vec3& point, const Vec3& vector)
    : body_(body), X_(body0.Q.transpose() * (point - body0.x)), f_(vector) {}

void PointForce::apply(const StateView& s, SpatialForce* out) const {
  out[body_].add_at(s.body(body_).offset(X_), f_);
}

void DampingForce::apply(const StateView& s, SpatialForce* out) const {
  const BodyState& b = s.body(body_);
  out[body_].force -= linear_ * b.v;
  out[body_].moment -= angular_ * b.w;
}

}  // namespace appell
