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

// The extra rows (constraints beyond the spanning tree) in tree coordinates at s:
// A_T = A J (m × tree nu) and b_T = b − A J̇ u, so that A_T u̇ = b_T (appell/inverse_dynamics.hpp
// N6).  a0: the velocity-product accelerations, tree_body_accelerations() with u̇ = 0.  Runs
// constraint_rows() on d (no stabilization), whose body states must be s's.  O(m · n).
void extra_rows_in_tree(const Model& m, Data& d, const State& s,
                        const std::vector<SpatialMotion>& a0, Eigen::MatrixXd& A,
                        Eigen::VectorXd& b);

}  // namespace appell
