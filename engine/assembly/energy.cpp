// Energy and the Gaussian of a state (appell/forward.hpp).
#include "engine/assembly/energy.hpp"

#include "appell/forward.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/model/tree.hpp"

namespace appell {

// (a particle's ω and J are zero)
double bodies_kinetic_energy(const Model& m, const Data& d) {
  double T = 0.0;
  for (int i = 0; i < m.nbody(); ++i) {
    const BodyState& s = d.body[i];
    T += 0.5 * m.bodies()[i].mass * s.v.squaredNorm();
    T += 0.5 * s.w.dot(d.J[i] * s.w);
  }
  return T;
}

namespace {

bool has_armature(const TreeModel& tree) {
  for (const TreeJoint& t : tree.joints)
    if (t.armature != 0) return true;
  return false;
}

// the rotors' (armature): ½ a u² on each joint quasi-velocity that has one
double rotor_energy(const TreeModel& tree, const Eigen::VectorXd& u) {
  double T = 0.0;
  for (const TreeJoint& t : tree.joints)
    if (t.armature != 0)
      for (int k = 0; k < t.nu; ++k) T += 0.5 * t.armature * u(t.u_offset + k) * u(t.u_offset + k);
  return T;
}

// V = −Σ m g·x̄
double gravity_potential(const Model& m, const Data& d) {
  double V = 0.0;
  for (int i = 0; i < m.nbody(); ++i) V -= m.bodies()[i].mass * m.gravity().dot(d.body[i].x);
  return V;
}

}  // namespace

double kinetic_energy(const Model& m, const Data& d) {
  double T = bodies_kinetic_energy(m, d);
  // the rotors' u read off the bodies (only for models with armature: it allocates)
  const TreeModel& tree = m.tree();
  if (has_armature(tree)) {
    Eigen::VectorXd q(tree.nq), u(tree.nu);
    tree_from_bodies(tree, d.body, q, u);
    T += rotor_energy(tree, u);
  }
  return T;
}

double kinetic_energy_at(const Model& m, const Data& d, const Eigen::VectorXd& u) {
  return bodies_kinetic_energy(m, d) + rotor_energy(m.tree(), u);
}

double kinetic_energy(const Model& m, const Data& d, const State& s) {
  return kinetic_energy_at(m, d, s.u);
}

double potential_energy(const Model& m, const Data& d) {
  double V = gravity_potential(m, d);
  const StateView view = d.view();
  for (const ForcePtr& f : m.forces()) V += f->potential(view);
  return V;
}

double potential_energy(const Model& m, const Data& d, const State& s) {
  double V = gravity_potential(m, d);
  const StateView view = d.view();
  const TreeModel& tree = m.tree();
  for (size_t k = 0; k < m.forces().size(); ++k) {
    const int i = tree.force_joint[k];  // a joint force reads its joint's q in s
    V += i >= 0 ? m.forces()[k]->joint_potential(view, s.q.data() + tree.joints[i].q_offset)
                : m.forces()[k]->potential(view);
  }
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
