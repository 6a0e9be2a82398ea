// Exact derivatives of the tree's dynamics (appell/derivatives.hpp).  Trees take the
// analytical derivatives of rnea_derivatives.cpp, whatever their joint types; trees with
// extra rows (loops, constraints) take forward-mode automatic differentiation through the
// recursive Newton–Euler kernel that inverse dynamics runs in double (engine/assembly/rnea.hpp,
// N1–N5), here in dual numbers, eight tangent directions per pass (derivatives_ad.cpp), which
// the tests also hold the analytical path against.  Both add the joint-space forces and the
// armature here.
#include "appell/derivatives.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <array>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

#include "appell/inverse_dynamics.hpp"
#include "appell/jacobians.hpp"
#include "appell/joint.hpp"
#include "appell/joint_forces.hpp"
#include "appell/model.hpp"
#include "appell/tree.hpp"
#include "bodies/dual_number.hpp"
#include "engine/formulations/recursive/derivatives_ad.hpp"
#include "engine/formulations/recursive/derivatives_paths.hpp"
#include "engine/formulations/recursive/rnea_derivatives.hpp"
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

namespace {

void check_sizes(const Model& m, const State& s, const Eigen::VectorXd& v, const char* what) {
  const TreeModel& tree = m.tree();
  if (s.q.size() != tree.nq || s.u.size() != tree.nu || v.size() != tree.nu)
    throw std::invalid_argument(std::string(what) + ": expected q (" + std::to_string(tree.nq) +
                                "), u and the third argument (" + std::to_string(tree.nu) +
                                " each)");
}

// the model's joint-space forces: τ_applied into qa and their derivatives into dq, du;
// throws for any force the derivatives do not cover
void joint_space_forces(const Model& m, const Data& d, const State& s, Eigen::VectorXd& qa,
                        Eigen::MatrixXd& dq, Eigen::MatrixXd& du) {
  const TreeModel& tree = m.tree();
  qa.setZero(tree.nu);
  dq.setZero(tree.nu, tree.nu);
  du.setZero(tree.nu, tree.nu);
  const StateView view = d.view();
  for (size_t k = 0; k < m.forces().size(); ++k) {
    const Force& force = *m.forces()[k];
    const auto* jf = dynamic_cast<const JointForce*>(&force);
    int joint = -1;
    if (jf) {
      for (int i = 0; i < static_cast<int>(tree.joints.size()); ++i) {
        const TreeJoint& t = tree.joints[i];
        if (t.constraint >= 0 && !t.reversed && m.constraints()[t.constraint].get() == &jf->joint())
          joint = i;
      }
    }
    std::string why;
    if (!jf)
      why = "is a body-space force";
    else if (joint < 0)
      why = "acts on a joint that is not a forward edge of the tree";
    if (joint >= 0) {
      const TreeJoint& t = tree.joints[joint];
      Eigen::MatrixXd a(t.nu, t.nu), b(t.nu, t.nu);
      if (jf->tau_derivatives(view, s.q.data() + t.q_offset, s.u.data() + t.u_offset, a.data(),
                              b.data())) {
        force.add_generalized_force(view, s.q.data() + t.q_offset, s.u.data() + t.u_offset,
                                    qa.data() + t.u_offset);
        dq.block(t.u_offset, t.u_offset, t.nu, t.nu) += a;
        du.block(t.u_offset, t.u_offset, t.nu, t.nu) += b;
        continue;
      }
      why =
          "gives no derivatives of its τ (an expression that reads the state, or a "
          "JointForce without tau_derivatives)";
    }
    throw std::invalid_argument("derivatives: force " + std::to_string(k) + " ('" + force.type() +
                                "') " + why + "; exact derivatives cover gravity and joint forces");
  }
}

}  // namespace

