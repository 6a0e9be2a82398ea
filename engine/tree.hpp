// The spanning tree of a Model's joints and its joint coordinates (SPEC §1 `recursive`).
//
// Tree.  The joints are the edges of a graph on the bodies and the world.  A breadth-first
// search from the world gives a spanning forest in which every body's parent precedes it
// (STYLE §1: parent[i] < i).  Bodies not reached from the world become roots of their own
// subtrees with a free joint (6 quasi-velocities, 3 for a particle).  A joint is traversed
// in either direction: when its Joint::child() is reached first the joint is "reversed" and
// its geometry is re-expressed from the other body.  Joints that close loops, joints that
// would make a particle a tree child (a particle has no rotation for the joint to act on),
// and every non-joint constraint become extra rows (engine/recursive.hpp).
//
// Coordinates.  For tree joint i with parent body P and child body C (frames Q_P, Q_C):
//   Q_C = Q_P R_j(q) R0,                    R0 = Q_P(0)ᵀ Q_C(0)                    (T1)
//   x_A = x̄_P + Q_P (X_P + d(q)),   x̄_C = x_A − Q_C X_C                          (T2)
// with the anchor A at X_P in P and X_C in C, and per joint type
//   type         q (nq)          u (nu)                  R_j                 d
//   revolute     θ (1)           θ̇                      exp(θ a1)           0
//   prismatic    s (1)           ṡ                      I                   s a1
//   cylindrical  θ, s (2)        θ̇, ṡ                   exp(θ a1)           s a1
//   universal    θ1, θ2 (2)      θ̇1, θ̇2                exp(θ1 a1) exp(θ2 a2)  0
//   spherical    quaternion (4)  ω_rel in P's frame (3)  quaternion          0
//   free         x̄, quaternion (7)  v̄, ω world (6)      (the body's own pose)
//   particle     x̄ (3)           v̄ (3)
//   fixed        — (0)           — (0)                    I                   0
// a1, a2 are fixed in P's frame (a2 is the child's universal axis at q = 0).  nq ≠ nu.
#pragma once

#include <string>
#include <vector>

#include "engine/data.hpp"

namespace appell {

enum class TreeJointType {
  Revolute,
  Prismatic,
  Cylindrical,
  Universal,
  Spherical,
  Free,
  Particle,
  Fixed
};

// One edge of the tree: the joint that carries tree body i.  Constant.
struct TreeJoint {
  TreeJointType type = TreeJointType::Free;
  int body = 0;              // model index of the child C
  int parent = -1;           // tree index of the parent, −1 for the world
  int parent_body = kWorld;  // model index of the parent P
  int constraint = -1;       // model constraint index of the joint, −1 for free joints
  int nq = 0, nu = 0;        // coordinate and quasi-velocity counts (table above)
  int q_offset = 0, u_offset = 0;
  Vec3 X_P = Vec3::Zero();     // anchor, P's frame, from P's centre of mass
  Vec3 X_C = Vec3::Zero();     // anchor, C's frame, from C's centre of mass
  Vec3 a1_P = Vec3::UnitX();   // first axis, P's frame
  Vec3 a2_P = Vec3::UnitY();   // universal: the child's axis at q = 0, P's frame
  Vec3 a2_C = Vec3::UnitY();   // universal: the child's axis, C's frame (R0ᵀ a2_P)
  Mat3 R0 = Mat3::Identity();  // Q_P(0)ᵀ Q_C(0)
};

struct TreeModel {
  std::vector<TreeJoint> joints;           // tree order: joints[i].parent < i
  std::vector<int> tree_index;             // model body → tree index
  std::vector<int> extra;                  // model constraints solved as extra rows
  std::vector<std::vector<int>> children;  // tree index → child tree indices
  int nq = 0, nu = 0;                      // joint coordinates and quasi-velocities
  int nrows_extra = 0;                     // Σ rows of the extra constraints
  int ntree_rows = 0;                      // Σ rows of the tree joints
};

// The spanning forest of m's joints.  O(n + constraints).
TreeModel build_tree(const Model& m);

// Joint coordinates → maximal state: writes d.q, d.u and d.body (O(n)).
// x = (q_tree (nq), u_tree (nu)).
void tree_to_maximal(const Model& m, const TreeModel& tree, const Eigen::VectorXd& x, Data& d);
// Maximal state d.body → joint coordinates (O(n)).  Reads d.body (run kinematics first).
void tree_from_maximal(const Model& m, const TreeModel& tree, const Data& d, Eigen::VectorXd& x);
// q̇ = N(q) u of the tree coordinates (quaternion rates for spherical and free joints).
void tree_qdot(const TreeModel& tree, const Eigen::VectorXd& x, Eigen::Ref<Eigen::VectorXd> qdot);

}  // namespace appell
