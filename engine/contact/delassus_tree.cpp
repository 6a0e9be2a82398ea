// tree_delassus (engine/contact/delassus.hpp): G and the responses R Jᵀ by the recursion's
// unit-force passes (R12), one row at a time, with the bilateral rows' reaction (R13); the
// rows in islands, a closed island's rows on free bodies alone in closed form
// (delassus_free_bodies.cpp), and a small tree's G in its joint space
// (joint_space_delassus.cpp).
#include <algorithm>
#include <array>

#include "engine/contact/delassus_steps.hpp"

namespace appell {

namespace {

using delassus_detail::all_free;
using delassus_detail::closed_form_block;
using delassus_detail::dinv_of;
using delassus_detail::free_on_its_own;
using delassus_detail::joint_force;
using delassus_detail::kSparseIsland;
using delassus_detail::low_rank_columns;
using delassus_detail::low_rank_factor;
using delassus_detail::one_body_islands;
using delassus_detail::row_dot;

// row r's wrenches times lam added into the bodies' forces ws.w[i].f
void add_row(const Model& m, const TwistRow& r, double lam, RecursiveWorkspace& ws) {
  for (int s = 0; s < 2; ++s) {
    const int b = r.body[s];
    if (b == kWorld) continue;
    SpatialForce& f = ws.w[m.tree().tree_index[b]].f;
    f.force += lam * r.term[s].force;
    if (m.bodies()[b].rigid()) f.moment += lam * r.term[s].moment;
  }
}

}  // namespace

void tree_delassus(const Model& m, Data& d, const std::vector<TwistRow>& rows, Eigen::MatrixXd& G,
                   Eigen::MatrixXd& response, const std::vector<int>* first,
                   ResponseSupport* support, std::vector<IslandMatrix>* islands,
                   Eigen::VectorXd* tree_diagonal, DelassusScratch* scratch) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  DelassusScratch own;
  DelassusScratch& w = scratch ? *scratch : own;
  if (first && support && islands &&
      one_body_islands(m, d, ws, rows, *first, *support, *islands, tree_diagonal, w))
    return;
  const TreeModel& tree = m.tree();
  const int n = static_cast<int>(rows.size()), nb = tree.nrows_extra;
  const int nj = static_cast<int>(tree.joints.size());
  // the island of each row, and the blocks
  const bool blocked = first && islands;
  std::vector<int>& island = w.island;
  std::vector<int>& island_start = w.island_start;
  island.resize(blocked ? n : 0);
  island_start.clear();
  if (blocked) {
    for (int k = 0; k < n; ++k) {
      if ((*first)[k] == k) island_start.push_back(k);
      island[k] = static_cast<int>(island_start.size()) - 1;
    }
    islands->resize(island_start.size());
  } else if (G.rows() != n || G.cols() != n) {
    G.resize(n, n);
  }

