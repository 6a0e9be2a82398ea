// A rigid-body scene reduced to the system the Lagrangian machinery solves, in the user's
// quasi-velocities (appell/rigid_quasi_velocities.hpp).  Ref: [L96] §5.3, (5.4), Thm 7.1.
//
// The terms come from the engine's joint-space path: M(q) from mass_matrix(), f = −ID(q, u,
// 0) from inverse_dynamics() (RNEA), the extra rows A_T u̇ = b_T from extra_rows_in_tree().
// A quasi-velocity ν = φ(z) of the scene language's variables z is affine in the
// velocities; its row in the tree's u follows by the chain rule, as a constraint row does:
//   ∂φ/∂v̄_b, ∂φ/∂ω_b                  the row's force and moment on body b
//   ∂φ/∂qd(j)_k                        times joint j's rate row u̇_k = Σ (lin·v̄̇ + ang·ω̇) + bias
//                                       (appell/joint_state.hpp G2): its terms and bias
//   ∂φ/∂x̄_b, ∂φ/∂q_b, ∂φ/∂q(j), ∂φ/∂t   into β only: times v̄_b, ½ (0, ω) ⊗ q, N(q) u, 1
// so that ν̇ = Σ_b (force·v̄̇_b + moment·ω̇_b) + bias.  With the bodies' accelerations
// J u̇ + J̇ u (J̇ u = a0: pass 1 of RNEA with u̇ = 0),
//   C = Jᵀ (the row's wrenches),   β = bias + Σ_b (force·a0_b,lin + moment·a0_b,ang)     (V1)
// exactly as extra_rows_in_tree() maps a constraint's row; C is one pass 2 of RNEA.
#include "appell/rigid_quasi_velocities.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>

#include "appell/forward.hpp"
#include "appell/inverse_dynamics.hpp"
#include "appell/jacobians.hpp"
#include "appell/joint.hpp"
#include "appell/joint_state.hpp"
#include "engine/assembly/tree_accelerations.hpp"
#include "engine/formulations/projection.hpp"
#include "engine/lagrangian/first_order.hpp"
#include "engine/lagrangian/sweep.hpp"
#include "engine/model/tree.hpp"

