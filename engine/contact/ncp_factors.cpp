// The factors of G + ρI of the contact problem's ADMM (engine/contact/ncp.hpp): dense, sparse
// and low-rank G, and the small islands' Cholesky factor that the Newton steps use too.
#include <algorithm>
#include <cmath>

#include "engine/contact/ncp.hpp"
#include "engine/contact/ncp_steps.hpp"

namespace appell {

namespace ncp_detail {

// L Lᵀ = A + ρI into L (A's size, lower triangle written), by the right-looking
// column Cholesky: false when a pivot is not positive.  For small islands, where Eigen's
// blocked LLT and triangular solves spend most of their time in their own set-up (the
// standing quadruped's 12 rows: 1,500 instructions a pair of triangular solves, for 144
// multiply-adds).
// With `ratio` > 0, fails also where a pivot is not above `ratio` times its column's
// diagonal entry (A's column j within a sine of √ratio of the span of the columns before).
bool small_cholesky(const Eigen::MatrixXd& A, double rho, Eigen::MatrixXd& L, double ratio) {
  const Eigen::Index m = A.rows();
  L = A;
  double* a = L.data();
  for (Eigen::Index j = 0; j < m; ++j) {
    double* cj = a + j * m;
    const double pivot = cj[j] + rho;
    if (!(pivot > ratio * (A(j, j) + rho))) return false;
    const double inverse = 1.0 / std::sqrt(pivot);
    cj[j] = inverse;  // kept inverted: the solves multiply, where dividing stalls each step
    for (Eigen::Index i = j + 1; i < m; ++i) cj[i] *= inverse;
    for (Eigen::Index k = j + 1; k < m; ++k) {  // the trailing lower triangle, by columns
      double* ck = a + k * m;
      const double f = cj[k];
      for (Eigen::Index i = k; i < m; ++i) ck[i] -= cj[i] * f;
    }
  }
  return true;
}

// x = (L Lᵀ)⁻¹ x, by columns of L (its diagonal inverted): forward, then backward
void small_cholesky_solve(const Eigen::MatrixXd& L, Eigen::VectorXd& x) {
  const Eigen::Index m = L.rows();
  const double* a = L.data();
  double* v = x.data();
  for (Eigen::Index j = 0; j < m; ++j) {
    const double* cj = a + j * m;
    v[j] *= cj[j];
    const double f = v[j];
    for (Eigen::Index i = j + 1; i < m; ++i) v[i] -= cj[i] * f;
  }
  for (Eigen::Index j = m - 1; j >= 0; --j) {
    const double* cj = a + j * m;
    double t = v[j];
    for (Eigen::Index i = j + 1; i < m; ++i) t -= cj[i] * v[i];
    v[j] = t * cj[j];
  }
}

void size_factor(Eigen::LLT<Eigen::MatrixXd>& llt, Eigen::Index n) {
  llt.compute(Eigen::MatrixXd::Identity(n, n));
}

void DenseFactor::prepare() {
  // the factor's storage sized once per size (a step that needs no factor — its warm
  // start met the tolerance — may come first)
  if (G.rows() <= kSmallIsland) {
    w.small.resize(G.rows(), G.rows());
  } else if (w.dense.rows() != G.rows()) {
    size_factor(w.dense, G.rows());
  }
}

void DenseFactor::factor(double rho) {
  small = G.rows() <= kSmallIsland && small_cholesky(G, rho, w.small);
  if (small) return;
  if (w.dense.rows() != G.rows()) size_factor(w.dense, G.rows());
  // into the LLT's own storage, sized at the first solve of this size
  w.dense.compute(G + rho * Eigen::MatrixXd::Identity(G.rows(), G.cols()));
}

void DenseFactor::solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) {
  x = rhs;
  if (small)
    small_cholesky_solve(w.small, x);
  else
    w.dense.solveInPlace(x);
}

namespace {

// w.A = S + ρI on S's pattern with every diagonal entry stored, the positions of its
// diagonal entries and S's diagonal; the ordering and symbolic factor kept while the
// pattern is (a resting stack keeps its pattern from step to step)
void prepare_penalized(const Eigen::SparseMatrix<double>& S, ContactWorkspace& w) {
  const Eigen::Index m = S.rows();
  Eigen::SparseMatrix<double>& A = w.A;
  A = S;
  bool complete = true;
  for (Eigen::Index k = 0; k < m && complete; ++k) complete = A.coeff(k, k) != 0.0;
  if (!complete) {  // a row that moves nothing: its diagonal entry is an explicit zero
    for (Eigen::Index k = 0; k < m; ++k) A.coeffRef(k, k) += 0.0;
    A.makeCompressed();
  }
  w.diagonal.resize(static_cast<size_t>(m));
  for (Eigen::Index k = 0; k < m; ++k) {
    const int* begin = A.innerIndexPtr() + A.outerIndexPtr()[k];
    const int* end = A.innerIndexPtr() + A.outerIndexPtr()[k + 1];
    w.diagonal[static_cast<size_t>(k)] =
        static_cast<int>(std::lower_bound(begin, end, static_cast<int>(k)) - A.innerIndexPtr());
  }
  w.g_diagonal.resize(m);
  for (Eigen::Index k = 0; k < m; ++k) w.g_diagonal(k) = A.valuePtr()[w.diagonal[k]];
  const int* outer = A.outerIndexPtr();
  const int* inner = A.innerIndexPtr();
  const int nnz = outer[m];
  const bool same = w.analyzed && static_cast<Eigen::Index>(w.pattern_outer.size()) == m + 1 &&
                    static_cast<int>(w.pattern_inner.size()) == nnz &&
                    std::equal(outer, outer + m + 1, w.pattern_outer.begin()) &&
                    std::equal(inner, inner + nnz, w.pattern_inner.begin());
  if (same) return;
  w.pattern_outer.assign(outer, outer + m + 1);
  w.pattern_inner.assign(inner, inner + nnz);
  w.sparse.analyzePattern(A);
  w.analyzed = true;
}

// w.A's diagonal set to S's + ρ, and factored
void factor_penalized(double rho, ContactWorkspace& w) {
  double* values = w.A.valuePtr();
  for (size_t k = 0; k < w.diagonal.size(); ++k)
    values[w.diagonal[k]] = w.g_diagonal(static_cast<Eigen::Index>(k)) + rho;
  w.sparse.factorize(w.A);
}

}  // namespace

void SparseFactor::prepare() {
  prepare_penalized(G, w);
}
void SparseFactor::factor(double rho) {
  factor_penalized(rho, w);
}
void SparseFactor::solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) {
  x = w.sparse.solve(rhs);
}
const Eigen::MatrixXd& SparseFactor::dense() {
  w.G_dense = G;
  return w.G_dense;
}

