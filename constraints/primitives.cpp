#include "appell/primitives.hpp"

#include "constraints/kernels.hpp"

namespace appell {

// body-frame coordinates of a world point / direction given at t = 0
static Vec3 material_point(const BodyState& s0, const Vec3& p) {
  return s0.Q.transpose() * (p - s0.x);
}
static Vec3 material_direction(const BodyState& s0, const Vec3& n) {
  return s0.Q.transpose() * n;
}

DistanceConstraint::DistanceConstraint(std::string name, int a, int b, const BodyState& a0,
                                       const BodyState& b0, const Vec3& pa, const Vec3& pb,
                                       double length)
    : Constraint(std::move(name), {a, b}),
      a_{a, slot(a)},
      b_{b, slot(b)},
      Xa_(material_point(a0, pa)),
      Xb_(material_point(b0, pb)),
      length_(length) {}

void DistanceConstraint::evaluate(const StateView& in, const RowSpan& out) const {
  distance_row(in, a_, b_, Xa_, Xb_, length_, out, 0);
}

PointOnPlaneConstraint::PointOnPlaneConstraint(std::string name, int body, const BodyState& body0,
                                               const Vec3& point, const Vec3& normal)
    : Constraint(std::move(name), {body}),
      body_{body, slot(body)},
      X_(material_point(body0, point)),
      p0_(point),
      n_(normal.normalized()) {}

void PointOnPlaneConstraint::evaluate(const StateView& in, const RowSpan& out) const {
  plane_row(in, End{}, body_, p0_, X_, n_, 0.0, out, 0);
}

PerpendicularConstraint::PerpendicularConstraint(std::string name, int a, int b,
                                                 const BodyState& a0, const BodyState& b0,
                                                 const Vec3& axis_a, const Vec3& axis_b)
    : Constraint(std::move(name), {a, b}),
      a_{a, slot(a)},
      b_{b, slot(b)},
      Na_(material_direction(a0, axis_a.normalized())),
      Nb_(material_direction(b0, axis_b.normalized())) {}

void PerpendicularConstraint::evaluate(const StateView& in, const RowSpan& out) const {
  angle_row(in, a_, b_, Na_, Nb_, 0.0, out, 0);
}

LinearConstraint::LinearConstraint(std::string name, int body, const BodyState& body0,
                                   const Vec3& point, const Vec3& f, const Vec3& h, double e,
                                   Frame frame)
    : Constraint(std::move(name), {body}),
      body_{body, slot(body)},
      X_(material_point(body0, point)),
      f_(f),
      h_(h),
      e_(e),
      frame_(frame) {}

void LinearConstraint::evaluate(const StateView& in, const RowSpan& out) const {
  const BodyState& s = in.body(body_.body);
  const bool body_frame = frame_ == Frame::Body;
  const Vec3 f = body_frame ? Vec3(s.Q * f_) : f_;
  const Vec3 h = body_frame ? Vec3(s.Q * h_) : h_;
  const Vec3 r = s.offset(X_);
  const Vec3 vA = s.v + s.w.cross(r);
  double kappa = add_point_term(out, 0, body_, s, r, f);
  if (body_.slot >= 0) out.term(0, body_.slot).ang += h;
  if (body_frame) kappa += s.w.cross(f).dot(vA);
  out.b[0] = -kappa;
  out.velocity[0] = f.dot(vA) + h.dot(s.w) + e_;
  out.position[0] = 0.0;
}

}  // namespace appell
