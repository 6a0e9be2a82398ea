// Recursive Newton–Euler inverse dynamics (appell/inverse_dynamics.hpp, N1–N5).
#include "appell/inverse_dynamics.hpp"

#include <stdexcept>

#include "engine/assembly/stages.hpp"
#include "engine/assembly/tree_accelerations.hpp"
#include "engine/model/tree.hpp"

namespace appell {

namespace {

const BodyState kRest{};

// the anchor of tree joint t in the world, from the child's state
Vec3 anchor(const TreeJoint& t, const BodyState& C) {
  return C.x + C.Q * t.frames.X_C;
}

// pass 1 (N1–N3): the bodies' linear and angular accelerations, tree order of d.body
void accelerations_BaseToTip(const Model& m, const Data& d, const State& s,
                             const Eigen::VectorXd& udot, std::vector<SpatialMotion>& acc) {
  JointMotion jm;
  Vec6 V_J;
  BodyState C;
  for (const TreeJoint& t : m.tree().joints) {
    const bool root = t.parent_body == kWorld;
    const BodyState& P = root ? kRest : d.body[t.parent_body];
    const SpatialMotion acc_P = root ? SpatialMotion() : acc[t.parent_body];
    const Vec3& a_P = acc_P.linear;
    const Vec3& alpha_P = acc_P.angular;
    joint_kinematics(t, P, s.q.data() + t.q_offset, s.u.data() + t.u_offset, C, jm, V_J);
    const Mat3 F = P.Q * t.frames.E_P;
    Vec6 Sdd = jm.c;  // S u̇ + c, in F
    for (int k = 0; k < t.nu; ++k) Sdd += jm.S.col(k) * udot(t.u_offset + k);
    const Vec3 x_A = anchor(t, C), r_P = x_A - P.x, r_C = C.x - x_A;
    const Vec3 w_rel = F * V_J.tail<3>(), d_dot = F * V_J.head<3>();
    const Vec3 v_A = C.v - C.w.cross(r_C);
    SpatialMotion& A = acc[t.body];
    A.angular = alpha_P + P.w.cross(w_rel) + F * Sdd.tail<3>();  // (N1)
    const Vec3 a_A = a_P + alpha_P.cross(r_P) + P.w.cross(v_A - P.v) + P.w.cross(d_dot) +
                     F * Sdd.head<3>();                                 // (N2)
    A.linear = a_A + A.angular.cross(r_C) + C.w.cross(C.w.cross(r_C));  // (N3)
  }
}

}  // namespace

void tree_body_accelerations(const Model& m, const Data& d, const State& s,
                             const Eigen::VectorXd& udot, std::vector<SpatialMotion>& acc) {
  acc.assign(m.nbody(), SpatialMotion());
  accelerations_BaseToTip(m, d, s, udot, acc);
}

void tree_generalized_forces(const Model& m, const Data& d, const Eigen::VectorXd& q,
                             const std::vector<Wrench>& w, Eigen::VectorXd& tau) {
  const TreeModel& tree = m.tree();
  tau.setZero(tree.nu);
  // subtree sums, moved to the world origin (X2) (and to the anchors below)
  std::vector<SpatialForce> sub(m.nbody());
  for (int i = 0; i < m.nbody(); ++i) sub[i] = w[i].shifted(d.body[i].x);
  JointMotion jm;
  const double zero[6] = {0, 0, 0, 0, 0, 0};
  for (int i = static_cast<int>(tree.joints.size()) - 1; i >= 0; --i) {
    const TreeJoint& t = tree.joints[i];
    const BodyState& C = d.body[t.body];
    const BodyState& P = t.parent_body == kWorld ? kRest : d.body[t.parent_body];
    // the subtree's wrench at the anchor, in the joint frame F, projected on S     (N5)
    const Mat3 F = P.Q * t.frames.E_P;
    const Vec3 x_A = anchor(t, C);
    const SpatialForce at_A = sub[t.body].shifted(-x_A);
    Vec6 wF;
    wF << F.transpose() * at_A.force, F.transpose() * at_A.moment;
    t.type->motion(q.data() + t.q_offset, zero, jm);  // S(q); S does not depend on u
    for (int k = 0; k < t.nu; ++k) tau(t.u_offset + k) = jm.S.col(k).dot(wF);
    if (t.parent_body != kWorld) sub[t.parent_body] += sub[t.body];
  }
}

void inverse_dynamics(const Model& m, Data& d, const State& s, const Eigen::VectorXd& udot,
                      Eigen::VectorXd& tau) {
  if (udot.size() != m.tree().nu)
    throw std::invalid_argument(
        "inverse_dynamics(): udot has " + std::to_string(udot.size()) +
        " entries, expected the tree's nu = " + std::to_string(m.tree().nu));
  set_state(m, d, s);
  applied_forces(m, d);
  std::vector<SpatialMotion> acc(m.nbody());
  accelerations_BaseToTip(m, d, s, udot, acc);
  // the net wrench each body needs beyond the applied ones                      (N4)
  std::vector<Wrench> w(m.nbody());
  for (int i = 0; i < m.nbody(); ++i) {
    const Body& b = m.bodies()[i];
    w[i].force = b.mass * acc[i].linear - d.applied[i].force;
    if (b.rigid()) {
      const Vec3& om = d.body[i].w;
      w[i].moment = d.J[i] * acc[i].angular + om.cross(d.J[i] * om) - d.applied[i].moment;
    }
  }
  tree_generalized_forces(m, d, s.q, w, tau);
  for (const TreeJoint& t : m.tree().joints)  // the rotor inertia's torque, armature · u̇
    for (int k = 0; k < t.nu; ++k) tau(t.u_offset + k) += t.armature * udot(t.u_offset + k);
}

}  // namespace appell