void LowRankFactor::prepare() {
  const Eigen::Index c = G.B.cols();
  small = c <= kOneBody;
  if (!small) {
    by_body = w.body.analyze(G.B);
    if (by_body) {
      w.body.form(G.B);
    } else {
      form_gram(G.B, w);
      prepare_penalized(w.K, w);
    }
    return;
  }
  w.K_dense.setZero(c, c);
  const int* outer = G.B.outerIndexPtr();
  const int* inner = G.B.innerIndexPtr();
  const double* value = G.B.valuePtr();
  for (Eigen::Index r = 0; r < G.B.rows(); ++r)
    for (int p = outer[r]; p < outer[r + 1]; ++p)
      for (int q = outer[r]; q <= p; ++q) w.K_dense(inner[p], inner[q]) += value[p] * value[q];
  for (Eigen::Index j = 0; j < c; ++j)  // the upper triangle, for small_cholesky's copy
    for (Eigen::Index i = j + 1; i < c; ++i) w.K_dense(j, i) = w.K_dense(i, j);
}

void LowRankFactor::factor(double r) {
  rho = r;
  if (small && small_cholesky(w.K_dense, r, w.small)) return;
  if (by_body && w.body.factor(r)) return;
  if (small || by_body) {  // a pivot failed: Eigen's sparse factor after all
    small = by_body = false;
    form_gram(G.B, w);
    prepare_penalized(w.K, w);
  }
  factor_penalized(r, w);
}

