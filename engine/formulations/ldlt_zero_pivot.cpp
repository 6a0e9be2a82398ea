#include "engine/formulations/ldlt_zero_pivot.hpp"

#include <Eigen/OrderingMethods>
#include <algorithm>

namespace appell {

namespace {

using SpMat = Eigen::SparseMatrix<double>;

// the reach of column k of the upper pattern in the elimination tree: the columns i < k
// with l_ki ≠ 0, in topological order (descendants first), at pattern[top..n)
// [Davis 2005, ldl_numeric]
int reach(int k, const std::vector<int>& Kp, const std::vector<int>& Ki,
          const std::vector<int>& parent, std::vector<int>& flag, std::vector<int>& pattern) {
  const int n = static_cast<int>(parent.size());
  int top = n;
  flag[k] = k;
  for (int p = Kp[k]; p < Kp[k + 1]; ++p) {
    int len = 0;
    for (int i = Ki[p]; flag[i] != k; i = parent[i]) {
      pattern[len++] = i;
      flag[i] = k;
    }
    while (len > 0) pattern[--top] = pattern[--len];
  }
  return top;
}

}  // namespace

void ZeroPivotLDLT::analyze(const SpMat& K) {
  n_ = static_cast<int>(K.rows());
  // fill-reducing order (AMD on the pattern of K + Kᵀ)
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> Pinv;
  SpMat pattern = K;
  for (int c = 0; c < pattern.outerSize(); ++c)
    for (SpMat::InnerIterator it(pattern, c); it; ++it) it.valueRef() = 1.0;
  Eigen::AMDOrdering<int> amd;
  amd(pattern, Pinv);
  perm_.assign(Pinv.indices().data(), Pinv.indices().data() + n_);
  iperm_.assign(n_, 0);
  for (int k = 0; k < n_; ++k) iperm_[perm_[k]] = k;

  // the upper triangle of P K Pᵀ, column by column, rows ascending
  Kp_.assign(n_ + 1, 0);
  for (int c = 0; c < K.outerSize(); ++c)
    for (SpMat::InnerIterator it(K, c); it; ++it) {
      const int i = iperm_[static_cast<int>(it.row())], j = iperm_[c];
      if (i <= j) ++Kp_[j + 1];
    }
  for (int k = 0; k < n_; ++k) Kp_[k + 1] += Kp_[k];
  Ki_.assign(Kp_[n_], 0);
  Kx_.assign(Kp_[n_], 0.0);
  std::vector<int> next(Kp_.begin(), Kp_.end() - 1);
  for (int c = 0; c < K.outerSize(); ++c)
    for (SpMat::InnerIterator it(K, c); it; ++it) {
      const int i = iperm_[static_cast<int>(it.row())], j = iperm_[c];
      if (i <= j) Ki_[next[j]++] = i;
    }
  for (int k = 0; k < n_; ++k) std::sort(Ki_.begin() + Kp_[k], Ki_.begin() + Kp_[k + 1]);

  // elimination tree and column counts of L [Davis 2005, ldl_symbolic]
  std::vector<int> parent(n_, -1), flag(n_), lnz(n_, 0);
  for (int k = 0; k < n_; ++k) {
    flag[k] = k;
    for (int p = Kp_[k]; p < Kp_[k + 1]; ++p)
      for (int i = Ki_[p]; i < k && flag[i] != k; i = parent[i]) {
        if (parent[i] == -1) parent[i] = k;
        ++lnz[i];
        flag[i] = k;
      }
  }
  Lp_.assign(n_ + 1, 0);
  for (int k = 0; k < n_; ++k) Lp_[k + 1] = Lp_[k] + lnz[k];
  Li_.assign(Lp_[n_], 0);
  Lx_.assign(Lp_[n_], 0.0);

  // rows of L: the reach of each column, and where each l_ki goes (rows ascend in column i)
  Rp_.assign(n_ + 1, 0);
  Rc_.assign(Lp_[n_], 0);
  Rs_.assign(Lp_[n_], 0);
  std::vector<int> stack(n_);
  std::fill(lnz.begin(), lnz.end(), 0);
  std::fill(flag.begin(), flag.end(), -1);
  for (int k = 0, q = 0; k < n_; ++k) {
    for (int top = reach(k, Kp_, Ki_, parent, flag, stack); top < n_; ++top, ++q) {
      const int i = stack[top], s = Lp_[i] + lnz[i]++;
      Li_[s] = k;
      Rc_[q] = i;
      Rs_[q] = s;
    }
    Rp_[k + 1] = q;
  }
  d_.assign(n_, 0.0);
  y_.assign(n_, 0.0);
  s_.assign(n_, 1.0);
  dropped_.assign(n_, 0);
  rank_ = 0;
}

int ZeroPivotLDLT::slot(int i, int j) const {
  int a = iperm_[i], b = iperm_[j];
  if (a > b) std::swap(a, b);
  const auto first = Ki_.begin() + Kp_[b], last = Ki_.begin() + Kp_[b + 1];
  const auto it = std::lower_bound(first, last, a);
  return it != last && *it == a ? static_cast<int>(it - Ki_.begin()) : -1;
}

void ZeroPivotLDLT::factorize(double tau, const Eigen::VectorXd* scale) {
  for (int k = 0; k < n_; ++k) s_[k] = scale ? (*scale)(perm_[k]) : 1.0;
  // row k of L by a sparse triangular solve on the precomputed reach, pivots tested by (Z1)
  // [Davis 2005, ldl_numeric, with dropped columns left zero]
  const double tau2 = tau * tau;
  rank_ = 0;
  for (int k = 0; k < n_; ++k) {
    for (int p = Kp_[k]; p < Kp_[k + 1]; ++p) y_[Ki_[p]] += s_[Ki_[p]] * Kx_[p] * s_[k];
    double dk = y_[k];
    y_[k] = 0.0;
    for (int q = Rp_[k]; q < Rp_[k + 1]; ++q) {
      const int i = Rc_[q], s = Rs_[q];
      const double yi = y_[i];
      y_[i] = 0.0;
      for (int p = Lp_[i]; p < s; ++p) y_[Li_[p]] -= Lx_[p] * yi;
      const double lki = dropped_[i] ? 0.0 : yi / d_[i];  // a dropped row eliminates nothing
      dk -= lki * yi;
      Lx_[s] = lki;
    }
    d_[k] = dk;
    dropped_[k] = !(dk >= tau2);  // (Z1); NaN counts as dependent
    if (!dropped_[k]) ++rank_;
  }
}

void ZeroPivotLDLT::compute(const SpMat& K, double tau) {
  analyze(K);
  for (int c = 0; c < K.outerSize(); ++c)
    for (SpMat::InnerIterator it(K, c); it; ++it)
      if (iperm_[static_cast<int>(it.row())] <= iperm_[c])
        Kx_[slot(static_cast<int>(it.row()), c)] += it.value();
  factorize(tau);
}

void ZeroPivotLDLT::solve(const Eigen::VectorXd& e, Eigen::VectorXd& x, Eigen::VectorXd* residual) {
  std::vector<double>& z = y_;  // zero after factorize(); left zero again below
  for (int k = 0; k < n_; ++k) z[k] = e(perm_[k]);
  for (int j = 0; j < n_; ++j)  // L z' = z
    for (int p = Lp_[j]; p < Lp_[j + 1]; ++p) z[Li_[p]] -= Lx_[p] * z[j];
  if (residual) residual->setZero(n_);
  for (int j = 0; j < n_; ++j) {  // D⁺, and the dropped rows' residuals (Z2)
    if (dropped_[j]) {
      if (residual) (*residual)(perm_[j]) = -z[j];
      z[j] = 0.0;
    } else {
      z[j] /= d_[j];
    }
  }
  for (int j = n_ - 1; j >= 0; --j)  // Lᵀ x = z'
    for (int p = Lp_[j]; p < Lp_[j + 1]; ++p) z[j] -= Lx_[p] * z[Li_[p]];
  x.resize(n_);
  for (int k = 0; k < n_; ++k) {
    x(perm_[k]) = z[k];
    z[k] = 0.0;
  }
}

}  // namespace appell
