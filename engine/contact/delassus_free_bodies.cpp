// The closed forms of rows on free bodies alone (engine/contact/delassus.hpp): a body free
// on its own (a root joint of six velocities, nothing hanging from it or welded to it) moves
// under a row's wrench f by D⁻¹ Sᵀ f on its own velocities, the recursion's passes for a
// one-body tree, (R7)–(R9), in closed form.  Islands of one such body each, a closed island's
// block of G body by body, and a low-rank island's factor B (LowRankDelassus) from the
// bodies' masses.
#include <algorithm>
#include <cmath>

#include "engine/contact/delassus_steps.hpp"

namespace appell::delassus_detail {

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

// Whether every island is on one free body (a box or a ball on the ground, boxes apart):
// then each row's tree joint and side go into w.row_joint, w.row_side (0 when the body is
// the row's first, 1 when the world is)
bool one_body_rows(const Model& m, const Data& d, const std::vector<TwistRow>& rows,
                   const std::vector<int>& first, DelassusScratch& w) {
  const TreeModel& tree = m.tree();
  const int n = static_cast<int>(rows.size());
  if (tree.nrows_extra > 0 || !d.composite.empty()) return false;
  w.row_joint.resize(n);
  w.row_side.resize(n);
  for (int k = 0, k0 = 0, joint = -1; k < n; ++k) {
    const TwistRow& r = rows[k];
    if ((r.body[0] == kWorld) == (r.body[1] == kWorld)) return false;
    const int s = r.body[0] == kWorld ? 1 : 0;
    const int i = tree.tree_index[r.body[s]];
    if (first[k] == k) {
      if (tree.joints[i].body != r.body[s] || !free_on_its_own(m, i)) return false;
      k0 = k;
      joint = i;
    }
    if (i != joint || k - k0 + 1 >= kSparseIsland) return false;
    w.row_joint[k] = i;
    w.row_side[k] = s;
  }
  return true;
}

// The islands one_body_rows found: per row, y = Sᵀ f of its wrench on the body and its
// response r = D⁻¹ y, and the island's block G_ij = y_iᵀ r_j: the closed form above
// (closed_form_block) without the general path's bookkeeping, entry for entry the same
// numbers
void one_body_islands(const Model& m, const RecursiveWorkspace& ws,
                      const std::vector<TwistRow>& rows, const std::vector<int>& first,
                      ResponseSupport& support, std::vector<IslandMatrix>& islands,
                      Eigen::VectorXd* tree_diagonal, DelassusScratch& w) {
  const TreeModel& tree = m.tree();
  const int n = static_cast<int>(rows.size());
  int count = 0;
  for (int k = 0; k < n; ++k) count += first[k] == k;
  islands.resize(count);
  support.dense = false;
  support.joint_space = false;
  support.dofs.resize(n);
  support.offset.resize(n);
  support.values.resize(6 * static_cast<size_t>(n));
  if (tree_diagonal) tree_diagonal->resize(n);
  std::vector<Vec6>& y = w.y6;
  y.resize(n);
  // the responses r_k = D⁻¹ y_k, packed in the support's values, row by row
  const auto response = [&](int k) { return Eigen::Map<Vec6>(support.values.data() + 6 * k); };
  for (int k0 = 0, island = 0; k0 < n; ++island) {
    int k1 = k0 + 1;
    while (k1 < n && first[k1] == k0) ++k1;
    const int i = w.row_joint[k0];
    const TreeJoint& t = tree.joints[i];
    const bool identity = identity_motion(t);  // S = 1: y = (f, τ)
    const Eigen::Matrix<double, 6, 6> Dinv = dinv_of(ws, i);
    for (int k = k0; k < k1; ++k) {
      const int s = w.row_side[k];
      if (identity)
        y[k] << rows[k].term[s].force, rows[k].term[s].moment;
      else
        y[k] = joint_force(ws, t, rows[k], s);
      response(k).noalias() = Dinv * y[k];
      support.dofs[k] = {t.u_offset, t.u_offset + 6, 0, 0};
      support.offset[k] = 6 * k;
    }
    IslandMatrix& B = islands[island];
    B.sparse = false;
    B.factored = false;
    B.dense.resize(k1 - k0, k1 - k0);
    for (int a = k0; a < k1; ++a) {
      for (int b = k0; b < a; ++b)
        B.dense(a - k0, b - k0) = B.dense(b - k0, a - k0) = y[a].dot(response(b));
      B.dense(a - k0, a - k0) = y[a].dot(response(a));
      if (tree_diagonal) (*tree_diagonal)(a) = B.dense(a - k0, a - k0);
    }
    k0 = k1;
  }
}

}  // namespace appell::delassus_detail
