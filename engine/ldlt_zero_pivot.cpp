#include "engine/ldlt_zero_pivot.hpp"

#include <Eigen/OrderingMethods>

namespace appell {

void ZeroPivotLDLT::compute(const Eigen::SparseMatrix<double>& K, double tau) {
  n_ = static_cast<int>(K.rows());
  // fill-reducing order, then the upper triangle of P K Pᵀ, column by column
  Eigen::AMDOrdering<int> amd;
  amd(K, Pinv_);
  P_ = Pinv_.inverse();
  std::vector<Eigen::Triplet<double>> upper;
  upper.reserve(K.nonZeros());
  for (int c = 0; c < K.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(K, c); it; ++it) {
      const int i = P_.indices()(static_cast<int>(it.row())), j = P_.indices()(c);
      if (i <= j) upper.emplace_back(i, j, it.value());
    }
  Eigen::SparseMatrix<double> U(n_, n_);
  U.setFromTriplets(upper.begin(), upper.end());

  // symbolic: elimination tree and column counts of L [Davis 2005, ldl_symbolic]
  parent_.assign(n_, -1);
  std::vector<int> flag(n_), lnz(n_, 0);
  for (int k = 0; k < n_; ++k) {
    flag[k] = k;
    for (Eigen::SparseMatrix<double>::InnerIterator it(U, k); it; ++it)
      for (int i = static_cast<int>(it.row()); i < k && flag[i] != k; i = parent_[i]) {
        if (parent_[i] == -1) parent_[i] = k;
        ++lnz[i];
        flag[i] = k;
      }
  }
  Lp_.assign(n_ + 1, 0);
  for (int k = 0; k < n_; ++k) Lp_[k + 1] = Lp_[k] + lnz[k];
  Li_.assign(Lp_[n_], 0);
  Lx_.assign(Lp_[n_], 0.0);

  // numeric: row k of L by a sparse triangular solve, pivots tested by (Z1)
  // [Davis 2005, ldl_numeric, with dropped columns left empty]
  d_.assign(n_, 0.0);
  dropped_.assign(n_, 0);
  std::vector<double> y(n_, 0.0);
  std::vector<int> pattern(n_);
  std::fill(lnz.begin(), lnz.end(), 0);
  const double tau2 = tau * tau;
  rank_ = 0;
  for (int k = 0; k < n_; ++k) {
    // the nonzero pattern of row k of L: the reach of column k in the elimination tree
    int top = n_;
    flag[k] = k;
    for (Eigen::SparseMatrix<double>::InnerIterator it(U, k); it; ++it) {
      int i = static_cast<int>(it.row());
      y[i] += it.value();
      int len = 0;
      for (; flag[i] != k; i = parent_[i]) {
        pattern[len++] = i;
        flag[i] = k;
      }
      while (len > 0) pattern[--top] = pattern[--len];
    }
    d_[k] = y[k];
    y[k] = 0.0;
    for (; top < n_; ++top) {
      const int i = pattern[top];
      const double yi = y[i];
      y[i] = 0.0;
      const int p2 = Lp_[i] + lnz[i];
      for (int p = Lp_[i]; p < p2; ++p) y[Li_[p]] -= Lx_[p] * yi;
      const double lki = dropped_[i] ? 0.0 : yi / d_[i];  // a dropped row eliminates nothing
      d_[k] -= lki * yi;
      Li_[p2] = k;
      Lx_[p2] = lki;
      ++lnz[i];
    }
    dropped_[k] = !(d_[k] >= tau2);  // (Z1); NaN counts as dependent
    if (!dropped_[k]) ++rank_;
  }
}

void ZeroPivotLDLT::solve(const Eigen::VectorXd& e, Eigen::VectorXd& x,
                          Eigen::VectorXd* residual) const {
  Eigen::VectorXd z = P_ * e;
  Eigen::VectorXd r = Eigen::VectorXd::Zero(n_);
  for (int j = 0; j < n_; ++j)  // L z' = z
    for (int p = Lp_[j]; p < Lp_[j + 1]; ++p) z(Li_[p]) -= Lx_[p] * z(j);
  for (int j = 0; j < n_; ++j) {  // D⁺, and the dropped rows' residuals (Z2)
    if (dropped_[j]) {
      r(j) = -z(j);
      z(j) = 0.0;
    } else {
      z(j) /= d_[j];
    }
  }
  for (int j = n_ - 1; j >= 0; --j)  // Lᵀ x = z'
    for (int p = Lp_[j]; p < Lp_[j + 1]; ++p) z(j) -= Lx_[p] * z(Li_[p]);
  x = Pinv_ * z;
  if (residual) *residual = Pinv_ * r;
}

}  // namespace appell
