// Recursive Newton–Euler inverse dynamics (appell/inverse_dynamics.hpp, N1–N5) on the
// kernel of engine/assembly/rnea.hpp.
#include "appell/inverse_dynamics.hpp"

#include <stdexcept>

#include "engine/assembly/rnea.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/assembly/tree_accelerations.hpp"
#include "engine/model/tree.hpp"

namespace appell {

namespace {

const BodyState kRest{};

}  // namespace

void tree_body_accelerations(const Model& m, const Data& d, const State& s,
                             const Eigen::VectorXd& udot, std::vector<SpatialMotion>& acc) {
  acc.assign(m.nbody(), SpatialMotion());
  // the kernel's pass 1 joint by joint from the parents' d.body, without a workspace
  const SpatialMotion still;
  JointPlacementT<double> J;
  BodyState C;
  for (const TreeJoint& t : m.tree().joints) {
    const bool root = t.parent_body == kWorld;
    const BodyState& P = root ? kRest : d.body[t.parent_body];
    const double* u = s.u.data() + t.u_offset;
    joint_motion(t, s.q.data() + t.q_offset, u, J.motion);
    joint_step(t.frames, t.nu, P, J.motion, u, C, J.QE, J.x_A, J.V_J);  // (J1, J2)
    rnea_acceleration_step(t, P, root ? still : acc[t.parent_body], C, J, udot.data() + t.u_offset,
                           acc[t.body]);  // (N1–N3)
  }
}

void tree_generalized_forces(const Model& m, const Data& d, const Eigen::VectorXd& q,
                             const std::vector<SpatialForce>& w, Eigen::VectorXd& tau) {
  const TreeModel& tree = m.tree();
  tau.setZero(tree.nu);
  // the joints' placements from the bodies' states, S(q) (S does not depend on u)
  std::vector<JointPlacementT<double>> joint(tree.joints.size());
  const double zero[6] = {0, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < tree.joints.size(); ++i) {
    const TreeJoint& t = tree.joints[i];
    const BodyState& C = d.body[t.body];
    const BodyState& P = t.parent_body == kWorld ? kRest : d.body[t.parent_body];
    JointPlacementT<double>& J = joint[i];
    J.QE.noalias() = P.Q * t.frames.E_P;
    J.x_A = C.x + C.Q * t.frames.X_C;
    t.type->motion(q.data() + t.q_offset, zero, J.motion);
  }
  std::vector<SpatialForce> F(m.nbody());
  for (int i = 0; i < m.nbody(); ++i) F[i] = w[i].shifted(d.body[i].x);  // about O (X2)
  rnea_forces_TipToBase(tree, joint, F, tau.data());                     // (N5)
}

void inverse_dynamics(const Model& m, Data& d, const State& s, const Eigen::VectorXd& udot,
                      Eigen::VectorXd& tau) {
  const TreeModel& tree = m.tree();
  if (udot.size() != tree.nu)
    throw std::invalid_argument("inverse_dynamics(): udot has " + std::to_string(udot.size()) +
                                " entries, expected the tree's nu = " + std::to_string(tree.nu));
  set_state(m, d, s);
  applied_forces(m, d);
  // the kernel's passes (engine/assembly/rnea.hpp, N1–N5)
  RneaWork w(m);
  body_kinematics_BaseToTip(tree, s.q.data(), s.u.data(), w);
  rnea_accelerations_BaseToTip(tree, udot.data(), w);
  rnea_wrenches(m, d.applied.data(), w);
  tau.setZero(tree.nu);
  rnea_forces_TipToBase(tree, w.joint, w.F, tau.data());
  for (const TreeJoint& t : tree.joints)  // the rotor inertia's torque, armature · u̇
    for (int k = 0; k < t.nu; ++k) tau(t.u_offset + k) += t.armature * udot(t.u_offset + k);
}

}  // namespace appell
