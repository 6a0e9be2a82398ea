// The factor of BᵀB + ρI by the bodies' 6 × 6 blocks (BodyBlockFactor, engine/contact/ncp.hpp):
// a low-rank island's K = BᵀB couples two bodies only where a contact joins them (a stack:
// each box its neighbours), so its Cholesky factor is a sparse one whose entries are dense
// 6 × 6 blocks.  The elimination order (approximate minimum degree on the bodies' graph), the
// fill and where each product lands are found when B's pattern changes; a step that keeps it
// forms K's blocks, row by row of B, and factors them with fixed-size block products.
#include <Eigen/OrderingMethods>
#include <algorithm>

#include "engine/contact/ncp.hpp"

namespace appell {

namespace {

constexpr int kBody = 6;  // B's columns of a body (LowRankDelassus)

// the groups of a row of B (its entries' column / 6): true when it has one or two
bool row_groups(const int* inner, int begin, int end, int& first, int& second) {
  if (begin == end) return false;
  first = inner[begin] / kBody;
  second = inner[end - 1] / kBody;
  for (int p = begin; p < end; ++p)
    if (inner[p] / kBody != first && inner[p] / kBody != second) return false;
  return true;
}

// whether a row's `count` entries are whole bodies' six columns each, in order
bool whole_blocks(const int* inner, int count) {
  if (count != kBody && count != 2 * kBody) return false;
  for (int s = 0; s < count; s += kBody)
    if (inner[s] % kBody != 0 || inner[s + kBody - 1] != inner[s] + kBody - 1) return false;
  return true;
}

}  // namespace

bool BodyBlockFactor::same_pattern(const Eigen::SparseMatrix<double, Eigen::RowMajor>& B) const {
  const Eigen::Index rows = B.rows();
  const int* outer = B.outerIndexPtr();
  const int nnz = outer[rows];
  return valid && static_cast<Eigen::Index>(b_outer.size()) == rows + 1 &&
         static_cast<int>(b_inner.size()) == nnz && groups * kBody == B.cols() &&
         std::equal(outer, outer + rows + 1, b_outer.begin()) &&
         std::equal(B.innerIndexPtr(), B.innerIndexPtr() + nnz, b_inner.begin());
}

// the off-diagonal block (row position i, column position j < i): its slot, or −1
int BodyBlockFactor::slot(int i, int j) const {
  const auto begin = row.begin() + start[j], end = row.begin() + start[j + 1];
  const auto at = std::lower_bound(begin, end, i);
  return at != end && *at == i ? static_cast<int>(at - row.begin()) : -1;
}

bool BodyBlockFactor::analyze(const Eigen::SparseMatrix<double, Eigen::RowMajor>& B) {
  if (same_pattern(B)) return true;
  valid = false;
  if (B.cols() % kBody != 0) return false;
  groups = static_cast<int>(B.cols() / kBody);
  const int* outer = B.outerIndexPtr();
  const int* inner = B.innerIndexPtr();
  // the bodies' graph, and its approximate minimum degree order (Pinv: position → group)
  std::vector<Eigen::Triplet<double>> edges;
  for (int g = 0; g < groups; ++g) edges.emplace_back(g, g, 1.0);
  for (Eigen::Index r = 0; r < B.rows(); ++r) {
    int a, b;
    if (outer[r] == outer[r + 1]) continue;
    if (!row_groups(inner, outer[r], outer[r + 1], a, b)) return false;
    if (a != b) {
      edges.emplace_back(a, b, 1.0);
      edges.emplace_back(b, a, 1.0);
    }
  }
  Eigen::SparseMatrix<double> graph(groups, groups);
  graph.setFromTriplets(edges.begin(), edges.end());
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> order;
  Eigen::AMDOrdering<int>()(graph, order);
  group_at.assign(order.indices().data(), order.indices().data() + groups);
  position.assign(static_cast<size_t>(groups), 0);
  for (int p = 0; p < groups; ++p) position[static_cast<size_t>(group_at[p])] = p;
  // the factor's pattern, column by column: a column's own lower neighbours and its
  // elimination-tree children's pattern below it
  std::vector<std::vector<int>> below(static_cast<size_t>(groups));
  for (int k = 0; k < graph.outerSize(); ++k)
    for (Eigen::SparseMatrix<double>::InnerIterator it(graph, k); it; ++it) {
      const int i = position[static_cast<size_t>(it.row())], j = position[static_cast<size_t>(k)];
      if (i > j) below[static_cast<size_t>(j)].push_back(i);
    }
  for (int j = 0; j < groups; ++j) {
    std::vector<int>& s = below[static_cast<size_t>(j)];
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    if (s.empty()) continue;
    // the parent takes the rest of the column's pattern
    std::vector<int>& parent = below[static_cast<size_t>(s.front())];
    parent.insert(parent.end(), s.begin() + 1, s.end());
  }
  start.assign(1, 0);
  row.clear();
  for (int j = 0; j < groups; ++j) {
    row.insert(row.end(), below[static_cast<size_t>(j)].begin(),
               below[static_cast<size_t>(j)].end());
    start.push_back(static_cast<int>(row.size()));
  }
  // where each pair of a column's blocks updates: a diagonal block (−1 − its position) or
  // an off-diagonal slot
  update.clear();
  for (int j = 0; j < groups; ++j)
    for (int a = start[j]; a < start[j + 1]; ++a)
      for (int b = start[j]; b <= a; ++b)
        update.push_back(a == b ? -1 - row[a] : slot(row[a], row[b]));
  // (a column's blocks below it meet in the fill: every pair has its block)
  if (std::find(update.begin(), update.end(), -1) != update.end()) return false;
  // where each row of B adds its off-diagonal product (−1: a row of one body)
  row_slot.assign(static_cast<size_t>(B.rows()), -1);
  for (Eigen::Index r = 0; r < B.rows(); ++r) {
    int a, b;
    if (outer[r] == outer[r + 1] || !row_groups(inner, outer[r], outer[r + 1], a, b) || a == b)
      continue;
    const int i = position[static_cast<size_t>(a)], j = position[static_cast<size_t>(b)];
    row_slot[static_cast<size_t>(r)] = slot(std::max(i, j), std::min(i, j));
  }
  k_diagonal.resize(static_cast<size_t>(groups));
  l_diagonal.resize(static_cast<size_t>(groups));
  k_off.resize(row.size());
  l_off.resize(row.size());
  b_outer.assign(outer, outer + B.rows() + 1);
  b_inner.assign(inner, inner + outer[B.rows()]);
  valid = true;
  return true;
}

// K = BᵀB by blocks, row by row of B: a row's parts v_a, v_b on its bodies add v_a v_aᵀ and
// v_b v_bᵀ to their diagonal blocks and v_i v_jᵀ to block (i, j), i the later position
void BodyBlockFactor::form(const Eigen::SparseMatrix<double, Eigen::RowMajor>& B) {
  for (Block& k : k_diagonal) k.setZero();
  for (Block& k : k_off) k.setZero();
  const int* outer = B.outerIndexPtr();
  const int* inner = B.innerIndexPtr();
  const double* value = B.valuePtr();
  Vec v[2];
  for (Eigen::Index r = 0; r < B.rows(); ++r) {
    const int begin = outer[r], count = outer[r + 1] - begin;
    if (count == 0) continue;
    const int a = inner[begin] / kBody, b = inner[begin + count - 1] / kBody;
    if (whole_blocks(inner + begin, count)) {  // a body's six entries, in order (low_rank_factor)
      v[0] = Eigen::Map<const Vec>(value + begin);
      if (count == 2 * kBody) v[1] = Eigen::Map<const Vec>(value + begin + kBody);
    } else {
      v[0].setZero();
      v[1].setZero();
      for (int p = begin; p < begin + count; ++p)
        v[inner[p] / kBody == a ? 0 : 1](inner[p] % kBody) = value[p];
    }
    k_diagonal[static_cast<size_t>(position[static_cast<size_t>(a)])].noalias() +=
        v[0] * v[0].transpose();
    if (a == b) continue;
    k_diagonal[static_cast<size_t>(position[static_cast<size_t>(b)])].noalias() +=
        v[1] * v[1].transpose();
    const bool a_later = position[static_cast<size_t>(a)] > position[static_cast<size_t>(b)];
    k_off[static_cast<size_t>(row_slot[static_cast<size_t>(r)])].noalias() +=
        a_later ? v[0] * v[1].transpose() : v[1] * v[0].transpose();
  }
}

// L Lᵀ = K + ρI, right-looking by block columns: a column's diagonal block factored, its
// blocks below it solved against it, and their products taken from the blocks they meet
bool BodyBlockFactor::factor(double rho) {
  for (int j = 0; j < groups; ++j) {
    l_diagonal[static_cast<size_t>(j)] = k_diagonal[static_cast<size_t>(j)];
    l_diagonal[static_cast<size_t>(j)].diagonal().array() += rho;
  }
  std::copy(k_off.begin(), k_off.end(), l_off.begin());
  const int* u = update.data();
  for (int j = 0; j < groups; ++j) {
    Block& d = l_diagonal[static_cast<size_t>(j)];
    Eigen::LLT<Block> llt(d);
    if (llt.info() != Eigen::Success) return false;
    d = llt.matrixL();
    for (int a = start[j]; a < start[j + 1]; ++a)  // L_aj = K_aj L_jj⁻ᵀ
      d.triangularView<Eigen::Lower>().transpose().solveInPlace<Eigen::OnTheRight>(
          l_off[static_cast<size_t>(a)]);
    for (int a = start[j]; a < start[j + 1]; ++a)
      for (int b = start[j]; b <= a; ++b, ++u) {
        Block& target =
            *u < 0 ? l_diagonal[static_cast<size_t>(-1 - *u)] : l_off[static_cast<size_t>(*u)];
        target.noalias() -=
            l_off[static_cast<size_t>(a)] * l_off[static_cast<size_t>(b)].transpose();
      }
  }
  return true;
}

// x = (K + ρI)⁻¹ x: into the elimination order, forward and backward by blocks, and back
void BodyBlockFactor::solve(Eigen::VectorXd& x) {
  y.resize(x.size());
  for (int p = 0; p < groups; ++p)
    y.segment<kBody>(kBody * p) = x.segment<kBody>(kBody * group_at[p]);
  for (int j = 0; j < groups; ++j) {
    const Block& d = l_diagonal[static_cast<size_t>(j)];
    d.triangularView<Eigen::Lower>().solveInPlace(y.segment<kBody>(kBody * j));
    for (int a = start[j]; a < start[j + 1]; ++a)
      y.segment<kBody>(kBody * row[a]).noalias() -=
          l_off[static_cast<size_t>(a)] * y.segment<kBody>(kBody * j);
  }
  for (int j = groups - 1; j >= 0; --j) {
    for (int a = start[j]; a < start[j + 1]; ++a)
      y.segment<kBody>(kBody * j).noalias() -=
          l_off[static_cast<size_t>(a)].transpose() * y.segment<kBody>(kBody * row[a]);
    l_diagonal[static_cast<size_t>(j)].triangularView<Eigen::Lower>().transpose().solveInPlace(
        y.segment<kBody>(kBody * j));
  }
  for (int p = 0; p < groups; ++p)
    x.segment<kBody>(kBody * group_at[p]) = y.segment<kBody>(kBody * p);
}

}  // namespace appell
