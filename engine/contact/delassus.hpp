// The Delassus operator of unilateral rows on the recursive formulation's tree, and the
// joint-velocity response to their impulses, without M⁻¹ (internal to engine/).
//
// A unilateral row k is a row on the bodies' twists V = (v̄, ω) like a constraint's
// canonical row (appell/constraint.hpp, C2): per body a linear and an angular part.  With
// R the inverse mass of the tree constrained by its bilateral extra rows (the Schur
// complement M⁻¹ − M⁻¹Aᵀ G_A⁺ A M⁻¹ against the extra rows' G_A of (R13)),
//   response_k = R J_kᵀ (the joint velocities an impulse of 1 on row k adds),
//   G_jk = J_j response_k,
// each column by the recursion's unit-force passes (R12): one pass for the tree, and with
// bilateral rows a second after the force A G_A⁺ (−A a^k) that keeps them satisfied.
// O(m·(n + m_A²) + m²·terms) for m rows, m_A bilateral rows; no n × n matrix anywhere.
#pragma once

#include <vector>

#include "appell/constraint.hpp"
#include "appell/data.hpp"

namespace appell {

struct TwistRow {
  int body[2] = {kWorld, kWorld};  // kWorld: no term
  RowTerm term[2];
};

// The row of direction `dir` at the world point p between bodies a and b (kWorld for
// the ground): its velocity is dir · (v_b(p) − v_a(p)), its unit impulse pushes b along
// +dir and a along −dir.  Reads d.body.
TwistRow point_row(const Data& d, int body_a, int body_b, const Vec3& p, const Vec3& dir);

// The row whose velocity is the quasi-velocity of one-coordinate tree joint i (revolute,
// prismatic, …): a pair of opposite wrenches on the joint's child and parent along its
// motion subspace S (w = S/‖S‖², so that Sᵀw = 1).  Needs the kinematics at the state.
TwistRow joint_row(const Model& m, Data& d, int tree_joint);

// After recursive_rates (or solve_recursive) on d at a state q: G (m × m, symmetric) and
// the response R Jᵀ (tree.nu × m).  Overwrites the recursion's u̇ and accelerations (copy
// joint_accelerations before).  Allocates the outputs only when their sizes change.
void tree_delassus(const Model& m, Data& d, const std::vector<TwistRow>& rows, Eigen::MatrixXd& G,
                   Eigen::MatrixXd& response);

// J u: the rows' velocities at the joint quasi-velocities u, with the motion subspaces of
// the last kinematics on d (its q).  O(n + rows).
void row_velocities(const Model& m, Data& d, const std::vector<TwistRow>& rows,
                    const Eigen::Ref<const Eigen::VectorXd>& u, Eigen::VectorXd& out);

}  // namespace appell
