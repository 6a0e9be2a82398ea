// The runs of the first-order systems in (q, ν) (engine/lagrangian/first_order.hpp): a
// Lagrangian system's and a rigid-body scene's in the user's quasi-velocities, integrated by
// a registered integrator (appell/integrators.hpp; engine/run/integrators/: rk4 or dopri5).
//
// A Lagrangian system [L96 §5.3, last paragraph: "2n − m first order differential
// equations in (q^i, ν^a)"]:
//   q̇ = Y ν + y     (quasi_velocity_map.cpp (Q2); rows nonlinear in q̇: Newton's (Q4), started
//                    from the rates of the previous evaluation, so a run keeps to its branch)
//   ν̇ = H⁻¹ F_ν     (gibbs_appell_nu.cpp (G1))
// The velocity constraints hold exactly at every state (q̇ is built on them); holonomic
// rows g(q, t) = 0 drift with the integration error, which rk4's steps remove by a
// Gauss–Newton projection of q (minimum norm) after each step.
#include "appell/lagrangian_run.hpp"

#include <cmath>

#include "appell/rigid_quasi_velocities.hpp"
#include "engine/formulations/projection.hpp"
#include "engine/lagrangian/first_order.hpp"
#include "engine/lagrangian/sweep.hpp"
#include "engine/model/tree.hpp"
#include "engine/run/integrators/integrator.hpp"

namespace appell {

using lagrangian_detail::Failure;
using lagrangian_detail::FirstOrder;

namespace {

using Vector = Eigen::VectorXd;

struct Rhs {
  const LagrangianSystem& s;
  LagrangianData& d;
  LagrangianState x;
  long evaluations = 0;

