// Inverse dynamics of constrained systems: actuator forces with the constraint forces of
// the extra rows (appell/inverse_dynamics.hpp, N6).
#include <Eigen/QR>
#include <stdexcept>

#include "appell/inverse_dynamics.hpp"
#include "engine/assembly/row_terms.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/assembly/tree_accelerations.hpp"
#include "engine/model/tree.hpp"

namespace appell {

// the extra rows in tree coordinates, A_T = A J, row by row as Jᵀ of the row's unit force;
// their right side b_T = b − A J̇ u, since the bodies' accelerations are J u̇ + J̇ u (J̇ u =
// a0, pass 1 with u̇ = 0), so that A_T u̇ = b_T is the rows' A a = b at any velocity
void extra_rows_in_tree(const Model& m, Data& d, const State& s,
                        const std::vector<SpatialMotion>& a0, Eigen::MatrixXd& A,
                        Eigen::VectorXd& b) {
  const TreeModel& tree = m.tree();
  constraint_rows(m, d);  // no stabilization: the exact A u̇ = b
  A.setZero(tree.nrows_extra, tree.nu);
  b.setZero(tree.nrows_extra);
  std::vector<SpatialForce> w(m.nbody());
  Eigen::VectorXd col;
  int k = 0;
  for (int c : tree.extra)
    for (int i = 0; i < m.constraints()[c]->rows(); ++i, ++k) {
      for (SpatialForce& x : w) x = SpatialForce{};
      double bias = 0.0;  // the row's A J̇ u
      for_row_terms(m, d, c, i, [&](int body, const SpatialForce& t) {
        w[body] += t;  // [HO21 eq. 15] with λ = 1
        bias += t.force.dot(a0[body].linear);
        bias += t.moment.dot(a0[body].angular);
      });
      tree_generalized_forces(m, d, s.q, w, col);
      A.row(k) = col.transpose();
      b(k) = d.b(m.row_offset(c) + i) - bias;
    }
}

ConstrainedInverse inverse_dynamics_constrained(const Model& m, Data& d, const State& s,
                                                const Eigen::VectorXd& udot,
                                                const std::vector<int>& actuated) {
  const TreeModel& tree = m.tree();
  ConstrainedInverse out;
  inverse_dynamics(m, d, s, udot, out.tau_tree);
  std::vector<SpatialMotion> a0;
  tree_body_accelerations(m, d, s, Eigen::VectorXd::Zero(tree.nu), a0);
  extra_rows_in_tree(m, d, s, a0, out.A, out.b);
  const Eigen::VectorXd& Q = out.tau_tree;
  out.constraint_residual = tree.nrows_extra ? (out.A * udot - out.b).cwiseAbs().maxCoeff() : 0.0;
  // B: the actuated coordinates (all when none are named)
  std::vector<int> cols;
  if (actuated.empty()) {
    for (int j = 0; j < tree.nu; ++j) cols.push_back(j);
  } else {
    for (int i : actuated) {
      if (i < 0 || i >= static_cast<int>(tree.joints.size()))
        throw std::invalid_argument("inverse_dynamics_constrained(): actuated joint " +
                                    std::to_string(i) + " is not a tree joint");
      for (int k = 0; k < tree.joints[i].nu; ++k) cols.push_back(tree.joints[i].u_offset + k);
    }
  }
  const int na = static_cast<int>(cols.size()), nr = tree.nrows_extra;
  out.tau.setZero(tree.nu);
  if (actuated.empty()) {
    // minimum-norm τ: λ = (A_Tᵀ)⁺ Q, τ = Q − A_Tᵀ λ (N6)
    out.lambda = nr ? Eigen::VectorXd(out.A.transpose().completeOrthogonalDecomposition().solve(Q))
                    : Eigen::VectorXd();
    out.tau = nr ? Eigen::VectorXd(Q - out.A.transpose() * out.lambda) : Q;
  } else {
    // [B A_Tᵀ] (τ_a; λ) = Q, minimum norm, least squares (N6)
    Eigen::MatrixXd K(tree.nu, na + nr);
    K.setZero();
    for (int j = 0; j < na; ++j) K(cols[j], j) = 1.0;
    if (nr) K.rightCols(nr) = out.A.transpose();
    const Eigen::VectorXd x = K.completeOrthogonalDecomposition().solve(Q);
    for (int j = 0; j < na; ++j) out.tau(cols[j]) = x(j);
    out.lambda = x.tail(nr);
  }
  const Eigen::VectorXd r =
      out.tau +
      (nr ? Eigen::VectorXd(out.A.transpose() * out.lambda) : Eigen::VectorXd::Zero(tree.nu)) - Q;
  out.force_residual = tree.nu ? r.cwiseAbs().maxCoeff() : 0.0;
  return out;
}

}  // namespace appell
