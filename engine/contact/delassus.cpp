// Delassus operator on the tree (engine/contact/delassus.hpp).
#include "engine/contact/delassus.hpp"

#include <algorithm>

#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

TwistRow point_row(const Data& d, int body_a, int body_b, const Vec3& p, const Vec3& dir) {
  TwistRow r;
  const int bodies[2] = {body_a, body_b};
  const double sign[2] = {-1.0, 1.0};
  for (int s = 0; s < 2; ++s) {
    r.body[s] = bodies[s];
    if (bodies[s] == kWorld) continue;
    r.term[s].force = sign[s] * dir;
    r.term[s].moment = sign[s] * (p - d.body[bodies[s]].x).cross(dir);
  }
  return r;
}

TwistRow joint_row(const Model& m, Data& d, int tree_joint) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  const TreeJoint& t = m.tree().joints[tree_joint];
  const Vec6& S = ws.S[t.u_offset];
  const Vec6 w = S / S.squaredNorm();
  TwistRow r;
  r.body[1] = t.body;
  r.term[1].force = w.head<3>();
  r.term[1].moment = w.tail<3>();
  r.body[0] = t.parent_body;
  if (t.parent_body != kWorld) {
    // the opposite force at the child's centre, as a wrench about the parent's
    const Vec3 rr = d.body[t.body].x - d.body[t.parent_body].x;
    r.term[0].force = -w.head<3>();
    r.term[0].moment = -w.tail<3>() - rr.cross(Vec3(w.head<3>()));
  }
  return r;
}

