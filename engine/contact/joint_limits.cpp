// Which joint limits and friction a moreau run can enforce, and a start state outside the
// limits (appell/contact.hpp; docs/contact.md "What a limit can and cannot do").
//
// A limit (and a joint's Coulomb friction) is a row on the joint's own coordinate, so it
// acts on the one-coordinate joints of the spanning tree (engine/contact/moreau_rows.cpp).  A
// joint that closes a loop has no coordinate of its own: the tree's coordinates give it
// only implicitly, through the loop's rows.  Its limit and friction would be silently
// ignored, so they are refused instead.
//
// A coordinate that starts outside its limit is a position error, not a contact: the
// velocity-level law (Moreau's) cannot see it, and the position projection that removes
// penetration (Cline & Pai) would move the joint back in one step, raising the potential
// energy by the work of a force that never acted.  It is refused as well.
#include <cmath>
#include <sstream>

#include "appell/contact.hpp"
#include "appell/joint.hpp"
#include "appell/tree.hpp"

namespace appell {

namespace {

const Joint* joint_of(const Model& m, int constraint) {
  return constraint >= 0 ? m.joint(constraint) : nullptr;
}

// the tree joint that carries constraint c as its one coordinate, −1 when none
int tree_coordinate(const Model& m, int c) {
  const TreeModel& tree = m.tree();
  for (int i = 0; i < static_cast<int>(tree.joints.size()); ++i) {
    const TreeJoint& t = tree.joints[i];
    if (t.constraint == c && t.nq == 1 && t.nu == 1) return i;
  }
  return -1;
}

}  // namespace

std::vector<UnenforcedJoint> unenforced_joint_properties(const Model& m, bool limits,
                                                         bool friction) {
  std::vector<UnenforcedJoint> out;
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const Joint* j = joint_of(m, c);
    if (!j) continue;
    const JointProperties& p = j->properties();
    const bool limit = limits && p.limited, rubs = friction && p.friction > 0;
    if ((limit || rubs) && tree_coordinate(m, c) < 0) out.push_back({c, limit, rubs});
  }
  return out;
}

std::string describe(const Model& m, const UnenforcedJoint& u) {
  const std::string what = u.limit && u.friction ? "limit and friction"
                           : u.limit             ? "limit"
                                                 : "friction";
  return "joint '" + m.constraints()[u.constraint]->name() +
         "' closes a loop (it is not a joint of the spanning tree, which has no coordinate of "
         "its own for it): its " +
         what +
         " cannot be enforced; put it on another joint of the loop, or turn it off "
         "with \"contact\": {" +
         (u.limit && u.friction ? "\"joint_limits\": false, \"joint_friction\": false"
          : u.limit             ? "\"joint_limits\": false"
                                : "\"joint_friction\": false") +
         "}";
}

LimitViolation joint_limit_violation(const Model& m, const Eigen::VectorXd& q, double tolerance) {
  LimitViolation v;
  const TreeModel& tree = m.tree();
  if (q.size() != tree.nq) return v;
  for (const TreeJoint& t : tree.joints) {
    if (t.nq != 1 || t.nu != 1) continue;
    const Joint* j = joint_of(m, t.constraint);
    if (!j || !j->properties().limited) continue;
    const JointProperties& p = j->properties();
    // the joint's own coordinate: a reversed joint runs it backwards on the tree
    const double x = t.reversed ? -q(t.q_offset) : q(t.q_offset);
    const double below = p.lower - x, above = x - p.upper;
    if (!(below > tolerance || above > tolerance) && std::isfinite(x)) continue;
    v.constraint = t.constraint;
    v.upper = !(below > tolerance);
    v.value = x;
    v.bound = v.upper ? p.upper : p.lower;
    v.excess = v.upper ? above : below;
    const char* unit = j->joint_type().angle(0) ? " rad" : " m";
    std::ostringstream os;
    os << "joint '" << j->name() << "' starts " << v.excess << unit << " past its "
       << (v.upper ? "upper" : "lower") << " limit (q = " << x << ", limits [" << p.lower << ", "
       << p.upper
       << "]): a limit acts on velocities, so a start outside it is a position error that a "
          "run would remove in one step by a jump, not by a force; start it within its limits";
    v.message = os.str();
    return v;
  }
  return v;
}

}  // namespace appell
