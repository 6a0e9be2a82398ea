// The spanning tree of a Model's joints and its joint coordinates (docs/architecture.md,
// `recursive`).
//
// Tree.  The joints are the edges of a graph on the bodies and the world.  A breadth-first
// search from the world gives a spanning forest in which every body's parent precedes it
// (STYLE §1: parent[i] < i).  Bodies not reached from the world become roots of their own
// subtrees on a free joint (a particle joint for a particle: x̄, v̄).  Every body is in the
// tree, welded ones too (on their nu = 0 joints, which pass a child's inertia to its parent
// in the recursion); the maximal coordinates carry the composites (appell/model.hpp).  A joint is
// traversed in either direction: when its Joint::child() is reached first the joint is "reversed":
// its two frames trade places (JointType::reversed_axes), so that the tree parent is
// always the frame's parent.  Joints that close loops, joints that would make a particle a
// tree child (a particle has no rotation for the joint to act on), and every non-joint
// constraint become extra rows (engine/formulations/recursive.hpp).
//
// Coordinates.  Tree joint i has the coordinates q_i (nq_i) and quasi-velocities u_i (nu_i)
// of its JointType (appell/joint_type.hpp, J1–J4), at q_offset and u_offset of the
// tree's q (nq) and u (nu).  nq ≠ nu in general.
#pragma once

#include <vector>

#include "appell/body.hpp"
#include "appell/joint_type.hpp"

namespace appell {

// One edge of the tree: the joint that carries tree body i.  Constant.
struct TreeJoint {
  const JointType* type = nullptr;
  int body = 0;                            // model index of the child C
  int parent = -1;                         // tree index of the parent, −1 for the world
  int parent_body = kWorld;                // model index of the parent P
  int constraint = -1;                     // model constraint index of the joint, −1 for roots
  bool reversed = false;                   // the tree runs the joint from its child to its parent
  JointShape shape = JointShape::General;  // type->shape()
  int nq = 0, nu = 0;
  int rows = 0;         // the joint's canonical rows (0 for roots)
  double armature = 0;  // added to the mass matrix's diagonal at each of its nu (JointProperties)
  int q_offset = 0, u_offset = 0;
  JointFrames frames;  // P's frame first (swapped when the joint is reversed)
};

struct TreeModel {
  std::vector<TreeJoint> joints;           // tree order: joints[i].parent < i
  std::vector<int> tree_index;             // model body → tree index
  std::vector<int> extra;                  // model constraints solved as extra rows
  std::vector<std::vector<int>> children;  // tree index → child tree indices
  int nq = 0, nu = 0;                      // joint coordinates and quasi-velocities
  // model force → the tree index of its joint (Force::joint_space) when the tree runs that
  // joint in its own direction, so that the force reads the joint's q, u in a State; −1
  // for every other force
  std::vector<int> force_joint;
  int nrows_extra = 0;  // Σ rows of the extra constraints
  int ntree_rows = 0;   // Σ rows of the tree joints
};

// The world-frame state of tree body C from its parent's state P and its joint's q, u
// (J1, J2); `jm` receives the joint's motion (R, d, S, Ṡu) and V_J = S u, both in the
// parent joint frame.  O(1).
void joint_kinematics(const TreeJoint& j, const BodyState& P, const double* q, const double* u,
                      BodyState& C, JointMotion& jm, Vec6& V_J);
// The same, also giving QE = Q_P E_P, the parent joint frame's axes in the world.
void joint_kinematics(const TreeJoint& j, const BodyState& P, const double* q, const double* u,
                      BodyState& C, JointMotion& jm, Vec6& V_J, Mat3& QE);

}  // namespace appell
