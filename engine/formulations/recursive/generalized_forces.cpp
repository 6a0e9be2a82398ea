// The generalized-force stage: joint-space forces into τ (docs/recursive.md, R1').
//
// A force that acts only along a joint's motion subspace (Force::joint_space: actuators,
// joint springs and dampers) is a generalized force τ_i on the joint's quasi-velocities.
// Where the joint is tree joint i, run in its own direction, τ_i enters the recursion's
// bias directly (R9: uu_i = τ_i − S_iᵀ pA_i) from the joint's own q_i, u_i: no joint
// coordinates are read back from body states and no wrench is formed.  A tree joint run
// backwards (its coordinates are those of the reversed type) and a loop-closing joint keep
// the body-space path (Force::apply), which gives the same motion.
//
// For what reads body wrenches after a solve (d.applied, d.F: the Gaussian, the consistency
// test, the joints' multipliers), τ_i is the wrench on the child at the anchor x_A
//   f = Σ_k t_k τ_k,  n = Σ_k s_k τ_k,   t_k = S_k,lin + s_k × (x_A − x̄_C),  s_k = S_k,ang
// (S_k = (t_k + s_k × (x̄_C − x_A); s_k) is column k at the child's centre, R2), and its
// opposite on the parent: the wrench whose power is τ·u (appell/joint_state.hpp G1).
#include "appell/joint.hpp"
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

void find_joint_space_forces(const Model& m, RecursiveWorkspace& ws) {
  const TreeModel& tree = m.tree();
  const int nf = static_cast<int>(m.forces().size());
  ws.tau_model = &m;
  ws.tau_forces.clear();
  ws.tau.setZero(tree.nu);
  ws.in_tau.assign(nf, 0);
  ws.joint_tau.assign(tree.joints.size(), 0);
  for (int k = 0; k < nf; ++k) {
    const Force& f = *m.forces()[k];
    const Joint* j = f.joint_space();
    if (!j) continue;
    for (int i = 0; i < static_cast<int>(tree.joints.size()); ++i) {
      const TreeJoint& t = tree.joints[i];
      if (t.constraint < 0 || t.reversed || t.nu == 0 || m.constraints()[t.constraint].get() != j)
        continue;
      ws.tau_forces.push_back(TauForce{k, i});
      ws.in_tau[k] = 1;
      ws.joint_tau[i] = 1;
      break;
    }
  }
}

void generalized_forces(const Model& m, const Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                        const Eigen::Ref<const Eigen::VectorXd>& u, RecursiveWorkspace& ws) {
  if (ws.tau_forces.empty()) return;
  ws.tau.setZero();
  const StateView view = d.view();
  for (const TauForce& f : ws.tau_forces) {
    const TreeJoint& t = m.tree().joints[f.joint];
    m.forces()[f.force]->add_generalized_force(view, q.data() + t.q_offset, u.data() + t.u_offset,
                                               ws.tau.data() + t.u_offset);
  }
}

SpatialForce tau_wrench_at_anchor(const TreeModel& tree, const RecursiveWorkspace& ws, int i,
                                  const Vec3& x_A, const Vec3& x_C) {
  const TreeJoint& t = tree.joints[i];
  SpatialForce F;
  for (int k = 0; k < t.nu; ++k) {
    const SpatialMotion S = SpatialMotion::from_vec(ws.S[t.u_offset + k]);
    const double tau = ws.tau(t.u_offset + k);
    F.force += (S.linear + S.angular.cross(x_A - x_C)) * tau;
    F.moment += S.angular * tau;
  }
  return F;
}

void add_tau_wrenches(const Model& m, Data& d, const RecursiveWorkspace& ws) {
  const TreeModel& tree = m.tree();
  for (int i = 0; i < static_cast<int>(tree.joints.size()); ++i) {
    if (!ws.joint_tau[i]) continue;
    const TreeJoint& t = tree.joints[i];
    const BodyState& C = d.body[t.body];
    const Vec3 x_A = C.x + C.Q * t.frames.X_C;
    const SpatialForce F = tau_wrench_at_anchor(tree, ws, i, x_A, C.x);  // about x_A
    // on the child, then its opposite on the parent, about each centre
    for (int side = 0; side < 2; ++side) {
      const int b = side == 0 ? t.body : t.parent_body;
      if (b == kWorld) continue;
      const SpatialForce Fb =
          side == 0 ? F.shifted(x_A - d.body[b].x) : -F.shifted(x_A - d.body[b].x);
      d.applied[b] += Fb;
      // d.F is per composite: the wrench moves to its centre (W1)
      const int k = m.composite(b);
      m.block(k).add(d.F, m.merged() ? Fb.shifted(d.body[b].x - d.composite[k].x) : Fb);
    }
  }
}

}  // namespace appell
