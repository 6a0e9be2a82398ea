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

struct Rates {
  double position = 0, velocity = 0, kappa = 0;
};

// one joint's share s q of (M1): its terms in the row, and q, q̇ and κ (the part of q̈
// without accelerations), each times s
Rates add_joint(const Joint& j, double s, const StateView& in, const RowSpan& out,
                const Constraint& c) {
  const End P{j.parent(), c.slot(j.parent())}, C{j.child(), c.slot(j.child())};
  const BodyState &sp = in.body(P.body), &sc = in.body(C.body);
  const JointFrames& f = j.frames();
  const Vec3 e = sp.Q * f.E_P.col(2);  // the axis, fixed in P
  Rates r;
  if (turns(j)) {
    const Mat3 R = (sp.Q * f.E_P).transpose() * sc.Q * f.E_C;
    const Vec3 dw = sc.w - sp.w;
    r.position = s * std::atan2(R(1, 0), R(0, 0));
    r.velocity = s * e.dot(dw);
    r.kappa = s * sp.w.cross(e).dot(dw);  // d/dt e = ω_P × e
    if (C.slot >= 0) out.term(0, C.slot).ang += s * e;
    if (P.slot >= 0) out.term(0, P.slot).ang -= s * e;
    return r;
  }
  // the slide: the plane row (K2) of the child's anchor along e
  const Vec3 rp = sp.offset(f.X_P), rc = sc.offset(f.X_C);
  const Vec3 d = (sc.x + rc) - (sp.x + rp);
  const Vec3 dv = (sc.v + sc.w.cross(rc)) - (sp.v + sp.w.cross(rp));
  const Vec3 we = sp.w.cross(e);
  r.kappa = add_point_term(out, 0, C, sc, rc, s * e) + add_point_term(out, 0, P, sp, rp, -s * e);
  r.kappa += s * (2.0 * dv.dot(we) + d.dot(sp.w.cross(we)));
  if (P.slot >= 0) out.term(0, P.slot).ang += s * e.cross(d);
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

void MimicConstraint::evaluate(const StateView& in, const RowSpan& out) const {
  const Rates a = add_joint(*follower_, 1.0, in, out, *this);
  const Rates b = add_joint(*leader_, -multiplier_, in, out, *this);
  out.position[0] = a.position + b.position - offset_;  // (M1)
  out.velocity[0] = a.velocity + b.velocity;
  out.b[0] = -(a.kappa + b.kappa);
}

}  // namespace appell
