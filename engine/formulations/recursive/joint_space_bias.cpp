// The joint forces the motion alone needs (engine/formulations/recursive.hpp): the recursive
// Newton–Euler passes at u̇ = 0 on the recursion's own terms (RBDA Table 5.1), for the
// contact stepper's joint-space route, which solves M u̇ = −b with a factor of M where the
// articulated-body passes would have given u̇ themselves:
//   pass 1, base to tip:  a_i = X_i a_p + c_i                                     (R2, R3)
//   each body:            F_i = M_i a_i − f_i,  M_i = diag(m 1, J_i) at its centre  (R1)
//   pass 2, tip to base:  F_p += X_iᵀ F_i,   b_i = S_iᵀ F_i − τ_i
// τ the joint-space applied forces (generalized_forces).  The accelerations a_i are left in
// w.a and the subtrees' forces in w.pA (the passes' storage, which the articulated passes
// write again when they run).
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

void joint_space_bias(const Model& m, Data& d, Eigen::VectorXd& b) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  const TreeModel& tree = m.tree();
  body_forces(tree, d, ws);
  const int n = static_cast<int>(ws.w.size());
  for (int i = 0; i < n; ++i) {
    TreeBodyWork& w = ws.w[i];
    const int p = tree.joints[i].parent;
    if (p >= 0)
      w.a = ws.w[p].a.shifted(w.r);
    else
      w.a.setZero();
    w.a += w.c;
    const int body = tree.joints[i].body;
    w.pA.force = m.bodies()[body].mass * w.a.linear - w.f.force;
    w.pA.moment = d.J[body] * w.a.angular - w.f.moment;
  }
  b.resize(tree.nu);
  for (int i = n - 1; i >= 0; --i) {
    const TreeBodyWork& w = ws.w[i];
    const TreeJoint& t = tree.joints[i];
    for (int k = t.u_offset; k < t.u_offset + t.nu; ++k) {
      b(k) = ws.S[k].head<3>().dot(w.pA.force) + ws.S[k].tail<3>().dot(w.pA.moment);
      if (ws.joint_tau[i]) b(k) -= ws.tau(k);
    }
    if (t.parent >= 0) ws.w[t.parent].pA += w.pA.shifted(w.r);
  }
}

}  // namespace appell