namespace appell {

namespace {

bool velocity_kind(const ExprVariable& v) {
  return v.kind == ExprVariable::Kind::Velocity || v.kind == ExprVariable::Kind::AngularVelocity ||
         v.kind == ExprVariable::Kind::JointU;
}

// the rate of b's quaternion (w ≥ 0 representative, as the expression reads it), ½ (0, ω) ⊗ q
Eigen::Vector4d quaternion_rate(const BodyState& b) {
  Quat o(b.Q);
  if (o.w() < 0) o.coeffs() = -o.coeffs();
  const Quat r = Quat(0.0, b.w.x(), b.w.y(), b.w.z()) * o;
  return 0.5 * Eigen::Vector4d(r.w(), r.x(), r.y(), r.z());
}

// The values of e's variables at s (as the expression's own sweep reads them).
void variable_values(const Expression& e, const StateView& s, std::vector<double>& x) {
  x.clear();
  for (const ExprVariable& v : e.variables()) {
    switch (v.kind) {
      case ExprVariable::Kind::Time:
        x.push_back(s.t);
        break;
      case ExprVariable::Kind::Position:
        x.push_back(s.bodies[v.body].x(v.axis));
        break;
      case ExprVariable::Kind::Velocity:
        x.push_back(s.bodies[v.body].v(v.axis));
        break;
      case ExprVariable::Kind::AngularVelocity:
        x.push_back(s.bodies[v.body].w(v.axis));
        break;
      case ExprVariable::Kind::Orientation: {
        Quat o(s.bodies[v.body].Q);
        if (o.w() < 0) o.coeffs() = -o.coeffs();
        x.push_back(v.axis == 0 ? o.w() : o.vec()(v.axis - 1));
        break;
      }
      case ExprVariable::Kind::JointQ:
      case ExprVariable::Kind::JointU: {
        double q[8], u[6];
        joint_coordinates(*v.joint, s, q, u);
        x.push_back(v.kind == ExprVariable::Kind::JointQ ? q[v.axis] : u[v.axis]);
        break;
      }
      default:
        x.push_back(std::nan(""));
    }
  }
}

// (V1): row i of W, ν_i and β_i at x; d.data.body and d.a0 hold x's
void quasi_velocity_row(const RigidNuSystem& s, const State& x, int i, RigidNuData& d) {
  const Expression& e = s.quasi_velocities[i].expression;
  const StateView view{d.data.body.data(), x.t, d.scratch.data(), d.scratch.size()};
  const Expression::Jet jet = e.evaluate(view, d.grad.data(), false);
  for (SpatialForce& w : d.w) w = SpatialForce{};
  double bias = 0.0;
  const auto& vars = e.variables();
  for (size_t k = 0; k < vars.size(); ++k) {
    const ExprVariable& v = vars[k];
    const double g = d.grad[k];
    switch (v.kind) {
      case ExprVariable::Kind::Time:
        bias += g;
        break;
      case ExprVariable::Kind::Position:
        bias += g * view.bodies[v.body].v(v.axis);
        break;
      case ExprVariable::Kind::Velocity:
        d.w[v.body].force(v.axis) += g;
        break;
      case ExprVariable::Kind::AngularVelocity:
        d.w[v.body].moment(v.axis) += g;
        break;
      case ExprVariable::Kind::Orientation:
        bias += g * quaternion_rate(view.bodies[v.body])(v.axis);
        break;
      case ExprVariable::Kind::JointQ: {
        double q[8], u[6], qd[8];
        joint_coordinates(*v.joint, view, q, u);
        v.joint->joint_type().qdot(q, u, qd);  // (J4)
        bias += g * qd[v.axis];
        break;
      }
      case ExprVariable::Kind::JointU: {
        // (G2) of appell/joint_state.hpp
        const JointRateRow row = joint_rate_row(*v.joint, view, v.axis);
        bias += g * row.bias;
        const int P = v.joint->parent(), C = v.joint->child();
        if (P != kWorld) {
          d.w[P].force += g * row.parent.force;
          d.w[P].moment += g * row.parent.moment;
        }
        if (C != kWorld) {
          d.w[C].force += g * row.child.force;
          d.w[C].moment += g * row.child.moment;
        }
        break;
      }
      default:
        break;
    }
  }
  // (V1)
  tree_generalized_forces(s.model, d.data, x.q, d.w, d.col);
  for (int b = 0; b < s.model.nbody(); ++b)
    bias += d.w[b].force.dot(d.a0[b].linear) + d.w[b].moment.dot(d.a0[b].angular);
  d.r.W.row(i) = d.col.transpose();
  d.r.nu(i) = jet.value;
  d.r.beta(i) = bias;
}

}  // namespace

namespace lagrangian_detail {

void rigid_rows(const RigidNuSystem& s, const State& x, RigidNuData& d) {
  const Model& m = s.model;
  set_state(m, d.data, x);
  tree_body_accelerations(m, d.data, x, d.zero, d.a0);
  extra_rows_in_tree(m, d.data, x, d.a0, d.A_all, d.b_all);
  // the model's row index of each extra row, in extra_rows_in_tree's order
  const TreeModel& tree = m.tree();
  int k = 0, kept = 0;
  for (int c : tree.extra)
    for (int i = 0; i < m.constraints()[c]->rows(); ++i, ++k) {
      if (kept == s.m() || s.rows[kept] != k) continue;
      const int row = m.row_offset(c) + i;
      d.r.A.row(kept) = d.A_all.row(k);
      d.r.alpha(kept) = -d.b_all(k);  // A u̇ = −α
      d.r.r(kept) = d.data.velocity_residual(row);
      d.r.g(kept) = m.constraints()[c]->holonomic(i) ? d.data.position_residual(row) : 0.0;
      ++kept;
    }
  for (int i = 0; i < s.dof(); ++i) quasi_velocity_row(s, x, i, d);
}

}  // namespace lagrangian_detail

RigidNuData::RigidNuData(const RigidNuSystem& s)
    : data(s.model), r(s.n(), s.m(), s.dof(), s.max_nodes) {
  a0.resize(s.model.nbody());
  w.resize(s.model.nbody());
  size_t sc = 1, nv = 1;
  for (const SceneQuasiVelocity& qv : s.quasi_velocities) {
    sc = std::max(sc, qv.expression.scratch_size(true));
    nv = std::max(nv, qv.expression.variables().size());
  }
  scratch.resize(sc);
  grad.resize(nv);
  zero.setZero(s.n());
  tau.setZero(s.n());
  col.setZero(s.n());
}

LagrangianStatus rigid_nu_terms(const RigidNuSystem& s, const State& x, RigidNuData& d) {
  const Model& m = s.model;
  LagrangianData& r = d.r;
  // M(q) and f = −ID(q, u, 0) = Q_applied − C(q, u) u  (the engine's joint-space path)
  mass_matrix(m, d.data, x, r.M);
  inverse_dynamics(m, d.data, x, d.zero, d.tau);
  r.f = -d.tau;
  r.Q.setZero();
  d.energy = kinetic_energy(m, d.data) + potential_energy(m, d.data);
  lagrangian_detail::rigid_rows(s, x, d);
  if (!r.M.allFinite() || !r.f.allFinite() || !r.A.allFinite() || !r.alpha.allFinite() ||
      !r.W.allFinite() || !r.nu.allFinite() || !r.beta.allFinite()) {
    r.message = "the mass matrix, the forces or a row is not finite";
    return LagrangianStatus::NotFinite;
  }
  r.M_llt.compute(r.M);
  if (r.M_llt.info() != Eigen::Success) {
    r.message = "the mass matrix is not positive definite";
    return LagrangianStatus::NotRegular;
  }
  return LagrangianStatus::Ok;
}

LagrangianStatus evaluate_rigid_nu(const RigidNuSystem& s, const State& x, RigidNuData& d) {
  LagrangianStatus st = rigid_nu_terms(s, x, d);
  if (st == LagrangianStatus::Ok) st = quasi_velocity_solve(x.u, d.r);
  if (st == LagrangianStatus::Ok) st = gibbs_appell_nu(d.r);
  if (st == LagrangianStatus::Ok) st = gauss_udwadia_kalaba(d.r);
  return st;
}

LagrangianStatus rigid_rates_of(const RigidNuSystem& s, double t, const Eigen::VectorXd& q,
                                const Eigen::VectorXd& nu, RigidNuData& d, Eigen::VectorXd& u) {
  // the rows are affine in u: Y and y do not depend on the u the map is taken at
  State x;
  x.t = t;
  x.q = q;
  x.u = d.zero;
  lagrangian_detail::rigid_rows(s, x, d);
  const LagrangianStatus st = quasi_velocity_solve(x.u, d.r);
  if (st != LagrangianStatus::Ok) return st;
  u.noalias() = d.r.Y * nu;
  u += d.r.y;
  return LagrangianStatus::Ok;
}

namespace {

// The extra rows at x0: an independent subset, the first of each dependent group.
std::vector<int> independent_extra_rows(const RigidNuSystem& s, const State& x0) {
  const Model& model = s.model;
  const int n = s.n();
  std::vector<int> rows;
  RigidNuData d(s);
  set_state(model, d.data, x0);
  tree_body_accelerations(model, d.data, x0, d.zero, d.a0);
  extra_rows_in_tree(model, d.data, x0, d.a0, d.A_all, d.b_all);
  Eigen::MatrixXd kept(0, n);
  for (int k = 0; k < d.A_all.rows(); ++k) {
    const double norm = d.A_all.row(k).norm();
    if (!(norm > 0)) continue;
    Eigen::MatrixXd trial(kept.rows() + 1, n);
    trial << kept, d.A_all.row(k) / norm;
    Eigen::FullPivLU<Eigen::MatrixXd> lu(trial);
    lu.setThreshold(1e-10);
    if (lu.rank() == trial.rows()) {
      kept = trial;
      rows.push_back(k);
    }
  }
  return rows;
}

// the names of the outputs: q's and u's by joint, the kept rows' by constraint
void rigid_nu_output_names(RigidNuSystem& s) {
  const Model& model = s.model;
  const TreeModel& tree = model.tree();
  for (const TreeJoint& j : tree.joints) {
    const std::string name =
        j.constraint >= 0 ? model.constraints()[j.constraint]->name() : model.bodies()[j.body].name;
    for (int c = 0; c < j.nq; ++c)
      s.q_names.push_back(name + ".q" + (j.nq > 1 ? std::to_string(c) : std::string()));
    for (int c = 0; c < j.nu; ++c)
      s.u_names.push_back(name + ".u" + (j.nu > 1 ? std::to_string(c) : std::string()));
  }
  int k = 0;
  size_t kept = 0;
  for (int c : tree.extra)
    for (int i = 0; i < model.constraints()[c]->rows(); ++i, ++k)
      if (kept < s.rows.size() && s.rows[kept] == k) {
        const ConstraintPtr& con = model.constraints()[c];
        s.row_names.push_back(con->name() +
                              (con->rows() > 1 ? "." + std::to_string(i) : std::string()));
        ++kept;
      }
}

// Each quasi-velocity affine in the velocities ([L96] (5.4)), and independent of the rows
// and the ones before it, at x0 (d: after the rows at x0); else a SceneError at its pointer.
void check_quasi_velocities(const RigidNuSystem& s, const State& x0, const std::string& file,
                            RigidNuData& d) {
  const int n = s.n();
  const StateView view{d.data.body.data(), x0.t, d.scratch.data(), d.scratch.size()};
  std::vector<double> values;
  Eigen::MatrixXd S(s.m(), n);
  for (int i = 0; i < s.m(); ++i) S.row(i) = d.r.A.row(i).normalized();
  for (int i = 0; i < s.dof(); ++i) {
    const SceneQuasiVelocity& qv = s.quasi_velocities[i];
    variable_values(qv.expression, view, values);
    if (lagrangian_detail::curvature(qv.expression, values.data(), velocity_kind, d.r) > 1e-12)
      throw SceneError(file, qv.pointer + "/expression",
                       "not affine in the velocities at t = 0 (a second derivative is not 0); "
                       "quasi-velocities are ν = C(q, t) u + s(q, t)");
    const double norm = d.r.W.row(i).norm();
    Eigen::MatrixXd trial(S.rows() + 1, n);
    trial << S, d.r.W.row(i) / (norm > 0 ? norm : 1.0);
    Eigen::FullPivLU<Eigen::MatrixXd> lu(trial);
    lu.setThreshold(1e-10);
    if (!(norm > 0) || lu.rank() < trial.rows())
      throw SceneError(file, qv.pointer + "/expression",
                       "at t = 0: not independent on the constraint set (a combination of the "
                       "constraint rows" +
                           std::string(i ? " and the quasi-velocities before it" : "") + ")");
    S = trial;
  }
}

}  // namespace

RigidNuSystem make_rigid_nu_system(const std::vector<SceneQuasiVelocity>& quasi_velocities,
                                   const Model& model, const State& x0, const std::string& file) {
  RigidNuSystem s;
  s.model = model;
  s.quasi_velocities = quasi_velocities;
  for (const SceneQuasiVelocity& qv : s.quasi_velocities)
    s.max_nodes = std::max(s.max_nodes, qv.expression.size());
  const int n = s.n();
  const std::string where = "/quasi_velocities";
  s.rows = independent_extra_rows(s, x0);
  rigid_nu_output_names(s);
  if (s.dof() != n - s.m())
    throw SceneError(file, where,
                     "expected " + std::to_string(n - s.m()) +
                         " quasi-velocities, one per degree of freedom (" + std::to_string(n) +
                         " joint velocities, " + std::to_string(s.m()) +
                         " independent constraint rows), got " + std::to_string(s.dof()));
  RigidNuData d(s);
  lagrangian_detail::rigid_rows(s, x0, d);
  check_quasi_velocities(s, x0, file, d);
  switch (evaluate_rigid_nu(s, x0, d)) {
    case LagrangianStatus::Ok:
      break;
    default:
      throw SceneError(file, where, "at t = 0: " + d.r.message);
  }
  return s;
}

LagrangianStatus linearize_rigid_nu(const RigidNuSystem& s, const State& x0, Eigen::MatrixXd& A,
                                    std::string& message) {
  const int nq = s.nq(), k = s.dof();
  RigidNuData d(s);
  lagrangian_detail::rigid_rows(s, x0, d);
  Eigen::VectorXd X(nq + k);
  X << x0.q, d.r.nu;
  State x;
  x.t = x0.t;
  LagrangianStatus st = LagrangianStatus::Ok;
  // F at X: (N(q) u, ν̇)
  auto F = [&](const Eigen::VectorXd& Z, Eigen::VectorXd& out) {
    x.q = Z.head(nq);
    st = rigid_rates_of(s, x0.t, x.q, Z.tail(k), d, x.u);
    if (st == LagrangianStatus::Ok) st = rigid_nu_terms(s, x, d);
    if (st == LagrangianStatus::Ok) st = quasi_velocity_solve(x.u, d.r);
    if (st == LagrangianStatus::Ok) st = gibbs_appell_nu(d.r);
    if (st != LagrangianStatus::Ok) {
      message = d.r.message;
      return false;
    }
    out.resize(nq + k);
    tree_qdot(s.model.tree(), x.q, x.u, out.head(nq));
    out.tail(k) = d.r.nudot;
    return true;
  };
  return lagrangian_detail::richardson_jacobian(F, X, nq, A, message) ? LagrangianStatus::Ok : st;
}

}  // namespace appell
