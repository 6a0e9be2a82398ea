// Sparse LDLᵀ of a positive semidefinite matrix that drops dependent rows: a {1}-inverse.
//
// Ref: T. A. Davis, "Algorithm 849: A concise sparse Cholesky factorization package",
// ACM TOMS 31(4), 2005 (the up-looking LDLᵀ: elimination tree, then row k of L from a
// sparse triangular solve); [UK98] eqs. 24–26 for why any {1}-inverse will do.
//
// The matrix is the scaled Gram matrix Ĝ = Â M⁻¹ Âᵀ of rank_policy.hpp: symmetric,
// positive semidefinite, unit diagonal.  In elimination order the pivot
//     d_k = Ĝ_kk − Ĝ_k,K Ĝ_KK⁻¹ Ĝ_K,k = sin² θ_k                                  (Z1)
// is the squared sine of the angle between row k and the rows K kept before it (P2).
// When d_k < τ² row k is dropped: it gets no column in L (l_ik = 0 for i > k) and no
// pivot, i.e. the factorisation is that of the kept rows Ĝ_KK alone, and
//     Ĝ⁻ = Pᵀ [Ĝ_KK⁻¹ 0; 0 0] P                                                   (Z2)
// satisfies Ĝ Ĝ⁻ Ĝ = Ĝ whenever the dropped rows lie in the span of the kept ones
// (Ĝ_DD = Ĝ_DK Ĝ_KK⁻¹ Ĝ_KD, exact for exactly redundant rows): a {1}-inverse, so
// ü = a + M⁻¹Âᵀ Ĝ⁻ (b̂ − Â a) is the constrained acceleration [UK98 eq. 26].  A dropped
// row's multiplier is 0 (its force is carried by the kept rows: the basic solution, not
// the minimum-norm one), and its forward-substitution value y_k is minus its residual
// (Ĝ x − e)_k: the consistency of the dropped rows comes for free.
//
// Symbolic and numeric phases.  The pattern of Ĝ depends only on which rows share a body,
// so everything that depends on the pattern alone is done once by analyze(): the rows
// ordered by approximate minimum degree (Eigen's AMDOrdering) to limit fill, the upper
// triangle of P Ĝ Pᵀ as a compressed-column pattern, the elimination tree, the pattern of
// L column by column and, for every row k of L, its nonzero columns in a topological
// order of the tree (the reach of Ĝ's column k, [Davis 2005, ldl_numeric]) with where
// each l_ki is stored.  The caller assembles the values straight into that pattern
// (slot(), values()); factorize() is then the up-looking numeric loop alone, without
// the tree walks, and neither it nor solve() allocates.  A dropped row changes values,
// not the pattern: its column of L is stored and holds zeros.
//
// Cost: analyze O(nnz(L)) after the ordering; factorize O(Σ_k |L_{*k}|²); solve
// O(nnz(L)).  For a chain or any graph of bounded bandwidth, O(n).
#pragma once

#include <Eigen/SparseCore>
#include <vector>

namespace appell {

class ZeroPivotLDLT {
 public:
  // The symbolic phase from the pattern of the symmetric K (both triangles stored; the
  // values are not read).  Allocates.
  void analyze(const Eigen::SparseMatrix<double>& K);
  int size() const { return n_; }
  // where K(i, j) (original indices, either triangle) lives in values(); −1 when (i, j)
  // is outside the pattern analyze() saw.  O(log nnz of a column).
  int slot(int i, int j) const;
  // K's upper triangle in elimination order, column by column: the caller assembles it.
  std::vector<double>& values() { return Kx_; }

  // The numeric phase on S K S, K in values() and S = diag(scale) (original order; none:
  // S = I), dropping pivots below tau² (Z1).  Allocates nothing.
  void factorize(double tau, const Eigen::VectorXd* scale = nullptr);
  // analyze(K), K's values into values(), factorize(tau).
  void compute(const Eigen::SparseMatrix<double>& K, double tau);

  int rank() const { return rank_; }
  // x = Ĝ⁻ e (Z2); when asked, residual(k) = (K x − e)_k for dropped rows, 0 for kept ones.
  // Allocates nothing when x (and residual) already have the size.
  void solve(const Eigen::VectorXd& e, Eigen::VectorXd& x, Eigen::VectorXd* residual = nullptr);

 private:
  int n_ = 0, rank_ = 0;
  std::vector<int> perm_, iperm_;   // k-th eliminated row ↔ original row
  std::vector<int> Kp_, Ki_;        // upper triangle of P K Pᵀ, column-wise
  std::vector<double> Kx_;          //   and its values
  std::vector<int> Lp_, Li_;        // L column-wise (strictly lower), rows ascending
  std::vector<int> Rp_, Rc_, Rs_;   // row k of L: its columns (topological) and slots
  std::vector<double> Lx_, d_, y_;  // l_ik, pivots, the dense work vector
  std::vector<double> s_;           // the scale in elimination order
  std::vector<char> dropped_;
};

}  // namespace appell
