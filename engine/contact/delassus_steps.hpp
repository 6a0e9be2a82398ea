// The Delassus operator's steps (engine/contact/delassus.hpp), private to its files:
//   delassus.cpp             the rows (point_row, joint_row), a response applied
//                            (add_response) and the rows' velocities (row_velocities)
//   delassus_tree.cpp        tree_delassus: the recursion's unit-force passes per row, its
//                            islands and their dense, sparse or factored blocks
//   delassus_free_bodies.cpp the closed forms of rows on free bodies alone: one-body
//                            islands, a closed island's block, a low-rank island's factor
#pragma once

#include <utility>
#include <vector>

#include "engine/contact/delassus.hpp"
#include "engine/formulations/recursive/workspace.hpp"

namespace appell::delassus_detail {

constexpr int kSparseIsland = 48;  // rows from which an island's G may be kept sparse

// J_k V: row r's velocity at the tree joints' twists V
inline double row_dot(const Model& m, const TwistRow& r, const std::vector<SpatialMotion>& V) {
  double s = 0.0;
  for (int k = 0; k < 2; ++k) {
    const int b = r.body[k];
    if (b == kWorld) continue;
    const SpatialMotion& v = V[m.tree().tree_index[b]];
    s += r.term[k].force.dot(v.linear);
    if (m.bodies()[b].rigid()) s += r.term[k].moment.dot(v.angular);
  }
  return s;
}

// Whether tree joint i is free on its own: a root joint of six velocities on its body
// alone, no armature, nothing hanging from it (with nothing welded: d.composite empty)
inline bool free_on_its_own(const Model& m, int i) {
  const TreeJoint& t = m.tree().joints[i];
  return t.parent < 0 && t.nu == 6 && t.armature == 0 && m.tree().children[i].empty() &&
         m.bodies()[t.body].rigid();
}

// y = Sᵀ f: side s of row r as joint forces on its body's six velocities (a free joint's)
inline Vec6 joint_force(const RecursiveWorkspace& ws, const TreeJoint& t, const TwistRow& r,
                        int s) {
  const Eigen::Map<const Eigen::Matrix<double, 6, 6>> S(ws.S[t.u_offset].data());
  return S.topRows<3>().transpose() * r.term[s].force +
         S.bottomRows<3>().transpose() * r.term[s].moment;
}

// D⁻¹ of tree joint i (the articulated inertia on its velocities, inverted)
inline Eigen::Map<const Eigen::Matrix<double, 6, 6>> dinv_of(const RecursiveWorkspace& ws, int i) {
  return Eigen::Map<const Eigen::Matrix<double, 6, 6>>(ws.Dinv.data() + ws.dinv_offset[i]);
}

// The closed forms of rows on free bodies alone (delassus_free_bodies.cpp, where each is
// described): B's columns of a low-rank island, whether an island's rows are all on free
// bodies, its factor B, a closed island's block of G, and the islands of one body each
int low_rank_columns(const std::vector<TwistRow>& rows, int k0, int len,
                     const std::vector<int>& free_body, std::vector<int>& column);
bool all_free(const std::vector<TwistRow>& rows, int k0, int len,
              const std::vector<int>& free_body);
void low_rank_factor(const Model& m, const Data& d, const std::vector<TwistRow>& rows, int k0,
                     int len, const std::vector<int>& column, LowRankDelassus& L);
void closed_form_block(const std::vector<TwistRow>& rows, int k0, int len,
                       const std::vector<Vec6>& y, const std::vector<Vec6>& r,
                       std::vector<std::pair<int, int>>& by_body, Eigen::MatrixXd& B);
bool one_body_islands(const Model& m, const Data& d, const RecursiveWorkspace& ws,
                      const std::vector<TwistRow>& rows, const std::vector<int>& first,
                      ResponseSupport& support, std::vector<IslandMatrix>& islands,
                      Eigen::VectorXd* tree_diagonal, DelassusScratch& w);

}  // namespace appell::delassus_detail
