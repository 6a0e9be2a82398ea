// tree_delassus (engine/contact/delassus.hpp): G and the responses R Jᵀ by the recursion's
// unit-force passes (R12), one row at a time, with the bilateral rows' reaction (R13); the
// rows in islands (delassus_islands.cpp), a closed island's rows on free bodies alone in
// closed form (delassus_free_bodies.cpp), and a small tree's G in its joint space
// (joint_space_delassus.cpp).
#include <algorithm>
#include <optional>

#include "engine/contact/delassus_steps.hpp"

namespace appell {

namespace delassus_detail {

namespace {

// row r's wrenches times lam added into the bodies' forces ws.w[i].f
void add_row(const Model& m, const TwistRow& r, double lam, RecursiveWorkspace& ws) {
  for (int s = 0; s < 2; ++s) {
    const int b = r.body[s];
    if (b == kWorld) continue;
    SpatialForce& f = ws.w[m.tree().tree_index[b]].f;
    // a particle's moment moves nothing: its joint's columns have no angular part
    f.force += lam * r.term[s].force;
    f.moment += lam * r.term[s].moment;
  }
}

}  // namespace

// G and the responses: the islands and their blocks' kinds, then row by row the recursion's
// passes, then each island's block completed
void DelassusByRecursion::run() {
  find_islands();
  find_subtrees();
  find_rows_of_tops();
  find_free_bodies();
  choose_blocks();
  // a small tree (a robot on its feet, an arm): G in its joint space, where no island is on
  // free bodies alone (their closed form is cheaper still)
  if (blocked && support && joint_space_applies(m, d) &&
      std::none_of(closed.begin(), closed.end(), [](char c) { return c != 0; }) &&
      joint_space_delassus(m, d, ws, rows, island_start, *islands, *support, tree_diagonal,
                           w.joint_space))
    return;
  // the unit-force passes need the articulated inertias, which the stepper's joint-space
  // route leaves out (recursive.hpp)
  if (!ws.articulated) recursive_passes(m, d);
  prepare_passes();
  respond_to_rows();
  if (blocked)
    finish_islands();
  else
    symmetrize_G();
}

// each subtree's end, the passes' vectors, and the closed islands' joint forces
void DelassusByRecursion::prepare_passes() {
  for (int i = nj - 1, next = nj; i >= 0; --i)
    if (top[i] == i) {
      end[i] = next;
      next = i;
    }
  w.e.resize(nb);
  w.y.resize(nb);
  a.assign(ws.w.size(), SpatialMotion());
  if (tree_diagonal) tree_diagonal->resize(n);
  // a row on free bodies alone (closed islands): per body y = Sᵀ f of its wrench f, its
  // response D⁻¹ y on the body's six velocities and G_jk = Σ y_jᵀ D⁻¹ y_k over the bodies
  // the rows share — the recursion's passes for a one-body tree, (R7)–(R9), in closed form
  yk.resize(2 * static_cast<size_t>(n));
  if (blocked)
    for (int k = 0; k < n; ++k)
      if (closed[island[k]])
        for (int s = 0; s < 2; ++s) {
          const int b = rows[k].body[s];
          if (b == kWorld) continue;
          yk[2 * k + s] = joint_force(ws, tree.joints[tree.tree_index[b]], rows[k], s);
        }
  rk.resize(yk.size());
}

// row k of a closed island: its response D⁻¹ y on each body and its diagonal entry
void DelassusByRecursion::closed_row(int k) {
  Vec6 r[2];  // the response on each body
  support->offset[k] = static_cast<int>(support->values.size());
  double diagonal = 0.0;
  support->dofs[k] = {0, 0, 0, 0};
  for (int s = 0, slot = 0; s < 2; ++s) {
    const int b = rows[k].body[s];
    if (b == kWorld) continue;
    const int o = tree.joints[tree.tree_index[b]].u_offset;
    r[s] = dinv_of(ws, tree.tree_index[b]) * yk[2 * k + s];
    rk[2 * k + s] = r[s];
    diagonal += yk[2 * k + s].dot(r[s]);
    support->dofs[k][2 * slot] = o;
    support->dofs[k][2 * slot + 1] = o + 6;
    support->values.insert(support->values.end(), r[s].data(), r[s].data() + 6);
    ++slot;
  }
  if (tree_diagonal) (*tree_diagonal)(k) = diagonal;
}

// the joints row k's unit force moves: its bodies' subtrees (local), else the whole tree
SubtreeRanges DelassusByRecursion::row_subtrees(int k) const {
  SubtreeRanges ranges = {{{0, nj}, {0, 0}}};
  if (!local) return ranges;
  int count = 0;
  for (int s = 0; s < 2; ++s) {
    if (rows[k].body[s] == kWorld) continue;
    const int t = top[tree.tree_index[rows[k].body[s]]];
    if (count == 1 && ranges[0][0] == t) continue;
    ranges[count][0] = t;
    ranges[count][1] = end[t];
    ++count;
  }
  if (count < 2) ranges[1][0] = ranges[1][1] = 0;
  if (count == 0) ranges[0][0] = ranges[0][1] = 0;
  return ranges;
}

// the recursion's response to a unit force on row k: ws.udot and the bodies' ws.w[i].a
void DelassusByRecursion::unit_force_passes(int k, const SubtreeRanges& ranges) {
  for (const auto& r : ranges)
    for (int i = r[0]; i < r[1]; ++i) ws.w[i].f.setZero();
  add_row(m, rows[k], 1.0, ws);
  for (const auto& r : ranges) {
    if (r[0] == r[1]) continue;
    bias_TipToBase(tree, ws, false, r[0], r[1]);
    accelerations_BaseToTip(tree, ws, false, r[0], r[1]);
  }
  if (tree_diagonal && nb > 0) {  // the row's response before the bilateral rows act
    for (size_t i = 0; i < ws.w.size(); ++i) a[i] = ws.w[i].a;
    (*tree_diagonal)(k) = row_dot(m, rows[k], a);
  }
  if (nb > 0) {  // the bilateral rows' reaction keeps A a = 0               (R13)
    extra_rows_times_a(m, tree, d, ws, w.e);
    solve_extra_pinv(tree, d, ws, -w.e, w.y);
    add_extra_row_forces(m, tree, d, w.y, ws);
    bias_TipToBase(tree, ws, false);
    accelerations_BaseToTip(tree, ws, false);
  }
}

// row k's response kept (packed on its subtrees, or as response's column k) and the
// bodies' accelerations in a
void DelassusByRecursion::store_response(int k, const SubtreeRanges& ranges) {
  if (sparse) {
    support->offset[k] = static_cast<int>(support->values.size());
    for (int s = 0; s < 2; ++s) {
      const int b = u_begin(ranges[s][0]);
      const int e = ranges[s][0] == ranges[s][1] ? b : u_begin(ranges[s][1]);
      support->dofs[k][2 * s] = b;
      support->dofs[k][2 * s + 1] = e;
      support->values.insert(support->values.end(), ws.udot.data() + b, ws.udot.data() + e);
      for (int i = ranges[s][0]; i < ranges[s][1]; ++i) a[i] = ws.w[i].a;
    }
  } else if (local) {
    response.col(k).setZero();
    for (const auto& r : ranges)
      for (int i = r[0]; i < r[1]; ++i) {
        const TreeJoint& t = tree.joints[i];
        response.col(k).segment(t.u_offset, t.nu) = ws.udot.segment(t.u_offset, t.nu);
        a[i] = ws.w[i].a;
      }
  } else {
    response.col(k) = ws.udot;
    for (size_t i = 0; i < ws.w.size(); ++i) a[i] = ws.w[i].a;
  }
}

// G's column k from the bodies' accelerations in a
void DelassusByRecursion::store_column(int k) {
  // within the island: rows from its first to the next island's first
  const int j0 = first ? (*first)[k] : 0;
  if (blocked && (*islands)[island[k]].factored) {
    // formed after the rows, from the bodies' masses
  } else if (blocked && (*islands)[island[k]].sparse) {
    // column k − j0: the rows sharing a subtree with row k, in order
    Eigen::SparseMatrix<double>& S = (*islands)[island[k]].coupled;
    int* inner = S.innerIndexPtr();
    const int begin = S.outerIndexPtr()[k - j0];
    int past = begin;  // one past the column's last entry
    for (int s = 0; s < 2; ++s) {
      const int t = distinct_top(k, s);
      if (t < 0) continue;
      for (int p = top_start[t]; p < top_start[t + 1]; ++p) {
        const int j = top_rows[p];
        if (seen[j] == k) continue;
        seen[j] = k;
        inner[past++] = j - j0;
      }
    }
    std::sort(inner + begin, inner + past);
    for (int p = begin; p < past; ++p) S.valuePtr()[p] = row_dot(m, rows[inner[p] + j0], a);
    S.outerIndexPtr()[k - j0 + 1] = past;
  } else if (blocked) {
    Eigen::MatrixXd& B = (*islands)[island[k]].dense;
    for (int j = j0; j < j0 + B.rows(); ++j) B(j - j0, k - j0) = row_dot(m, rows[j], a);
  } else {
    for (int j = j0; j < n && (!first || (*first)[j] == j0); ++j) G(j, k) = row_dot(m, rows[j], a);
  }
}

// every row's response and column of G, a closed island's row by its closed form
void DelassusByRecursion::respond_to_rows() {
  for (int k = 0; k < n; ++k) {
    if (blocked && closed[island[k]]) {
      closed_row(k);
      continue;  // G after the rows: by body later (a factored island's from its masses)
    }
    const SubtreeRanges ranges = row_subtrees(k);
    unit_force_passes(k, ranges);
    store_response(k, ranges);
    store_column(k);
    if (tree_diagonal && nb == 0) (*tree_diagonal)(k) = row_dot(m, rows[k], a);
    if (local)  // what the next row does not move reads as zero
      for (const auto& r : ranges)
        for (int i = r[0]; i < r[1]; ++i) a[i].setZero();
  }
}

}  // namespace delassus_detail

void tree_delassus(const Model& m, Data& d, const std::vector<TwistRow>& rows, Eigen::MatrixXd& G,
                   Eigen::MatrixXd& response, const std::vector<int>* first,
                   ResponseSupport* support, std::vector<IslandMatrix>* islands,
                   Eigen::VectorXd* tree_diagonal, DelassusScratch* scratch) {
  using delassus_detail::DelassusByRecursion;
  using delassus_detail::one_body_islands;
  using delassus_detail::one_body_rows;
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  std::optional<DelassusScratch> own;  // only when the caller keeps none
  DelassusScratch& w = scratch ? *scratch : own.emplace();
  if (first && support && islands && one_body_rows(m, d, rows, *first, w)) {
    if (!ws.articulated) recursive_passes(m, d);  // D⁻¹ of the bodies' joints
    one_body_islands(m, ws, rows, *first, *support, *islands, tree_diagonal, w);
    return;
  }
  DelassusByRecursion call{m, d, rows, G, response, first, support, islands, tree_diagonal, w, ws};
  call.run();
}

}  // namespace appell
