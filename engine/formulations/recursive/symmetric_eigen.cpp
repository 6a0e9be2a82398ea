// The eigen-decomposition of a small symmetric matrix by cyclic Jacobi rotations
// [Golub & Van Loan §8.5]; unlike Eigen's SelfAdjointEigenSolver it never allocates.
#include <Eigen/Jacobi>

#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

void symmetric_eigen_jacobi(Eigen::MatrixXd& G, Eigen::MatrixXd& V) {
  const int n = static_cast<int>(G.rows());
  V.setIdentity();
  for (int sweep = 0; sweep < 60; ++sweep) {
    double off = 0.0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) off += G(p, q) * G(p, q);
    if (off <= 1e-34 * G.diagonal().squaredNorm()) break;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        if (G(p, q) == 0.0) continue;
        Eigen::JacobiRotation<double> J;
        J.makeJacobi(G, p, q);
        G.applyOnTheLeft(p, q, J.adjoint());
        G.applyOnTheRight(p, q, J);
        V.applyOnTheRight(p, q, J);
      }
  }
}

}  // namespace appell