  // x.q, x.qd, and every field of d at (t, q, ν)
  void evaluate(const Vector& X, double t) {
    const int n = s.n(), k = s.dof();
    ++evaluations;
    x.t = t;
    x.q = X.head(n);
    LagrangianStatus st = rates_of(s, t, x.q, X.tail(k), d, x.qd);
    if (st == LagrangianStatus::Ok) st = lagrangian_terms(s, x, d);
    if (st == LagrangianStatus::Ok) st = quasi_velocity_map(s, x, d);
    if (st == LagrangianStatus::Ok) st = gibbs_appell_nu(s, d);
    if (st == LagrangianStatus::Ok && !(d.nudot.allFinite() && x.qd.allFinite())) {
      d.message = "the accelerations are not finite";
      st = LagrangianStatus::NotFinite;
    }
    if (st != LagrangianStatus::Ok) throw Failure{t, d.message};
  }
  void operator()(const Vector& X, Vector& dX, double t) {
    evaluate(X, t);
    dX.resize(X.size());
    dX.head(s.n()) = x.qd;
    dX.tail(s.dof()) = d.nudot;
  }
  LagrangianSample sample(const Vector& X, double t) {
    evaluate(X, t);
    LagrangianSample out;
    out.t = t;
    out.q = x.q;
    out.qd = x.qd;
    out.nu = X.tail(s.dof());
    out.energy = d.energy;
    out.violation_position = s.m() ? d.g.cwiseAbs().maxCoeff() : 0.0;
    out.violation_velocity = s.m() ? d.r.cwiseAbs().maxCoeff() : 0.0;
    return out;
  }
};

// q back onto g(q, t) = 0: q ← q − G⁺ g (minimum-norm Gauss–Newton), ν kept
void project(const LagrangianSystem& s, Rhs& f, Vector& X, double t) {
  bool any = false;
  for (const LagrangianRow& r : s.constraints) any = any || r.holonomic;
  if (!any) return;
  LagrangianState x;
  x.t = t;
  x.qd.setZero(s.n());
  Eigen::MatrixXd A(s.m(), s.n());
  Eigen::VectorXd r(s.m()), alpha(s.m()), g(s.m());
  for (int it = 0; it < 3; ++it) {
    x.q = X.head(s.n());
    velocity_rows(s.constraints, x, f.d, A, r, alpha, &g);
    if (g.cwiseAbs().maxCoeff() < 1e-14 * (1.0 + x.q.cwiseAbs().maxCoeff())) return;
    Eigen::MatrixXd G(s.m(), s.n());
    int rows = 0;
    for (int i = 0; i < s.m(); ++i)
      if (s.constraints[i].holonomic) {
        G.row(rows) = A.row(i);
        g(rows++) = g(i);
      }
    const Eigen::MatrixXd Gh = G.topRows(rows);
    X.head(s.n()) -= Gh.transpose() * (Gh * Gh.transpose()).ldlt().solve(g.head(rows));
  }
}

// run.method's integrator (one that integrates a system in its quasi-velocities) from X
// at t0; throws std::invalid_argument for another method.  rhs_evaluations is left to the
// caller.
LagrangianRunResult integrate_first_order(const FirstOrder& f, Vector X, double t0,
                                          const LagrangianRun& run,
                                          const std::function<void(const LagrangianSample&)>& out) {
  const Integrator* in = find_integrator_type(run.method);
  if (!in || !in->first_order)
    throw std::invalid_argument("integrate_first_order(): method must be " +
                                integrator_names(true) + ", got '" + run.method + "'");
  LagrangianRunResult res;
  try {
    out(f.sample(X, t0));
    res.steps = in->first_order(f, X, t0, run, out);  // engine/run/integrators/
  } catch (const Failure& e) {
    res.ok = false;
    res.failed_at = e.t;
    res.message = e.message;
  }
  return res;
}

}  // namespace

LagrangianRunResult integrate_lagrangian(
    const LagrangianSystem& s, const LagrangianState& x0, const LagrangianRun& run,
    const std::function<void(const LagrangianSample&)>& sample) {
  LagrangianData d(s);
  Rhs f{s, d, x0};
  const int n = s.n(), k = s.dof();
  // the state (q, ν) of the initial (q, q̇)
  Vector X(n + k);
  X.head(n) = x0.q;
  if (quasi_velocity_map(s, x0, d) != LagrangianStatus::Ok) {
    LagrangianRunResult res;
    res.ok = false;
    res.failed_at = x0.t;
    res.message = d.message;
    return res;
  }
  X.tail(k) = d.nu;
  FirstOrder fo;
  fo.rate = [&](const Vector& x, double t, Vector& dx) { f(x, dx, t); };
  fo.project = [&](Vector& x, double t) { project(s, f, x, t); };
  fo.sample = [&](const Vector& x, double t) { return f.sample(x, t); };
  LagrangianRunResult res = integrate_first_order(fo, X, x0.t, run, sample);
  res.rhs_evaluations = f.evaluations;
  return res;
}

// A rigid-body scene in the user's quasi-velocities (engine/lagrangian/
// rigid_quasi_velocities.cpp): u from ν (rigid_rates_of), q̇ = N(q) u (J4), ν̇ from the
// Gibbs–Appell equations in ν; after each fixed step the quaternions are normalised and q
// projected onto the holonomic rows (J-P1).
LagrangianRunResult integrate_rigid_nu(const RigidNuSystem& s, const State& x0,
                                       const LagrangianRun& run,
                                       const std::function<void(const LagrangianSample&)>& sample) {
  const Model& m = s.model;
  const TreeModel& tree = m.tree();
  const int nq = s.nq(), n = s.n(), k = s.dof();
  RigidNuData d(s);
  long evaluations = 0;
  State x;
  x.u.setZero(n);
  // every field of d at (t, q, ν)
  auto evaluate = [&](const Vector& X, double t) {
    ++evaluations;
    x.t = t;
    x.q = X.head(nq);
    LagrangianStatus st = rigid_rates_of(s, t, x.q, X.tail(k), d, x.u);
    if (st == LagrangianStatus::Ok) st = rigid_nu_terms(s, x, d);
    if (st == LagrangianStatus::Ok) st = quasi_velocity_solve(x.u, d.r);
    if (st == LagrangianStatus::Ok) st = gibbs_appell_nu(d.r);
    if (st == LagrangianStatus::Ok && !(d.r.nudot.allFinite() && x.u.allFinite())) {
      d.r.message = "the accelerations are not finite";
      st = LagrangianStatus::NotFinite;
    }
    if (st != LagrangianStatus::Ok) throw Failure{t, d.r.message};
  };
  lagrangian_detail::FirstOrder f;
  f.rate = [&](const Vector& X, double t, Vector& dX) {
    evaluate(X, t);
    dX.resize(nq + k);
    tree_qdot(tree, x.q, x.u, dX.head(nq));  // (J4)
    dX.tail(k) = d.r.nudot;
  };
  // unit quaternions, then q back onto the holonomic rows (J-P1); ν kept
  f.project = [&](Vector& X, double t) {
    tree_normalize(tree, X.head(nq));
    if (tree.nrows_extra == 0) return;
    d.data.t = t;
    Eigen::VectorXd q = X.head(nq);
    if (project_joint_positions(m, d.data, q) == SolveStatus::Ok) X.head(nq) = q;
  };
  f.sample = [&](const Vector& X, double t) {
    evaluate(X, t);
    LagrangianSample out;
    out.t = t;
    out.q = x.q;
    out.qd = x.u;
    out.nu = X.tail(k);
    out.energy = d.energy;
    out.violation_position = s.m() ? d.r.g.cwiseAbs().maxCoeff() : 0.0;
    out.violation_velocity = s.m() ? d.r.r.cwiseAbs().maxCoeff() : 0.0;
    return out;
  };
  // the state (q, ν) of x0
  Vector X(nq + k);
  X.head(nq) = x0.q;
  lagrangian_detail::rigid_rows(s, x0, d);
  X.tail(k) = d.r.nu;
  LagrangianRunResult res = integrate_first_order(f, X, x0.t, run, sample);
  res.rhs_evaluations = evaluations;
  return res;
}

}  // namespace appell
