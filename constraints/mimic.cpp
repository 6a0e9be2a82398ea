#include "appell/mimic.hpp"

#include <cmath>
#include <stdexcept>

#include "constraints/kernels.hpp"

namespace appell {

namespace {

// a turn (else a slide: the joint types a mimic takes are the mimicable ones)
bool turns(const Joint& j) {
  return j.joint_type().shape() == JointShape::Turn;
}

template <class S>
struct Rates {
  S position = 0.0, velocity = 0.0, kappa = 0.0;
};

// one joint's share s q of (M1): its terms in the row, and q, q̇ and κ (the part of q̈
// without accelerations), each times s
template <class View, class Span>
Rates<ScalarOf<View>> add_joint(const Joint& j, double s, const View& in, const Span& out,
                                const Constraint& c) {
  using V = Eigen::Matrix<ScalarOf<View>, 3, 1>;
  const End P{j.parent(), c.slot(j.parent())}, C{j.child(), c.slot(j.child())};
  const auto& sp = in.body(P.body);
  const auto& sc = in.body(C.body);
  const JointFrames& f = j.frames();
  const V e = sp.Q * f.E_P.col(2);  // the axis, fixed in P
  Rates<ScalarOf<View>> r;
  if (turns(j)) {
    // the angle's value only: positions are not differentiated
    const Mat3 R = (value(sp.Q) * f.E_P).transpose() * value(sc.Q) * f.E_C;
    const V dw = sc.w - sp.w;
    r.position = s * std::atan2(R(1, 0), R(0, 0));
    r.velocity = s * e.dot(dw);
    r.kappa = s * sp.w.cross(e).dot(dw);  // d/dt e = ω_P × e
    if (C.slot >= 0) out.term(0, C.slot).moment += s * e;
    if (P.slot >= 0) out.term(0, P.slot).moment -= s * e;
    return r;
  }
  // the slide: the plane row (K2) of the child's anchor along e
  const V rp = sp.offset(f.X_P), rc = sc.offset(f.X_C);
  const V d = (sc.x + rc) - (sp.x + rp);
  const V dv = (sc.v + sc.w.cross(rc)) - (sp.v + sp.w.cross(rp));
  const V we = sp.w.cross(e);
  r.kappa =
      add_point_term(out, 0, C, sc, rc, V(s * e)) + add_point_term(out, 0, P, sp, rp, V(-s * e));
  r.kappa += s * (2.0 * dv.dot(we) + d.dot(sp.w.cross(we)));
  if (P.slot >= 0) out.term(0, P.slot).moment += s * e.cross(d);
  r.position = s * d.dot(e);
  r.velocity = s * (dv.dot(e) + d.dot(we));
  return r;
}

}  // namespace

MimicConstraint::MimicConstraint(std::string name, std::shared_ptr<const Joint> follower,
                                 std::shared_ptr<const Joint> leader, double multiplier,
                                 double offset)
    : Constraint(std::move(name),
                 {follower->parent(), follower->child(), leader->parent(), leader->child()}),
      follower_(std::move(follower)),
      leader_(std::move(leader)),
      multiplier_(multiplier),
      offset_(offset) {
  for (const Joint* j : {follower_.get(), leader_.get()}) {
    if (!j->joint_type().mimicable())
      throw std::invalid_argument("MimicConstraint: joint '" + j->name() + "' is " +
                                  j->joint_type().name() +
                                  "; a mimic joins revolute or prismatic joints");
  }
}

double MimicConstraint::coordinate(const Joint& j, const StateView& in) {
  const BodyState &sp = in.body(j.parent()), &sc = in.body(j.child());
  const JointFrames& f = j.frames();
  if (turns(j)) {
    const Mat3 R = (sp.Q * f.E_P).transpose() * sc.Q * f.E_C;
    return std::atan2(R(1, 0), R(0, 0));
  }
  return ((sc.x + sc.offset(f.X_C)) - (sp.x + sp.offset(f.X_P))).dot(sp.Q * f.E_P.col(2));
}

template <class View, class Span>
void MimicConstraint::write_rows(const View& in, const Span& out) const {
  const auto a = add_joint(*follower_, 1.0, in, out, *this);
  const auto b = add_joint(*leader_, -multiplier_, in, out, *this);
  out.position[0] = a.position + b.position - offset_;  // (M1)
  out.velocity[0] = a.velocity + b.velocity;
  out.b[0] = -(a.kappa + b.kappa);
}

void MimicConstraint::evaluate(const StateView& in, const RowSpan& out) const {
  write_rows(in, out);
}

bool MimicConstraint::evaluate_tangent(const StateView& in, const StateView& tangent,
                                       const RowSpan& out, const RowSpan& dout) const {
  return rows_along(in, tangent, 1, out, dout,
                    [&](const auto& view, const auto& span) { write_rows(view, span); });
}

}  // namespace appell
