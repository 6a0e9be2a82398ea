// The tree's body kinematics over the scalar (kinematics.hpp), instantiated for double and
// Dual8, and a joint's motion in duals.
#include "engine/model/kinematics.hpp"

#include <stdexcept>
#include <string>

namespace appell {

void joint_motion(const TreeJoint& t, const Dual8* q, const Dual8* u, JointMotionT<Dual8>& jm) {
  constexpr int kDir = 8;
  double qv[8], uv[8], dq[8], du[8];
  for (int k = 0; k < t.nq; ++k) qv[k] = q[k].v;
  for (int k = 0; k < t.nu; ++k) uv[k] = u[k].v;
  JointMotion x, dx;
  t.type->motion(qv, uv, x);
  // the values, then along each direction seeded on q or u the tangent (J1–J3)
  auto set = [&](const JointMotion& from, int dir) {  // dir < 0: the values
    auto put = [&](Dual8& to, double v) { dir < 0 ? void(to = Dual8(v)) : void(to.d[dir] = v); };
    for (int r = 0; r < 3; ++r) {
      put(jm.d(r), from.d(r));
      for (int c = 0; c < 3; ++c) put(jm.R(r, c), from.R(r, c));
    }
    for (int r = 0; r < 6; ++r) {
      put(jm.c(r), from.c(r));
      for (int k = 0; k < t.nu; ++k) put(jm.S(r, k), from.S(r, k));
    }
  };
  set(x, -1);
  for (int dir = 0; dir < kDir; ++dir) {
    bool moves = false;
    for (int k = 0; k < t.nq; ++k) moves |= (dq[k] = q[k].d[dir]) != 0.0;
    for (int k = 0; k < t.nu; ++k) moves |= (du[k] = u[k].d[dir]) != 0.0;
    if (!moves) continue;
    if (!t.type->motion_tangent(qv, uv, dq, du, x, dx))
      throw std::invalid_argument(std::string("derivatives: joint type '") + t.type->name() +
                                  "' gives no derivatives of its motion "
                                  "(JointType::motion_tangent)");
    set(dx, dir);
  }
}

template <class T>
void body_kinematics_BaseToTip(const TreeModel& tree, const T* q, const T* u,
                               TreeKinematicsT<T>& k) {
  const BodyStateT<T> rest{};
  for (size_t i = 0; i < tree.joints.size(); ++i) {
    const TreeJoint& t = tree.joints[i];
    const BodyStateT<T>& P = t.parent_body == kWorld ? rest : k.body[t.parent_body];
    JointPlacementT<T>& J = k.joint[i];
    joint_motion(t, q + t.q_offset, u + t.u_offset, J.motion);
    joint_step(t.frames, t.nu, P, J.motion, u + t.u_offset, k.body[t.body], J.QE, J.x_A, J.V_J);
  }
}

template void body_kinematics_BaseToTip(const TreeModel&, const double*, const double*,
                                        TreeKinematicsT<double>&);
template void body_kinematics_BaseToTip(const TreeModel&, const Dual8*, const Dual8*,
                                        TreeKinematicsT<Dual8>&);

}  // namespace appell
