// The islands of tree_delassus (engine/contact/delassus.hpp): the rows' islands, their
// bodies' subtrees and the rows of each, the bodies free on their own, how each island's
// block of G is kept (dense, sparse, factored or closed) and, after the rows, completed.
#include <algorithm>

#include "engine/contact/delassus_steps.hpp"

namespace appell::delassus_detail {

namespace {

// S symmetric in place, S of a symmetric pattern: (j, k) and (k, j) averaged
void symmetrize(Eigen::SparseMatrix<double>& S) {
  S.resizeNonZeros(S.outerIndexPtr()[S.cols()]);
  const int* outer = S.outerIndexPtr();
  const int* inner = S.innerIndexPtr();
  double* value = S.valuePtr();
  for (int k = 0; k < S.cols(); ++k)
    for (int p = outer[k]; p < outer[k + 1]; ++p) {
      const int j = inner[p];
      if (j <= k) continue;
      const int q =
          static_cast<int>(std::lower_bound(inner + outer[j], inner + outer[j + 1], k) - inner);
      if (q < outer[j + 1] && inner[q] == k)  // always: the pattern is symmetric
        value[p] = value[q] = 0.5 * (value[p] + value[q]);
    }
}

}  // namespace

// the island of each row, and the blocks
void DelassusByRecursion::find_islands() {
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
}

// Without bilateral extra rows a unit force moves only the subtrees (hanging from the
// world) of the row's two bodies: the passes run over those alone when each subtree is
// contiguous in tree order (top joints non-decreasing), else over the whole tree.
void DelassusByRecursion::find_subtrees() {
  top.resize(nj);
  end.assign(nj, nj);
  for (int i = 0; i < nj; ++i) top[i] = tree.joints[i].parent < 0 ? i : top[tree.joints[i].parent];
  local = nb == 0 && std::is_sorted(top.begin(), top.end());
  sparse = local && first && support;
  if (support) {
    support->dense = !sparse;
    support->joint_space = false;
    support->dofs.resize(n);
    support->offset.resize(n);
    support->values.clear();
  }
  if (!sparse && (response.rows() != tree.nu || response.cols() != n)) response.resize(tree.nu, n);
}

// per row, the top joints of its bodies' subtrees (−1: the world); per top, its rows
void DelassusByRecursion::find_rows_of_tops() {
  row_tops.resize(sparse ? n : 0);
  top_start.assign(sparse ? nj + 1 : 0, 0);
  if (!sparse) return;
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

// per body: free on its own (a root joint of six velocities on that body alone, no
// armature, nothing welded to it), where a low-rank island's factor is the body's
void DelassusByRecursion::find_free_bodies() {
  free_body.assign(sparse ? m.nbody() : 0, 0);
  if (!sparse || !d.composite.empty()) return;
  for (int i = 0; i < nj; ++i) {
    const int b = tree.joints[i].body;
    if (b >= 0 && b < m.nbody()) free_body[b] = free_body[b] || free_on_its_own(m, i);
  }
  for (size_t t = 0; t < tree.joints.size(); ++t)
    if (!tree.children[t].empty()) free_body[tree.joints[t].body] = 0;
}

// an island is low-rank when it is large, on free bodies alone, with more rows than
// velocities; else sparse when it is large and its rows' partners few
void DelassusByRecursion::choose_blocks() {
  closed.assign(blocked ? islands->size() : 0, 0);
  if (!blocked) return;
  for (size_t i = 0; i < islands->size(); ++i) {
    const int k0 = island_start[i];
    const int len = island_length(i);
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
}

// each island's block completed: a closed island's by body, a factored island's B, the
// others symmetric
void DelassusByRecursion::finish_islands() {
  for (size_t i = 0; i < islands->size(); ++i) {
    IslandMatrix& I = (*islands)[i];
    if (closed[i] && !I.factored) {
      closed_form_block(rows, island_start[i], static_cast<int>(I.dense.rows()), yk, rk, w.by_body,
                        I.dense);
      continue;
    }
    if (I.factored) {
      const int k0 = island_start[i];
      const int len = island_length(i);
      low_rank_columns(rows, k0, len, free_body, w.column);  // (the last island's there)
      low_rank_factor(m, d, rows, k0, len, w.column, I.low_rank);
      continue;
    }
    if (I.sparse) {  // the pattern is symmetric: average (j, k) and (k, j) in place
      symmetrize(I.coupled);
      continue;
    }
    Eigen::MatrixXd& B = I.dense;  // symmetric in place (no temporary)
    for (Eigen::Index j = 0; j < B.rows(); ++j)
      for (Eigen::Index k = j + 1; k < B.cols(); ++k) B(j, k) = B(k, j) = 0.5 * (B(j, k) + B(k, j));
  }
}

// G symmetric without islands' blocks: whole, or within each island
void DelassusByRecursion::symmetrize_G() {
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

}  // namespace appell::delassus_detail