void LowRankFactor::solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) {
  G.transpose_product(rhs, w.t1);
  if (small) {
    w.t2 = w.t1;
    small_cholesky_solve(w.small, w.t2);
  } else if (by_body) {
    w.t2 = w.t1;
    w.body.solve(w.t2);
  } else {
    w.t2 = w.sparse.solve(w.t1);
  }
  x = rhs;
  G.add_times(w.t2, -1.0, x);
  x *= 1.0 / rho;
}

const Eigen::MatrixXd& LowRankFactor::dense() {
  w.G_dense = Eigen::MatrixXd(G.B) * Eigen::MatrixXd(G.B).transpose();
  return w.G_dense;
}

}  // namespace ncp_detail

// BᵀB into w.K (ncp.hpp).  Its pattern (Eigen's sparse product) and where each product of two
// entries of a row of B adds into its values are kept while B's pattern is (a resting stack's, step
// after step); then only the values are formed, a row's entries against each other
// (a stack of ten boxes: 50,000 instructions, where the product took 187,000), and of those
// only the lower triangle's (K(i, j), i ≥ j): the factor of K + ρI reads no other
// (SimplicialLLT's Lower), and the upper one keeps the first product's values
void form_gram(const Eigen::SparseMatrix<double, Eigen::RowMajor>& B, ContactWorkspace& w) {
  const Eigen::Index rows = B.rows();
  const int* outer = B.outerIndexPtr();
  const int* inner = B.innerIndexPtr();
  const double* value = B.valuePtr();
  const int nnz = outer[rows];
  const bool same = static_cast<Eigen::Index>(w.b_outer.size()) == rows + 1 &&
                    static_cast<int>(w.b_inner.size()) == nnz && w.K.cols() == B.cols() &&
                    std::equal(outer, outer + rows + 1, w.b_outer.begin()) &&
                    std::equal(inner, inner + nnz, w.b_inner.begin());
  if (!same) {
    w.K = B.transpose() * B;
    w.K.makeCompressed();
    w.b_outer.assign(outer, outer + rows + 1);
    w.b_inner.assign(inner, inner + nnz);
    w.k_position.clear();
    const int* k_outer = w.K.outerIndexPtr();
    const int* k_inner = w.K.innerIndexPtr();
    for (Eigen::Index r = 0; r < rows; ++r)
      for (int p = outer[r]; p < outer[r + 1]; ++p)
        for (int q = p; q < outer[r + 1]; ++q) {  // K(inner[q], inner[p]), inner[q] ≥ inner[p]
          const int* begin = k_inner + k_outer[inner[p]];
          const int* end = k_inner + k_outer[inner[p] + 1];
          const int* at = std::lower_bound(begin, end, inner[q]);
          if (at == end || *at != inner[q]) {  // not stored: the product's values stand, and
            w.b_outer.clear();                 // the pattern is formed again next time
            return;
          }
          w.k_position.push_back(static_cast<int>(at - k_inner));
        }
    return;  // the product's values
  }
  double* k = w.K.valuePtr();
  const int* k_outer = w.K.outerIndexPtr();
  const int* k_inner = w.K.innerIndexPtr();
  for (Eigen::Index j = 0; j < w.K.cols(); ++j)  // the lower triangle, diagonal included
    for (int p = k_outer[j]; p < k_outer[j + 1]; ++p)
      if (k_inner[p] >= j) k[p] = 0.0;
  const int* position = w.k_position.data();
  for (Eigen::Index r = 0; r < rows; ++r)
    for (int p = outer[r]; p < outer[r + 1]; ++p)
      for (int q = p; q < outer[r + 1]; ++q) k[*position++] += value[p] * value[q];
}

}  // namespace appell
