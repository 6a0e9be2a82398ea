// Eigenvalues and eigenvectors of a linear model's A (appell/derivatives.hpp modes()).
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <cmath>
#include <stdexcept>

#include "appell/derivatives.hpp"

namespace appell {

LinearModes modes(const LinearModel& lm) {
  const Eigen::MatrixXd& A = lm.A;
  const int n = static_cast<int>(A.rows());
  LinearModes out;
  out.values = Eigen::VectorXcd::Zero(n);
  out.vectors = Eigen::MatrixXcd::Zero(n, n);
  if (n == 0) return out;
  // Set aside, one at a time, a state whose column is nil in the rows still kept: nothing
  // the kept states do depends on it, so it adds an exact eigenvalue 0.  Cyclic coordinates
  // (a position along the road, a heading, a wheel's angle) are such states, and the chains
  // they form (y' = v ψ, ψ' = …) are Jordan blocks of 0 whose rounding an eigen-solver
  // spreads over a disc of radius ε^(1/k), close to the small eigenvalues near a critical
  // speed.  "Nil" is below the derivatives' own accuracy, 1e-12 of the largest entry.
  const double tol = 1e-12 * A.cwiseAbs().maxCoeff();
  std::vector<char> kept(n, 1);
  std::vector<int> aside;  // in the order set aside
  for (bool changed = true; changed;) {
    changed = false;
    for (int j = 0; j < n; ++j) {
      if (!kept[j]) continue;
      bool nil = true;
      for (int i = 0; i < n && nil; ++i)
        if (kept[i] && std::abs(A(i, j)) > tol) nil = false;
      if (nil) kept[j] = 0, aside.push_back(j), changed = true;
    }
  }
  std::vector<int> K;
  for (int j = 0; j < n; ++j)
    if (kept[j]) K.push_back(j);
  const int nk = static_cast<int>(K.size()), nd = static_cast<int>(aside.size());
  Eigen::MatrixXd AKK(nk, nk), ADK(nd, nk), ADD(nd, nd);
  for (int a = 0; a < nk; ++a)
    for (int b = 0; b < nk; ++b) AKK(a, b) = A(K[a], K[b]);
  for (int a = 0; a < nd; ++a) {
    for (int b = 0; b < nk; ++b) ADK(a, b) = A(aside[a], K[b]);
    for (int b = 0; b < nd; ++b) ADD(a, b) = A(aside[a], aside[b]);
  }
  int col = 0;
  if (nk > 0) {
    Eigen::EigenSolver<Eigen::MatrixXd> es(AKK, true);
    if (es.info() != Eigen::Success) throw std::runtime_error("eigenvalues did not converge");
    for (int k = 0; k < nk; ++k, ++col) {
      const std::complex<double> l = es.eigenvalues()(k);
      const Eigen::VectorXcd vK = es.eigenvectors().col(k);
      // the states set aside follow: (λ I − A_DD) v_D = A_DK v_K (A_DD is nilpotent)
      const Eigen::MatrixXcd L =
          l * Eigen::MatrixXcd::Identity(nd, nd) - ADD.cast<std::complex<double>>();
      const Eigen::VectorXcd vD = nd > 0
                                      ? Eigen::VectorXcd(L.completeOrthogonalDecomposition().solve(
                                            ADK.cast<std::complex<double>>() * vK))
                                      : Eigen::VectorXcd();
      out.values(col) = l;
      for (int a = 0; a < nk; ++a) out.vectors(K[a], col) = vK(a);
      for (int a = 0; a < nd; ++a) out.vectors(aside[a], col) = vD(a);
    }
  }
  // each state set aside: eigenvalue 0, shown moving that state alone (a Jordan chain has
  // one true eigenvector; the others are its generalized vectors)
  for (int a = 0; a < nd; ++a, ++col) out.vectors(aside[a], col) = 1.0;
  out.cyclic = nd;
  return out;
}

}  // namespace appell
