// The bodies' share of the kinetic energy (internal to the library; engine/assembly/energy.cpp).
#pragma once

#include "appell/data.hpp"

namespace appell {

// Σ ½ m v̄·v̄ + ½ ω·Jω over d.body, d.J: the kinetic energy without the rotors' (armature),
// which the joints' rates give (appell/forward.hpp kinetic_energy(m, d, s)).  O(n).
double bodies_kinetic_energy(const Model& m, const Data& d);
// The kinetic energy at the joints' rates u (nu): the bodies' (d.body at those rates) and the
// rotors', ½ a u² on each joint quasi-velocity with armature a.  O(n).
double kinetic_energy_at(const Model& m, const Data& d, const Eigen::VectorXd& u);

}  // namespace appell