namespace {

// the rotors' torque armature · u̇ (JointProperties::armature), on τ and M's diagonal, for
// the analytical path (ad_columns adds its own)
void add_armature(const Model& m, const Eigen::VectorXd& udot, Eigen::VectorXd& tau,
                  Eigen::MatrixXd& M) {
  for (const TreeJoint& t : m.tree().joints)
    for (int k = 0; k < t.nu; ++k) {
      const int o = t.u_offset + k;
      tau(o) += t.armature * udot(o);
      M(o, o) += t.armature;
    }
}

// to -= from where from is the joint-space forces' derivatives: nonzero only in the
// joints' diagonal blocks
void subtract_joint_blocks(const Model& m, const Eigen::MatrixXd& from, Eigen::MatrixXd& to) {
  for (const TreeJoint& t : m.tree().joints)
    to.block(t.u_offset, t.u_offset, t.nu, t.nu) -= from.block(t.u_offset, t.u_offset, t.nu, t.nu);
}

// The derivatives of the constrained accelerations and multipliers: with the extra rows in
// joint space A (m × nu) and b,
//   M u̇ + h(q, u) − τ = Aᵀλ,   A u̇ = b,
// both residuals are differentiated exactly by the dual passes at the solution (u̇, λ)
// held constant, R = ID(q, u, u̇) − Aᵀλ − τ and r = A u̇ − b:
//   M δu̇ − Aᵀ δλ = −∂R/∂x δx + δτ,   A δu̇ = −∂r/∂x δx,
// solved by δu̇ = M⁻¹ (ρ + Aᵀ δλ), (A M⁻¹ Aᵀ) δλ = σ − A M⁻¹ ρ.  A redundant set of rows
// takes the least-squares δλ (complete orthogonal decomposition): δu̇ is unique, δλ is the
// least-norm one.  tau: the generalized forces with the joint-space ones; dqa, dua: theirs.
void constrained_forward_derivatives(const Model& m, const State& s, const Eigen::VectorXd& tau,
                                     const Eigen::MatrixXd& dqa, const Eigen::MatrixXd& dua,
                                     ForwardDerivatives& out) {
  const int nu = m.tree().nu;
  // M, the bias h = ID(q, u, 0), A = ∂r/∂u̇ and r = −b from the u̇ directions at u̇ = 0, λ = 0
  Eigen::MatrixXd cols(nu, 3 * nu);
  derivative_detail::RowColumns rows;
  Eigen::VectorXd bias;
  derivative_detail::ad_columns(m, s, Eigen::VectorXd::Zero(nu), 2 * nu, 3 * nu, bias, cols, &rows);
  const Eigen::LLT<Eigen::MatrixXd> llt(cols.rightCols(nu));
  if (llt.info() != Eigen::Success)
    throw std::invalid_argument("forward_dynamics_derivatives(): the mass matrix is singular");
  out.A = rows.dr.rightCols(nu);
  const Eigen::MatrixXd MiAt = llt.solve(out.A.transpose());
  const Eigen::MatrixXd G = out.A * MiAt;
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(G);
  cod.setThreshold(1e-12);
  const Eigen::VectorXd free = llt.solve(tau - bias);
  out.lambda = cod.solve(-rows.r - out.A * free);
  out.udot = free + MiAt * out.lambda;
  // ∂R/∂x and ∂r/∂x from the q and u directions at (u̇, λ)
  rows.lambda = out.lambda;
  Eigen::VectorXd at;
  derivative_detail::ad_columns(m, s, out.udot, 0, 2 * nu, at, cols, &rows);
  Eigen::MatrixXd rho(nu, 3 * nu), sigma(rows.r.size(), 3 * nu);
  rho << -(cols.leftCols(nu) - dqa), -(cols.middleCols(nu, nu) - dua),
      Eigen::MatrixXd::Identity(nu, nu);
  sigma << -rows.dr.leftCols(2 * nu), Eigen::MatrixXd::Zero(rows.r.size(), nu);
  const Eigen::MatrixXd Y = llt.solve(rho);
  const Eigen::MatrixXd dl = cod.solve(sigma - out.A * Y);
  const Eigen::MatrixXd du = Y + MiAt * dl;
  out.dudot_dq = du.leftCols(nu);
  out.dudot_du = du.middleCols(nu, nu);
  out.dudot_dtau = du.rightCols(nu);
  out.dlambda_dq = dl.leftCols(nu);
  out.dlambda_du = dl.middleCols(nu, nu);
  out.dlambda_dtau = dl.rightCols(nu);
  out.dpi_dq = rows.dpi.leftCols(nu);
}

}  // namespace

