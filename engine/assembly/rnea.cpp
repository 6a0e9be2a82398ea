// The recursive Newton–Euler passes over the scalar (rnea.hpp), instantiated for double and
// Dual8.
#include "engine/assembly/rnea.hpp"

namespace appell {

template <class S>
void rnea_accelerations_BaseToTip(const TreeModel& tree, const S* udot, RneaWorkT<S>& w) {
  const BodyStateT<S> rest{};
  const SpatialMotionT<S> still{};
  for (size_t i = 0; i < tree.joints.size(); ++i) {
    const TreeJoint& t = tree.joints[i];
    const bool root = t.parent_body == kWorld;
    rnea_acceleration_step(t, root ? rest : w.body[t.parent_body],
                           root ? still : w.a[t.parent_body], w.body[t.body], w.joint[i],
                           udot + t.u_offset, w.a[t.body]);
  }
}

template <class S>
void rnea_wrenches(const Model& m, const SpatialForceT<S>* applied, RneaWorkT<S>& w) {
  using V3 = Eigen::Matrix<S, 3, 1>;
  using M3 = Eigen::Matrix<S, 3, 3>;
  const V3 g = m.gravity().template cast<S>();
  for (int b = 0; b < m.nbody(); ++b) {
    const Body& body = m.bodies()[b];
    const BodyStateT<S>& C = w.body[b];
    const SpatialMotionT<S>& A = w.a[b];
    const S mass(body.mass);
    SpatialForceT<S>& F = w.F[b];
    // (N4): m ā less the applied force, J α + ω × J ω less the applied moment
    if (applied)
      F.force = A.linear * mass - applied[b].force;
    else
      F.force = (A.linear - g) * mass;
    // (a particle's J, ω, α and applied moment are zero: drop_particle_moments)
    const M3 J = C.Q * body.inertia.template cast<S>() * C.Q.transpose();
    F.moment = J * A.angular + C.w.cross(J * C.w);
    if (applied) F.moment -= applied[b].moment;
    F.moment += C.x.cross(F.force);  // about O (X2)
  }
}

template <class S>
void rnea_forces_TipToBase(const TreeModel& tree, const std::vector<JointPlacementT<S>>& joint,
                           std::vector<SpatialForceT<S>>& F, S* tau) {
  using V3 = Eigen::Matrix<S, 3, 1>;
  for (int i = static_cast<int>(tree.joints.size()) - 1; i >= 0; --i) {
    const TreeJoint& t = tree.joints[i];
    const JointPlacementT<S>& J = joint[i];
    const SpatialForceT<S>& sub = F[t.body];
    // the subtree's wrench at the anchor, in F, projected on S                       (N5)
    const V3 fF = J.QE.transpose() * sub.force;
    const V3 nF = J.QE.transpose() * (sub.moment - J.x_A.cross(sub.force));
    for (int k = 0; k < t.nu; ++k)
      tau[t.u_offset + k] = J.motion.S.col(k).template head<3>().dot(fF) +
                            J.motion.S.col(k).template tail<3>().dot(nF);
    if (t.parent_body != kWorld) F[t.parent_body] += sub;
  }
}

template void rnea_accelerations_BaseToTip(const TreeModel&, const double*, RneaWork&);
template void rnea_accelerations_BaseToTip(const TreeModel&, const Dual8*, RneaWorkT<Dual8>&);
template void rnea_wrenches(const Model&, const SpatialForce*, RneaWork&);
template void rnea_wrenches(const Model&, const SpatialForceT<Dual8>*, RneaWorkT<Dual8>&);
template void rnea_forces_TipToBase(const TreeModel&, const std::vector<JointPlacementT<double>>&,
                                    std::vector<SpatialForce>&, double*);
template void rnea_forces_TipToBase(const TreeModel&, const std::vector<JointPlacementT<Dual8>>&,
                                    std::vector<SpatialForceT<Dual8>>&, Dual8*);

}  // namespace appell
