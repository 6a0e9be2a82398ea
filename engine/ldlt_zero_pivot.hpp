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
// The rows are ordered by approximate minimum degree (Eigen's AMDOrdering) to limit fill.
// Cost: O(nnz(L)) per factorisation and solve; for a chain or any graph of bounded
// bandwidth, O(n).
#pragma once

#include <Eigen/SparseCore>
#include <vector>

namespace appell {

class ZeroPivotLDLT {
 public:
  // Factorises the symmetric K (both triangles stored; only the upper one is read after
  // the symmetric permutation), dropping pivots below tau² (Z1).
  void compute(const Eigen::SparseMatrix<double>& K, double tau);
  int rank() const { return rank_; }
  // x = Ĝ⁻ e (Z2); when asked, residual(k) = (K x − e)_k for dropped rows, 0 for kept ones.
  void solve(const Eigen::VectorXd& e, Eigen::VectorXd& x,
             Eigen::VectorXd* residual = nullptr) const;

 private:
  int n_ = 0, rank_ = 0;
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> P_, Pinv_;
  std::vector<int> parent_, Lp_, Li_;  // elimination tree; L column-wise (strictly lower)
  std::vector<double> Lx_, d_;
  std::vector<char> dropped_;
};

}  // namespace appell