namespace detail {

DerivativePath derivative_path(const Model&) {
  return DerivativePath::Analytic;
}

void inverse_dynamics_derivatives(const Model& m, Data& d, const State& s,
                                  const Eigen::VectorXd& udot, InverseDerivatives& out,
                                  DerivativePath path) {
  check_sizes(m, s, udot, "inverse_dynamics_derivatives()");
  const int nu = m.tree().nu;
  set_state(m, d, s);  // the body states of the forces' StateView
  Eigen::VectorXd qa;
  Eigen::MatrixXd dqa, dua;
  joint_space_forces(m, d, s, qa, dqa, dua);
  if (path == DerivativePath::Analytic) {
    RneaDerivatives rd(m, s);
    rd.derivatives(udot, out.tau, out.dtau_dq, out.dtau_du, &out.M);
    add_armature(m, udot, out.tau, out.M);
    out.tau -= qa;
    subtract_joint_blocks(m, dqa, out.dtau_dq);
    subtract_joint_blocks(m, dua, out.dtau_du);
    return;
  }
  Eigen::MatrixXd cols(nu, 3 * nu);
  derivative_detail::ad_columns(m, s, udot, 0, 3 * nu, out.tau, cols);
  out.tau -= qa;
  out.dtau_dq = cols.leftCols(nu) - dqa;
  out.dtau_du = cols.middleCols(nu, nu) - dua;
  out.M = cols.rightCols(nu);
}

void forward_dynamics_derivatives(const Model& m, Data& d, const State& s,
                                  const Eigen::VectorXd& tau, ForwardDerivatives& out,
                                  DerivativePath path) {
  const TreeModel& tree = m.tree();
  const int nu = tree.nu;
  const Eigen::VectorXd t = tau.size() == 0 ? Eigen::VectorXd::Zero(nu) : tau;
  check_sizes(m, s, t, "forward_dynamics_derivatives()");
  set_state(m, d, s);
  Eigen::VectorXd qa, bias;
  Eigen::MatrixXd dqa, dua;
  joint_space_forces(m, d, s, qa, dqa, dua);
  out.A.resize(0, nu);
  out.lambda.resize(0);
  out.dlambda_dq.resize(0, nu), out.dlambda_du.resize(0, nu), out.dlambda_dtau.resize(0, nu);
  out.dpi_dq.resize(0, nu);
  if (tree.nrows_extra > 0) {
    constrained_forward_derivatives(m, s, t + qa, dqa, dua, out);
    return;
  }
  if (path == DerivativePath::Analytic) {
    // the bias ID(q, u, 0), u̇ = M⁻¹ (τ − bias), then ∂τ/∂q, ∂τ/∂u there (eq. 7 of the paper), each
    // product with M⁻¹ by the recursion's own articulated-body factor (passes 1 and 2) in
    // O(n) per column
    RneaDerivatives rd(m, s);
    rd.tau(Eigen::VectorXd::Zero(nu), bias);
    RecursiveWorkspace& ws = recursive_workspace(m, d);
    kinematics_BaseToTip(m, tree, s.q, s.u, d, ws);
    inertia_bias_TipToBase(tree, ws);  // the articulated inertias; the biases are not used
    ArticulatedSolveWork work;
    if (!articulated_factor_at_origin(tree, ws, work))
      throw std::invalid_argument("forward_dynamics_derivatives(): the mass matrix is singular");
    RowMatrix X = t - (bias - qa);
    articulated_solve(tree, ws, X, work);
    out.udot = X.col(0);
    Eigen::VectorXd tau_at;
    Eigen::MatrixXd dq, du;
    rd.derivatives(out.udot, tau_at, dq, du);
    subtract_joint_blocks(m, dqa, dq);
    subtract_joint_blocks(m, dua, du);
    X.resize(nu, 3 * nu);
    X << dq, du, Eigen::MatrixXd::Identity(nu, nu);
    articulated_solve(tree, ws, X, work);
    out.dudot_dq = -X.leftCols(nu);
    out.dudot_du = -X.middleCols(nu, nu);
    out.dudot_dtau = X.rightCols(nu);
    return;
  }
  Eigen::MatrixXd cols(nu, 3 * nu);
  // M and the bias ID(q, u, 0) from the u̇ directions at u̇ = 0, u̇ = M⁻¹ (τ − bias), then
  // the q and u directions there (eq. 7 of the paper)
  derivative_detail::ad_columns(m, s, Eigen::VectorXd::Zero(nu), 2 * nu, 3 * nu, bias, cols);
  const Eigen::LLT<Eigen::MatrixXd> llt(cols.rightCols(nu));
  if (llt.info() != Eigen::Success)
    throw std::invalid_argument("forward_dynamics_derivatives(): the mass matrix is singular");
  out.udot = llt.solve(t - (bias - qa));
  Eigen::VectorXd tau_at;
  derivative_detail::ad_columns(m, s, out.udot, 0, 2 * nu, tau_at, cols);
  out.dudot_dtau = llt.solve(Eigen::MatrixXd::Identity(nu, nu));
  out.dudot_dq.noalias() = -(out.dudot_dtau * (cols.leftCols(nu) - dqa));
  out.dudot_du.noalias() = -(out.dudot_dtau * (cols.middleCols(nu, nu) - dua));
}

}  // namespace detail

