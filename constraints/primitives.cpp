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

bool DistanceConstraint::evaluate_tangent(const StateView& in, const StateView& tangent,
                                          const RowSpan& out, const RowSpan& dout) const {
  return rows_along(in, tangent, 1, out, dout, [&](const auto& view, const auto& span) {
    distance_row(view, a_, b_, Xa_, Xb_, length_, span, 0);
  });
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

bool PointOnPlaneConstraint::evaluate_tangent(const StateView& in, const StateView& tangent,
                                              const RowSpan& out, const RowSpan& dout) const {
  return rows_along(in, tangent, 1, out, dout, [&](const auto& view, const auto& span) {
    plane_row(view, End{}, body_, p0_, X_, n_, 0.0, span, 0);
  });
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

bool PerpendicularConstraint::evaluate_tangent(const StateView& in, const StateView& tangent,
                                               const RowSpan& out, const RowSpan& dout) const {
  return rows_along(in, tangent, 1, out, dout, [&](const auto& view, const auto& span) {
    angle_row(view, a_, b_, Na_, Nb_, 0.0, span, 0);
  });
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

namespace {

// the row f · v_A + h · ω + e of LinearConstraint, f and h fixed in the body when body_frame
template <class View, class Span>
void linear_row(const View& in, const Span& out, End e_body, const Vec3& X, const Vec3& f0,
                const Vec3& h0, double e, bool body_frame) {
  using V = Eigen::Matrix<ScalarOf<View>, 3, 1>;
  const auto& s = in.body(e_body.body);
  const V f = body_frame ? V(s.Q * f0) : V(f0);
  const V h = body_frame ? V(s.Q * h0) : V(h0);
  const V r = s.offset(X);
  const V vA = s.v + s.w.cross(r);
  auto kappa = add_point_term(out, 0, e_body, s, r, f);
  if (e_body.slot >= 0) out.term(0, e_body.slot).moment += h;
  if (body_frame) kappa += s.w.cross(f).dot(vA);
  out.b[0] = -kappa;
  out.velocity[0] = f.dot(vA) + h.dot(s.w) + e;
  out.position[0] = 0.0;
}

}  // namespace

void LinearConstraint::evaluate(const StateView& in, const RowSpan& out) const {
  linear_row(in, out, body_, X_, f_, h_, e_, frame_ == Frame::Body);
}

bool LinearConstraint::evaluate_tangent(const StateView& in, const StateView& tangent,
                                        const RowSpan& out, const RowSpan& dout) const {
  return rows_along(in, tangent, 1, out, dout, [&](const auto& view, const auto& span) {
    linear_row(view, span, body_, X_, f_, h_, e_, frame_ == Frame::Body);
  });
}

}  // namespace appell
