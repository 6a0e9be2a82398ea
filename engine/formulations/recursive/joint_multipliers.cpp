// Tree joints' multipliers and reactions [HO21 §6]: the force through joint i on its
// subtree is
//   R_i = IA_i a_i + pA_i                                                          (R15)
// on the tree child at its centre, less the joint-space forces' wrench τ_i (R1').  Moved to the
// joint's anchor it is the wrench the joint carries; its type splits it over its canonical rows in
// closed form (R16, JointType::multipliers), and Lagrange's prescription gives the reactions on the
// two bodies [HO21 eq. 15]: the wrench on the child, its opposite on the parent.  The canonical
// rows themselves are never formed (their residuals are zero, b is left zero).
#include "appell/joint.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

namespace {

const BodyState kRest{};

SpatialForce at_centre(const Vec3& f, const Vec3& m, const Vec3& x_anchor, const BodyState& s) {
  return SpatialForce{f, m + (x_anchor - s.x).cross(f)};
}

}  // namespace

void joint_multipliers(const Model& m, const TreeModel& tree, Data& d, RecursiveWorkspace& ws) {
  for (int i = 0; i < static_cast<int>(ws.w.size()); ++i) {
    const TreeJoint& t = tree.joints[i];
    if (t.constraint < 0) continue;
    const Joint& joint = static_cast<const Joint&>(*m.constraints()[t.constraint]);
    const BodyState& T = d.body[t.body];  // the tree child
    const BodyState& O = t.parent_body == kWorld ? kRest : d.body[t.parent_body];
    const BodyState& P = t.reversed ? T : O;  // the joint's own parent and child
    const BodyState& C = t.reversed ? O : T;
    const TreeBodyWork& w = ws.w[i];
    const SpatialForce R = w.IA * w.a + w.pA;         // on T, at its centre (R15)
    const Vec3 x_B = C.x + C.Q * joint.frames().X_C;  // the child's anchor point
    Vec3 f = R.force;
    Vec3 mo = R.moment - (x_B - T.x).cross(f);  // about x_B
    if (ws.joint_tau[i]) {
      // R_i carries the joint-space forces' τ_i too (generalized_forces.cpp); the rows
      // carry the rest (never reversed: such joints apply their forces as wrenches)
      const SpatialForce tau = tau_wrench_at_anchor(tree, ws, i, x_B, T.x);
      f -= tau.force;
      mo -= tau.moment;
    }
    if (t.reversed) f = -f, mo = -mo;  // from P onto C
    const int r0 = m.row_offset(t.constraint);
    t.type->multipliers(P, C, joint.frames(), f, mo, d.lambda.data() + r0);
    // the joint holds by construction in joint coordinates: no residuals; b unformed
    for (int k = r0; k < r0 + t.rows; ++k)
      d.velocity_residual(k) = d.position_residual(k) = d.b(k) = 0.0;
    // the reactions [HO21 eq. 15], one slot per body (none for the world)
    SpatialForce* r = d.reaction.data() + m.slot_offset(t.constraint);
    const int sp = joint.parent_slot(), sc = joint.child_slot();
    if (sc >= 0) r[sc] = at_centre(f, mo, x_B, C);
    if (sp >= 0) r[sp] = at_centre(-f, -mo, x_B, P);
    drop_particle_moments(m, joint, r, 1);
  }
}

}  // namespace appell
