// Body Jacobians, the joint-space mass matrix and joint-space forward dynamics with added
// joint forces (appell/jacobians.hpp).
#include "appell/jacobians.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <stdexcept>
#include <string>
#include <vector>

#include "appell/forward.hpp"
#include "appell/inverse_dynamics.hpp"
#include "appell/tree.hpp"

namespace appell {

namespace {

void check_body(const Model& m, int body, const char* caller) {
  if (body < 0 || body >= m.nbody())
    throw std::invalid_argument(std::string(caller) + ": no body " + std::to_string(body) +
                                " (the model has " + std::to_string(m.nbody()) + ")");
}

// the rows of J_p by virtual power (jacobians.hpp); d.body must hold the state at s.q
void jacobian_rows(const Model& m, const Data& d, const Eigen::VectorXd& q, int body, const Vec3& p,
                   std::vector<SpatialForce>& w, Eigen::VectorXd& tau, Eigen::MatrixXd& J) {
  J.setZero(6, m.tree().nu);
  const Vec3 r = p - d.body[body].x;
  // a row per velocity of the body's own: v̄, then ω (a particle has none: its rows stay 0)
  for (int k = 0; k < m.bodies()[body].nu(); ++k) {
    SpatialForce& wb = w[body];
    wb = SpatialForce{};
    if (k < 3)
      wb.add_at(r, Vec3::Unit(k));
    else
      wb.moment = Vec3::Unit(k - 3);
    tree_generalized_forces(m, d, q, w, tau);
    J.row(k) = tau.transpose();
  }
  w[body] = SpatialForce{};
}

}  // namespace

void body_jacobian(const Model& m, Data& d, const State& s, int body, const Vec3& p,
                   Eigen::MatrixXd& J) {
  check_body(m, body, "body_jacobian()");
  set_state(m, d, s);
  std::vector<SpatialForce> w(m.nbody());
  Eigen::VectorXd tau;
  jacobian_rows(m, d, s.q, body, p, w, tau, J);
}

void mass_matrix(const Model& m, Data& d, const State& s, Eigen::MatrixXd& M) {
  set_state(m, d, s);
  const int nu = m.tree().nu;
  M.setZero(nu, nu);
  std::vector<SpatialForce> w(m.nbody());
  Eigen::VectorXd tau;
  Eigen::MatrixXd J;
  for (int b = 0; b < m.nbody(); ++b) {
    const Body& body = m.bodies()[b];
    jacobian_rows(m, d, s.q, b, d.body[b].x, w, tau, J);
    M.noalias() += body.mass * J.topRows<3>().transpose() * J.topRows<3>();
    M.noalias() += J.bottomRows<3>().transpose() * d.J[b] * J.bottomRows<3>();  // 0 for a particle
  }
  // exactly symmetric, whatever the rounding of the two products
  M = 0.5 * (M + M.transpose()).eval();
  for (const TreeJoint& t : m.tree().joints)  // rotor inertia on the joint's own diagonal
    for (int k = 0; k < t.nu; ++k) M(t.u_offset + k, t.u_offset + k) += t.armature;
}

JointForward::JointForward(const Model& m)
    : m_(m), d_(m), space_(make_state_space(m, SolverOptions{Formulation::Recursive, {}})) {}

SolveStatus JointForward::operator()(const State& s, const Eigen::VectorXd& tau,
                                     Eigen::VectorXd& udot) {
  const TreeModel& tree = m_.tree();
  if (s.q.size() != tree.nq || s.u.size() != tree.nu)
    throw std::invalid_argument(
        "forward_dynamics(): the State has nq = " + std::to_string(s.q.size()) +
        ", nu = " + std::to_string(s.u.size()) + ", expected nq = " + std::to_string(tree.nq) +
        ", nu = " + std::to_string(tree.nu));
  if (tau.size() != 0 && tau.size() != tree.nu)
    throw std::invalid_argument("forward_dynamics(): tau has " + std::to_string(tau.size()) +
                                " entries, expected nu = " + std::to_string(tree.nu));
  x_.resize(tree.nq + tree.nu);
  x_ << s.q, s.u;
  const SolveStatus status = space_->derivative(x_, s.t, d_, xdot_);
  udot = xdot_.tail(tree.nu);
  if (tau.size() == 0 || status != SolveStatus::Ok) return status;
  // Δu̇ = M⁻¹ (τ − A_Tᵀ λ) (jacobians.hpp); the diagnostics stay those of the τ = 0 pass
  const Diagnostics kept = d_.diagnostics;
  mass_matrix(m_, d_, s, M_);
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(M_);
  Eigen::VectorXd du = ldlt.solve(tau);
  if (tree.nrows_extra > 0) {
    const ConstrainedInverse rows =
        inverse_dynamics_constrained(m_, d_, s, Eigen::VectorXd::Zero(tree.nu));
    const Eigen::MatrixXd MinvAt = ldlt.solve(rows.A.transpose());
    const Eigen::MatrixXd S = rows.A * MinvAt;
    const Eigen::VectorXd lambda =
        Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(S).solve(rows.A * du);
    du -= MinvAt * lambda;
  }
  udot += du;
  d_.diagnostics = kept;
  if (!udot.allFinite()) {
    d_.diagnostics.status = SolveStatus::NotFinite;
    d_.diagnostics.message = "forward_dynamics(): the accelerations with tau are not finite";
  }
  return d_.diagnostics.status;
}

}  // namespace appell
