// The standard chain of bench/chain_scenes.hpp, built in code: the reference model for scaling.
//
// n identical links, each a solid box of mass 1 kg and edges 0.05 × 0.05 × 0.2 m (long
// along its z), its joint at its top end, its centre of mass 0.1 m below the joint, the
// next joint 0.2 m below.  Joint 1 attaches link 1 to the world at the origin; joint i is
// revolute about the link's x axis for odd i, y for even i.  Gravity (0, 0, −9.81).  The
// initial state is given in joint coordinates, q_i = 0.1 sin(i), q̇_i = 0.05 cos(i),
// i = 1..n, and mapped to the bodies' poses and velocities by forward kinematics:
//
//   R_i = R_{i−1} Rot(a_i, q_i)          a_i = e_x (i odd), e_y (i even), link frame
//   ω_i = ω_{i−1} + R_i a_i q̇_i          (world frame)
//   x̄_i = p_i + R_i (0, 0, −0.1),        p_{i+1} = p_i + R_i (0, 0, −0.2),  p_1 = 0
//   v̄_i = v_{p_i} + ω_i × (x̄_i − p_i),   v_{p_{i+1}} = v_{p_i} + ω_i × (p_{i+1} − p_i)
//
// Bodies are named link1..linkn, joints joint1..jointn (Joint, revolute, defined by the
// t = 0 poses: its world axis is R_i a_i).  O(n).
#pragma once

#include "appell/model.hpp"

namespace appell {

// Throws std::invalid_argument when n < 1.
Model standard_chain(int n);
// The same, still editable (compile() gives standard_chain(n)).
ModelBuilder standard_chain_builder(int n);

}  // namespace appell
