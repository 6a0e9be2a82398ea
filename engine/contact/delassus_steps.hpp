// The Delassus operator's steps (engine/contact/delassus.hpp), private to its files:
//   delassus.cpp             the rows (point_row, joint_row), a response applied
//                            (add_response) and the rows' velocities (row_velocities)
//   delassus_tree.cpp        tree_delassus: the recursion's unit-force passes, row by row
//   delassus_islands.cpp     the rows' islands and subtrees, and how each island's block
//                            of G is kept (dense, sparse, factored, closed) and completed
//   delassus_free_bodies.cpp the closed forms of rows on free bodies alone: one-body
//                            islands, a closed island's block, a low-rank island's factor
#pragma once

#include <array>
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
    s += r.term[k].force.dot(v.linear) + r.term[k].moment.dot(v.angular);  // a particle's ω: 0
  }
  return s;
}

// Whether tree joint i is free on its own: a root joint of six velocities (so a rigid
// body's: a particle's has three) on its body alone, no armature, nothing hanging from it
// (with nothing welded: d.composite empty)
inline bool free_on_its_own(const Model& m, int i) {
  const TreeJoint& t = m.tree().joints[i];
  return t.parent < 0 && t.nu == 6 && t.armature == 0 && m.tree().children[i].empty();
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
bool one_body_rows(const Model& m, const Data& d, const std::vector<TwistRow>& rows,
                   const std::vector<int>& first, DelassusScratch& w);
void one_body_islands(const Model& m, const RecursiveWorkspace& ws,
                      const std::vector<TwistRow>& rows, const std::vector<int>& first,
                      ResponseSupport& support, std::vector<IslandMatrix>& islands,
                      Eigen::VectorXd* tree_diagonal, DelassusScratch& w);

// a row's joints [begin, end) that its unit force moves, one range per subtree
using SubtreeRanges = std::array<std::array<int, 2>, 2>;

// One call of tree_delassus: its arguments and what its steps share, the vectors kept in
// DelassusScratch (nothing allocated once they hold a step's rows)
struct DelassusByRecursion {
  const Model& m;
  Data& d;
  const std::vector<TwistRow>& rows;
  Eigen::MatrixXd& G;
  Eigen::MatrixXd& response;
  const std::vector<int>* first;
  ResponseSupport* support;
  std::vector<IslandMatrix>* islands;
  Eigen::VectorXd* tree_diagonal;
  DelassusScratch& w;
  RecursiveWorkspace& ws;
  const TreeModel& tree = m.tree();
  const int n = static_cast<int>(rows.size()), nb = tree.nrows_extra;
  const int nj = static_cast<int>(tree.joints.size());
  const bool blocked = first && islands;
  bool local = false;   // the passes run over the rows' subtrees alone
  bool sparse = false;  // and each row's response is kept packed, on its subtrees
  std::vector<int>& island = w.island;
  std::vector<int>& island_start = w.island_start;
  std::vector<int>& top = w.top;
  std::vector<int>& end = w.end;
  std::vector<std::array<int, 2>>& row_tops = w.row_tops;
  std::vector<int>&top_start = w.top_start, &top_rows = w.top_rows, &seen = w.seen;
  std::vector<int>& free_body = w.free_body;
  std::vector<char>& closed = w.closed;
  std::vector<SpatialMotion>& a = w.a;
  std::vector<Vec6>& yk = w.y6;  // a closed island's row and side: y = Sᵀ f of its wrench
  std::vector<Vec6>& rk = w.r6;  // and its response D⁻¹ y

  // the top of row k's body s, −1 for the world or for a second body in the first's subtree
  int distinct_top(int k, int s) const {
    const int t = row_tops[k][s];
    return s == 1 && t == row_tops[k][0] ? -1 : t;
  }
  // rows sharing a subtree with row k, with repeats
  int partners(int k) const {
    int count = 0;
    for (int s = 0; s < 2; ++s)
      if (const int t = distinct_top(k, s); t >= 0) count += top_start[t + 1] - top_start[t];
    return count;
  }
  // the first velocity of tree joint i (nu past the last joint)
  int u_begin(int i) const { return i < nj ? tree.joints[i].u_offset : tree.nu; }
  // the number of rows of island i
  int island_length(size_t i) const {
    return (i + 1 < island_start.size() ? island_start[i + 1] : n) - island_start[i];
  }

  // the islands and how each block is kept (delassus_islands.cpp)
  void find_islands();
  void find_subtrees();
  void find_rows_of_tops();
  void find_free_bodies();
  void choose_blocks();
  void finish_islands();
  void symmetrize_G();
  // the recursion's passes, row by row (delassus_tree.cpp)
  void run();
  void prepare_passes();
  void closed_row(int k);
  SubtreeRanges row_subtrees(int k) const;
  void unit_force_passes(int k, const SubtreeRanges& ranges);
  void store_response(int k, const SubtreeRanges& ranges);
  void store_column(int k);
  void respond_to_rows();
};

}  // namespace appell::delassus_detail
