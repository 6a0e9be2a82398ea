// The bodies' accelerations on the spanning tree from joint accelerations (internal to
// engine/): pass 1 of inverse dynamics (appell/inverse_dynamics.hpp, N1–N3).
#pragma once

#include <vector>

#include "appell/data.hpp"

namespace appell {

// (dv̄/dt; dω/dt), world frame, per model body, of the motion with joint accelerations udot
// (tree nu) at s; d.body must hold the body states of s (set_state).  With udot = 0: the
// velocity-product accelerations J̇ u.  O(n).
void tree_body_accelerations(const Model& m, const Data& d, const State& s,
                             const Eigen::VectorXd& udot, std::vector<SpatialMotion>& a);

}  // namespace appell