void inverse_dynamics_derivatives(const Model& m, Data& d, const State& s,
                                  const Eigen::VectorXd& udot, InverseDerivatives& out) {
  detail::inverse_dynamics_derivatives(m, d, s, udot, out, detail::derivative_path(m));
}

void forward_dynamics_derivatives(const Model& m, Data& d, const State& s,
                                  const Eigen::VectorXd& tau, ForwardDerivatives& out) {
  detail::forward_dynamics_derivatives(m, d, s, tau, out, detail::derivative_path(m));
}

void state_jacobian(const Model& m, Data& d, const State& s, Eigen::MatrixXd& J,
                    Eigen::VectorXd* udot) {
  const TreeModel& tree = m.tree();
  const int nq = tree.nq, nu = tree.nu;
  ForwardDerivatives fd;
  forward_dynamics_derivatives(m, d, s, Eigen::VectorXd(), fd);
  if (udot) *udot = fd.udot;
  // T = ∂δ/∂q (nu × nq) and the kinematic blocks ∂q̇/∂q, ∂q̇/∂u, joint by joint
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(nu, nq);
  J.setZero(nq + nu, nq + nu);
  double e[8], base[8], moved[8], qk[8];
  for (const TreeJoint& t : tree.joints) {
    const double* q = s.q.data() + t.q_offset;
    const double* u = s.u.data() + t.u_offset;
    const int quat = t.type->quaternion();
    for (int k = 0; k < t.nq; ++k) {
      const bool in_quat = quat >= 0 && k >= quat && k < quat + 4;
      if (!in_quat) T(t.u_offset + (quat >= 0 && k > quat ? k - 3 : k), t.q_offset + k) = 1.0;
    }
    if (quat >= 0) {
      // (0, δ) = 2 dq ⊗ q̄ at a unit q; δ's components are u's at quat .. quat + 2
      const Quat qbar(q[quat], -q[quat + 1], -q[quat + 2], -q[quat + 3]);
      for (int c = 0; c < 4; ++c) {
        Eigen::Vector4d dq = Eigen::Vector4d::Zero();
        dq(c) = 1.0;
        const Quat r = Quat(dq(0), dq(1), dq(2), dq(3)) * qbar;
        T(t.u_offset + quat, t.q_offset + quat + c) = 2 * r.x();
        T(t.u_offset + quat + 1, t.q_offset + quat + c) = 2 * r.y();
        T(t.u_offset + quat + 2, t.q_offset + quat + c) = 2 * r.z();
      }
    }
    // q̇ = N(q) u is linear in u and affine in q for every type: unit steps are exact
    for (int k = 0; k < t.nu; ++k) {
      std::fill(e, e + 8, 0.0);
      e[k] = 1.0;
      t.type->qdot(q, e, moved);
      for (int r = 0; r < t.nq; ++r) J(t.q_offset + r, nq + t.u_offset + k) = moved[r];
    }
    t.type->qdot(q, u, base);
    for (int k = 0; k < t.nq; ++k) {
      std::copy(q, q + t.nq, qk);
      qk[k] += 1.0;
      t.type->qdot(qk, u, moved);
      for (int r = 0; r < t.nq; ++r) J(t.q_offset + r, t.q_offset + k) = moved[r] - base[r];
    }
  }
  J.bottomLeftCorner(nu, nq) = fd.dudot_dq * T;
  J.bottomRightCorner(nu, nu) = fd.dudot_du;
}

Eigen::VectorXd tangent_step(const Model& m, const Eigen::VectorXd& q,
                             const Eigen::VectorXd& delta) {
  Eigen::VectorXd out = q;
  for (const TreeJoint& t : m.tree().joints) {
    double qd[8];
    t.type->qdot(q.data() + t.q_offset, delta.data() + t.u_offset, qd);
    for (int k = 0; k < t.nq; ++k) out(t.q_offset + k) += qd[k];
    t.type->normalize(out.data() + t.q_offset);
  }
  return out;
}

}  // namespace appell