namespace {

constexpr int kSparseIsland = 48;  // rows from which an island's G may be kept sparse

void add_row(const Model& m, const TwistRow& r, double lam, RecursiveWorkspace& ws) {
  for (int s = 0; s < 2; ++s) {
    const int b = r.body[s];
    if (b == kWorld) continue;
    SpatialForce& f = ws.w[m.tree().tree_index[b]].f;
    f.force += lam * r.term[s].force;
    if (m.bodies()[b].rigid()) f.moment += lam * r.term[s].moment;
  }
}

double row_dot(const Model& m, const TwistRow& r, const std::vector<SpatialMotion>& V) {
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

// The columns of B for rows [k0, k0 + len): 6 per body the rows touch, in `column` (per
// body, −1 elsewhere); their number, or len when a row touches a body that is not free.
int low_rank_columns(const std::vector<TwistRow>& rows, int k0, int len,
                     const std::vector<int>& free_body, std::vector<int>& column) {
  column.assign(free_body.size(), -1);
  int count = 0;
  for (int k = k0; k < k0 + len; ++k)
    for (int s = 0; s < 2; ++s) {
      const int b = rows[k].body[s];
      if (b == kWorld) continue;
      if (!free_body[b]) return len;
      if (column[b] < 0) {
        column[b] = count;
        count += 6;
      }
    }
  return count;
}

// every row of [k0, k0 + len) on free bodies alone (or the world)
bool all_free(const std::vector<TwistRow>& rows, int k0, int len,
              const std::vector<int>& free_body) {
  for (int k = k0; k < k0 + len; ++k)
    for (int s = 0; s < 2; ++s)
      if (rows[k].body[s] != kWorld && !free_body[rows[k].body[s]]) return false;
  return true;
}

// B = J L⁻ᵀ of rows [k0, k0 + len) (LowRankDelassus): a body's part of a row's B is
// (f/√m, L⁻¹ τ) for its (force, moment) terms, M_b = diag(m I, L Lᵀ), L the Cholesky factor
// of the world inertia at the centre of mass.  Row by row in place, with its diagonal.
void low_rank_factor(const Model& m, const Data& d, const std::vector<TwistRow>& rows, int k0,
                     int len, const std::vector<int>& column, LowRankDelassus& L) {
  int ncol = 0;
  for (int c : column) ncol = std::max(ncol, c + 6);
  Eigen::SparseMatrix<double, Eigen::RowMajor>& B = L.B;
  L.factor.resize(m.nbody());
  L.factor_of.resize(m.nbody(), 0);
  ++L.stamp;
  B.resize(len, ncol);
  B.resizeNonZeros(12 * len);
  L.diagonal.resize(len);
  int* outer = B.outerIndexPtr();
  int* inner = B.innerIndexPtr();
  double* value = B.valuePtr();
  outer[0] = 0;
  for (int k = 0; k < len; ++k) {
    const TwistRow& r = rows[k0 + k];
    int p = outer[k];
    // the row's bodies in the order of their columns
    int order[2] = {0, 1};
    if (r.body[0] != kWorld && r.body[1] != kWorld && column[r.body[1]] < column[r.body[0]])
      std::swap(order[0], order[1]);
    for (int s : order) {
      const int b = r.body[s];
      if (b == kWorld) continue;
      const double root_mass = std::sqrt(m.bodies()[b].mass);
      const Vec3 f = r.term[s].force / root_mass;
      if (L.factor_of[b] != L.stamp) {  // the body's L, once per call
        L.factor[b] = d.J[b].llt().matrixL();
        L.factor_of[b] = L.stamp;
      }
      const Vec3 tau = L.factor[b].triangularView<Eigen::Lower>().solve(Vec3(r.term[s].moment));
      for (int j = 0; j < 3; ++j) {
        inner[p] = column[b] + j;
        value[p++] = f(j);
      }
      for (int j = 0; j < 3; ++j) {
        inner[p] = column[b] + 3 + j;
        value[p++] = tau(j);
      }
    }
    outer[k + 1] = p;
    L.diagonal(k) = Eigen::Map<const Eigen::VectorXd>(value + outer[k], p - outer[k]).squaredNorm();
  }
  B.resizeNonZeros(outer[len]);
}

}  // namespace

namespace {

// G's block of an island of rows on free bodies alone, G_jk = Σ_b y_jᵀ D_b⁻¹ y_k over the
// bodies b that rows j and k share (y: a row's wrench on b as the body's joint forces, Sᵀ f;
// r = D_b⁻¹ y, its response): body by body, the lower triangle of each body's rows with
// every other, mirrored.  Per body O(rows on it²), where row by row it was O(island²).
void closed_form_block(const std::vector<TwistRow>& rows, int k0, int len,
                       const std::vector<Vec6>& y, const std::vector<Vec6>& r,
                       std::vector<std::pair<int, int>>& by_body, Eigen::MatrixXd& B) {
  by_body.clear();  // (body, 2 × row + side), by body
  for (int k = k0; k < k0 + len; ++k)
    for (int s = 0; s < 2; ++s)
      if (rows[k].body[s] != kWorld) by_body.emplace_back(rows[k].body[s], 2 * k + s);
  std::sort(by_body.begin(), by_body.end());
  B.setZero();
  for (size_t a = 0; a < by_body.size();) {
    size_t e = a + 1;
    while (e < by_body.size() && by_body[e].first == by_body[a].first) ++e;
    for (size_t i = a; i < e; ++i) {
      const int ri = by_body[i].second, ki = ri / 2 - k0;
      for (size_t j = a; j <= i; ++j) {
        const int rj = by_body[j].second, kj = rj / 2 - k0;
        const double g = y[ri].dot(r[rj]);
        B(ki, kj) += g;
        if (ki != kj) B(kj, ki) += g;
      }
    }
    a = e;
  }
}

// Whether tree joint i is free on its own: a root joint of six velocities on its body
// alone, no armature, nothing hanging from it (with nothing welded: d.composite empty)
bool free_on_its_own(const Model& m, int i) {
  const TreeJoint& t = m.tree().joints[i];
  return t.parent < 0 && t.nu == 6 && t.armature == 0 && m.tree().children[i].empty() &&
         m.bodies()[t.body].rigid();
}

// y = Sᵀ f: side s of row r as joint forces on its body's six velocities (a free joint's)
Vec6 joint_force(const RecursiveWorkspace& ws, const TreeJoint& t, const TwistRow& r, int s) {
  const Eigen::Map<const Eigen::Matrix<double, 6, 6>> S(ws.S[t.u_offset].data());
  return S.topRows<3>().transpose() * r.term[s].force +
         S.bottomRows<3>().transpose() * r.term[s].moment;
}

// D⁻¹ of tree joint i (the articulated inertia on its velocities, inverted)
Eigen::Map<const Eigen::Matrix<double, 6, 6>> dinv_of(const RecursiveWorkspace& ws, int i) {
  return Eigen::Map<const Eigen::Matrix<double, 6, 6>>(ws.Dinv.data() + ws.dinv_offset[i]);
}

// Every island on one free body (a box or a ball on the ground, boxes apart): per row,
// y = Sᵀ f of its wrench on the body and its response r = D⁻¹ y, and the island's block
// G_ij = y_iᵀ r_j: the closed form below (closed_form_block) without the general path's
// bookkeeping, entry for entry the same numbers.  False, with nothing written, when some
// island is not that (then the general path applies).
bool one_body_islands(const Model& m, const Data& d, const RecursiveWorkspace& ws,
                      const std::vector<TwistRow>& rows, const std::vector<int>& first,
                      ResponseSupport& support, std::vector<IslandMatrix>& islands,
                      Eigen::VectorXd* tree_diagonal, DelassusScratch& w) {
  const TreeModel& tree = m.tree();
  const int n = static_cast<int>(rows.size());
  if (tree.nrows_extra > 0 || !d.composite.empty()) return false;
  // the row's one body, when it is free on its own; −1 else
  const auto body_of = [&](const TwistRow& r) {
    if ((r.body[0] == kWorld) == (r.body[1] == kWorld)) return -1;
    const int b = r.body[0] == kWorld ? r.body[1] : r.body[0];
    const int i = tree.tree_index[b];
    return tree.joints[i].body == b && free_on_its_own(m, i) ? b : -1;
  };
  int count = 0;
  for (int k = 0, k0 = 0, body = -1; k < n; ++k) {
    if (first[k] == k) {
      k0 = k;
      body = body_of(rows[k]);
      ++count;
    }
    if (body < 0 || body_of(rows[k]) != body || k - k0 + 1 >= kSparseIsland) return false;
  }
  islands.resize(count);
  support.dense = false;
  support.joint_space = false;
  support.dofs.resize(n);
  support.offset.resize(n);
  support.values.resize(6 * static_cast<size_t>(n));
  if (tree_diagonal) tree_diagonal->resize(n);
  std::vector<Vec6>&y = w.y6, &r = w.r6;
  y.resize(n);
  r.resize(n);
  bool identity = false;  // the island's body's S = 1 (a free joint's own): y = (f, τ)
  for (int k = 0; k < n; ++k) {
    const int s = rows[k].body[0] == kWorld ? 1 : 0;
    const int b = rows[k].body[s];
    const int i = tree.tree_index[b];
    const int o = tree.joints[i].u_offset;
    if (first[k] == k)
      identity = Eigen::Map<const Eigen::Matrix<double, 6, 6>>(ws.S[o].data()).isIdentity(0.0);
    if (identity)
      y[k] << rows[k].term[s].force, rows[k].term[s].moment;
    else
      y[k] = joint_force(ws, tree.joints[i], rows[k], s);
    r[k] = dinv_of(ws, i) * y[k];
    support.dofs[k] = {o, o + 6, 0, 0};
    support.offset[k] = 6 * k;
    std::copy(r[k].data(), r[k].data() + 6, support.values.data() + 6 * k);
    if (tree_diagonal) (*tree_diagonal)(k) = y[k].dot(r[k]);
  }
  for (int k0 = 0, island = 0; k0 < n; ++island) {
    int k1 = k0 + 1;
    while (k1 < n && first[k1] == k0) ++k1;
    IslandMatrix& B = islands[island];
    B.sparse = false;
    B.factored = false;
    B.dense.resize(k1 - k0, k1 - k0);
    for (int i = k0; i < k1; ++i)
      for (int j = k0; j <= i; ++j)
        B.dense(i - k0, j - k0) = B.dense(j - k0, i - k0) = y[i].dot(r[j]);
    k0 = k1;
  }
  return true;
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

void add_response(const Eigen::MatrixXd& response, const ResponseSupport& support,
                  const Eigen::VectorXd& lambda, Eigen::VectorXd& du) {
  if (support.joint_space) {
    add_joint_space_response(support.factors, lambda, du);
    return;
  }
  if (support.dense) {
    du.noalias() += response * lambda;
    return;
  }
  // plain loops: a row's response is a few entries, where Eigen's segments and maps cost
  // more than the products
  double* out = du.data();
  for (int k = 0; k < lambda.size(); ++k) {
    const double l = lambda(k);
    if (l == 0.0) continue;
    const std::array<int, 4>& r = support.dofs[k];
    const double* v = support.values.data() + support.offset[k];
    for (int s = 0; s < 2; ++s)
      for (int i = r[2 * s]; i < r[2 * s + 1]; ++i) out[i] += l * *v++;
  }
}

void row_velocities(const Model& m, Data& d, const std::vector<TwistRow>& rows,
                    const Eigen::Ref<const Eigen::VectorXd>& u, Eigen::VectorXd& out,
                    DelassusScratch* scratch) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  const TreeModel& tree = m.tree();
  DelassusScratch own;
  std::vector<SpatialMotion>& V = (scratch ? *scratch : own).V;
  V.resize(ws.w.size());
  for (size_t i = 0; i < ws.w.size(); ++i) {
    const TreeJoint& t = tree.joints[i];
    if (t.parent >= 0)
      V[i] = V[t.parent].shifted(ws.w[i].r);
    else
      V[i].setZero();
    for (int k = 0; k < t.nu; ++k) V[i].add(ws.S[t.u_offset + k] * u(t.u_offset + k));
  }
  out.resize(static_cast<int>(rows.size()));
  for (size_t k = 0; k < rows.size(); ++k) out(static_cast<int>(k)) = row_dot(m, rows[k], V);
}

}  // namespace appell
