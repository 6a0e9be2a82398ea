// Energy and the Gaussian of a state (appell/forward.hpp).
#include "appell/forward.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/model/tree.hpp"

namespace appell {

double kinetic_energy(const Model& m, const Data& d) {
  double T = 0.0;
  for (int i = 0; i < m.nbody(); ++i) {
    const BodyState& s = d.body[i];
    T += 0.5 * m.bodies()[i].mass * s.v.squaredNorm();
    if (m.bodies()[i].rigid()) T += 0.5 * s.w.dot(d.J[i] * s.w);
  }
  // the rotors' (armature): ½ a u² on each joint quasi-velocity that has one, u read off
  // the bodies (only for models with armature: it allocates)
  const TreeModel& tree = m.tree();
  bool armature = false;
  for (const TreeJoint& t : tree.joints) armature = armature || t.armature != 0;
  if (armature) {
    Eigen::VectorXd q(tree.nq), u(tree.nu);
    tree_from_bodies(tree, d.body, q, u);
    for (const TreeJoint& t : tree.joints)
      for (int k = 0; k < t.nu; ++k) T += 0.5 * t.armature * u(t.u_offset + k) * u(t.u_offset + k);
  }
  return T;
}

double potential_energy(const Model& m, const Data& d) {
  double V = 0.0;
  for (int i = 0; i < m.nbody(); ++i) V -= m.bodies()[i].mass * m.gravity().dot(d.body[i].x);
  const StateView view = d.view();
  for (const ForcePtr& f : m.forces()) V += f->potential(view);
  return V;
}

double gaussian(const Model& m, const Data& d, const Eigen::VectorXd& udot) {
  Eigen::VectorXd a, da, Mda;
  solve_mass(m, d, d.F, a);
  da = udot - a;
  multiply_mass(m, d, da, Mda);
  return 0.5 * da.dot(Mda);  // [UK96 eq. 9] (with the ½ of [UK98 eq. 6])
}

}  // namespace appell