  // Without bilateral extra rows a unit force moves only the subtrees (hanging from the
  // world) of the row's two bodies: the passes run over those alone when each subtree is
  // contiguous in tree order (top joints non-decreasing), else over the whole tree.
  std::vector<int>& top = w.top;
  std::vector<int>& end = w.end;
  top.resize(nj);
  end.assign(nj, nj);
  for (int i = 0; i < nj; ++i) top[i] = tree.joints[i].parent < 0 ? i : top[tree.joints[i].parent];
  const bool local = nb == 0 && std::is_sorted(top.begin(), top.end());
  const bool sparse = local && first && support;
  if (support) {
    support->dense = !sparse;
    support->joint_space = false;
    support->dofs.resize(n);
    support->offset.resize(n);
    support->values.clear();
  }
  if (!sparse && (response.rows() != tree.nu || response.cols() != n)) response.resize(tree.nu, n);
  // per row, the top joints of its bodies' subtrees (−1: the world); per top, its rows
  std::vector<std::array<int, 2>>& row_tops = w.row_tops;
  std::vector<int>&top_start = w.top_start, &top_rows = w.top_rows, &seen = w.seen;
  row_tops.resize(sparse ? n : 0);
  top_start.assign(sparse ? nj + 1 : 0, 0);
  // the top of row k's body s, −1 for the world or for a second body in the first's subtree
  const auto distinct_top = [&](int k, int s) {
    const int t = row_tops[k][s];
    return s == 1 && t == row_tops[k][0] ? -1 : t;
  };
  if (sparse) {
    for (int k = 0; k < n; ++k) {
      for (int s = 0; s < 2; ++s) {
        const int b = rows[k].body[s];
        row_tops[k][s] = b == kWorld ? -1 : top[tree.tree_index[b]];
      }
      for (int s = 0; s < 2; ++s)
        if (distinct_top(k, s) >= 0) ++top_start[distinct_top(k, s) + 1];
    }
    for (int t = 0; t < nj; ++t) top_start[t + 1] += top_start[t];
    top_rows.resize(top_start[nj]);
    std::vector<int>& fill = w.fill;
    fill.assign(top_start.begin(), top_start.end() - 1);
    for (int k = 0; k < n; ++k)
      for (int s = 0; s < 2; ++s)
        if (distinct_top(k, s) >= 0) top_rows[fill[distinct_top(k, s)]++] = k;
    seen.assign(n, -1);
  }
  const auto partners = [&](int k) {  // rows sharing a subtree with row k, with repeats
    int count = 0;
    for (int s = 0; s < 2; ++s)
      if (const int t = distinct_top(k, s); t >= 0) count += top_start[t + 1] - top_start[t];
    return count;
  };
  // per body: free on its own (a root joint of six velocities on that body alone, no
  // armature, nothing welded to it), where a low-rank island's factor is the body's
  std::vector<int>& free_body = w.free_body;
  free_body.assign(sparse ? m.nbody() : 0, 0);
  if (sparse && d.composite.empty()) {
    for (int i = 0; i < nj; ++i) {
      const int b = tree.joints[i].body;
      if (b >= 0 && b < m.nbody()) free_body[b] = free_body[b] || free_on_its_own(m, i);
    }
    for (size_t t = 0; t < tree.joints.size(); ++t)
      if (!tree.children[t].empty()) free_body[tree.joints[t].body] = 0;
  }
  // an island is low-rank when it is large, on free bodies alone, with more rows than
  // velocities; else sparse when it is large and its rows' partners few
  std::vector<char>& closed = w.closed;
  closed.assign(blocked ? islands->size() : 0, 0);
  if (blocked)
    for (size_t i = 0; i < islands->size(); ++i) {
      const int k0 = island_start[i];
      const int len = (i + 1 < island_start.size() ? island_start[i + 1] : n) - k0;
      IslandMatrix& B = (*islands)[i];
      B.factored = sparse && len >= kSparseIsland &&
                   low_rank_columns(rows, k0, len, free_body, w.column) < len;
      // its rows on free bodies alone, G dense or factored: their responses and G by the
      // closed form below
      closed[i] = B.factored;
      if (B.factored) {
        B.sparse = false;
        B.dense.resize(0, 0);
        continue;
      }
      long count = 0;
      if (sparse)
        for (int k = k0; k < k0 + len; ++k) count += partners(k);
      B.sparse = sparse && len >= kSparseIsland && count < 0.5 * len * static_cast<double>(len);
      if (B.sparse) {
        // filled column by column below, in place: the storage of the last step is reused
        B.coupled.resize(len, len);
        B.coupled.resizeNonZeros(count);
        B.coupled.outerIndexPtr()[0] = 0;
        B.dense.resize(0, 0);
      } else {
        B.dense.resize(len, len);
        closed[i] = sparse && all_free(rows, k0, len, free_body);
      }
    }
  // a small tree (a robot on its feet, an arm): G in its joint space, where no island is on
  // free bodies alone (their closed form is cheaper still)
  if (blocked && support && joint_space_applies(m, d) &&
      std::none_of(closed.begin(), closed.end(), [](char c) { return c != 0; }) &&
      joint_space_delassus(m, d, ws, rows, island_start, *islands, *support, tree_diagonal,
                           w.joint_space))
    return;
  const auto u_begin = [&](int i) { return i < nj ? tree.joints[i].u_offset : tree.nu; };
  for (int i = nj - 1, next = nj; i >= 0; --i)
    if (top[i] == i) {
      end[i] = next;
      next = i;
    }
  Eigen::VectorXd &e = w.e, &y = w.y;
  e.resize(nb);
  y.resize(nb);
  std::vector<SpatialMotion>& a = w.a;
  a.assign(ws.w.size(), SpatialMotion());
  if (tree_diagonal) tree_diagonal->resize(n);
  // a row on free bodies alone (closed islands): per body y = Sᵀ f of its wrench f, its
  // response D⁻¹ y on the body's six velocities and G_jk = Σ y_jᵀ D⁻¹ y_k over the bodies
  // the rows share — the recursion's passes for a one-body tree, (R7)–(R9), in closed form
  std::vector<Vec6>& yk = w.y6;
  yk.resize(2 * static_cast<size_t>(n));
  if (blocked)
    for (int k = 0; k < n; ++k)
      if (closed[island[k]])
        for (int s = 0; s < 2; ++s) {
          const int b = rows[k].body[s];
          if (b == kWorld) continue;
          yk[2 * k + s] = joint_force(ws, tree.joints[tree.tree_index[b]], rows[k], s);
        }
  std::vector<Vec6>& rk = w.r6;  // and its response D⁻¹ y
  rk.resize(yk.size());
  for (int k = 0; k < n; ++k) {
    if (blocked && closed[island[k]]) {
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
      continue;  // G after the rows: by body below (a factored island's from its masses)
    }
    int ranges[2][2] = {{0, nj}, {0, 0}};
    if (local) {
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
    }
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
      extra_rows_times_a(m, tree, d, ws, e);
      solve_extra_pinv(tree, d, ws, -e, y);
      add_extra_row_forces(m, tree, d, y, ws);
      bias_TipToBase(tree, ws, false);
      accelerations_BaseToTip(tree, ws, false);
    }
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
      for (int j = j0; j < n && (!first || (*first)[j] == j0); ++j)
        G(j, k) = row_dot(m, rows[j], a);
    }
    if (tree_diagonal && nb == 0) (*tree_diagonal)(k) = row_dot(m, rows[k], a);
    if (local)  // what the next row does not move reads as zero
      for (const auto& r : ranges)
        for (int i = r[0]; i < r[1]; ++i) a[i].setZero();
  }
  if (blocked) {
    for (size_t i = 0; i < islands->size(); ++i) {
      IslandMatrix& I = (*islands)[i];
      if (closed[i] && !I.factored) {
        closed_form_block(rows, island_start[i], static_cast<int>(I.dense.rows()), yk, rk,
                          w.by_body, I.dense);
        continue;
      }
      if (I.factored) {
        const int k0 = island_start[i];
        const int len = (i + 1 < island_start.size() ? island_start[i + 1] : n) - k0;
        low_rank_columns(rows, k0, len, free_body, w.column);  // (the last island's there)
        low_rank_factor(m, d, rows, k0, len, w.column, I.low_rank);
        continue;
      }
      if (I.sparse) {  // the pattern is symmetric: average (j, k) and (k, j) in place
        Eigen::SparseMatrix<double>& S = I.coupled;
        S.resizeNonZeros(S.outerIndexPtr()[S.cols()]);
        const int* outer = S.outerIndexPtr();
        const int* inner = S.innerIndexPtr();
        double* value = S.valuePtr();
        for (int k = 0; k < S.cols(); ++k)
          for (int p = outer[k]; p < outer[k + 1]; ++p) {
            const int j = inner[p];
            if (j <= k) continue;
            const int q = static_cast<int>(
                std::lower_bound(inner + outer[j], inner + outer[j + 1], k) - inner);
            if (q < outer[j + 1] && inner[q] == k)  // always: the pattern is symmetric
              value[p] = value[q] = 0.5 * (value[p] + value[q]);
          }
        continue;
      }
      Eigen::MatrixXd& B = I.dense;  // symmetric in place (no temporary)
      for (Eigen::Index j = 0; j < B.rows(); ++j)
        for (Eigen::Index k = j + 1; k < B.cols(); ++k)
          B(j, k) = B(k, j) = 0.5 * (B(j, k) + B(k, j));
    }
    return;
  }
  if (!first) {
    G = (0.5 * (G + G.transpose())).eval();
    return;
  }
  for (int k0 = 0; k0 < n;) {  // each island's block
    int k1 = k0 + 1;
    while (k1 < n && (*first)[k1] == k0) ++k1;
    for (int j = k0; j < k1; ++j)
      for (int k = j + 1; k < k1; ++k) G(j, k) = G(k, j) = 0.5 * (G(j, k) + G(k, j));
    k0 = k1;
  }
}

}  // namespace appell
