// Pass 1, base to tip: body states straight from the joint coordinates (J1, J2), the
// motion subspaces S_i and velocity products c_i in the world (R2, R3).  docs/recursive.md.
#include "engine/recursive/workspace.hpp"

namespace appell {

namespace {
const BodyState kRest{};
}  // namespace

void kinematics_BaseToTip(const Model& m, const TreeModel& tree,
                          const Eigen::Ref<const Eigen::VectorXd>& q,
                          const Eigen::Ref<const Eigen::VectorXd>& u, Data& d,
                          RecursiveWorkspace& ws) {
  JointMotion jm;
  Vec6 V_J;
  Mat3 QE;
  const int n = static_cast<int>(tree.joints.size());
  for (int i = 0; i < n; ++i) {
    const TreeJoint& t = tree.joints[i];
    const BodyState& P = t.parent_body == kWorld ? kRest : d.body[t.parent_body];
    BodyState& C = d.body[t.body];
    // the body's pose and twist (J1, J2) and its world inertia
    joint_kinematics(t, P, q.data() + t.q_offset, u.data() + t.u_offset, C, jm, V_J, QE);
    const Body& body = m.bodies()[t.body];
    d.J[t.body] = world_inertia(body, C);
    TreeBodyWork& w = ws.w[i];
    // the body's own M_i, which pass 2 turns into the articulated inertia         (R1)
    w.IA.setZero();
    w.IA.topLeftCorner<3, 3>().diagonal().setConstant(body.mass);
    w.IA.bottomRightCorner<3, 3>() = d.J[t.body];
    w.r = C.x - P.x;
    // motion subspace: a turn s about the anchor moves the centre by s × r_CA   (R2)
    const Vec3 r_CA = -(C.Q * t.frames.X_C);
    Vec6* S = ws.S.data() + t.u_offset;
    for (int k = 0; k < t.nu; ++k) {
      const Vec3 s = QE * jm.S.col(k).tail<3>();
      S[k].head<3>() = QE * jm.S.col(k).head<3>() + s.cross(r_CA);
      S[k].tail<3>() = s;
    }
    // velocity products: d/dt of V_C = X V_P + S u at constant u               (R3)
    const Vec3 w_rel = C.w - P.w;
    const Vec3 t_W = QE * V_J.head<3>();  // the anchor's slide velocity
    const Vec3 c_w = P.w.cross(w_rel) + QE * jm.c.tail<3>();
    w.c.vec.tail<3>() = c_w;
    w.c.vec.head<3>() = P.w.cross(C.v - P.v) + c_w.cross(r_CA) + w_rel.cross(C.w.cross(r_CA)) +
                        P.w.cross(t_W) + QE * jm.c.head<3>();
  }
}

// Each body's own force f_i = (f, τ − ω × J ω) from d.F (R1) [HO21 eqs. 6, 7]
void body_forces(const Model& m, const TreeModel& tree, const Data& d, RecursiveWorkspace& ws) {
  const int n = static_cast<int>(tree.joints.size());
  for (int i = 0; i < n; ++i) {
    const int b = tree.joints[i].body;
    const int iu = m.u_offset(b);
    SpatialForce& f = ws.w[i].f;
    f.vec.head<3>() = d.F.segment<3>(iu);
    if (m.bodies()[b].rigid())
      f.vec.tail<3>() = d.F.segment<3>(iu + 3);
    else
      f.vec.tail<3>().setZero();
  }
}

}  // namespace appell
