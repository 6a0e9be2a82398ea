#include <sstream>

#include "appell/derivatives.hpp"
#include "appell/forward.hpp"
#include "appell/tree.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/formulations/projection.hpp"
#include "engine/run/simulation_impl.hpp"

namespace appell {

using namespace simulation_detail;
using Vector = Eigen::VectorXd;
using Clock = std::chrono::steady_clock;

bool Simulation::Impl::step() {
  if (!running) return false;
  // no state (a model with no degrees of freedom): nothing for an error control to
  // measure, and rk4's step is exact
  const bool ok = method == Method::Rk4 || (x.size() == 0 && method != Method::Moreau) ? step_rk4()
                  : method == Method::Rkf78      ? step_rkf78()
                  : method == Method::Moreau     ? step_moreau()
                  : method == Method::Rosenbrock ? step_rosenbrock()
                                                 : step_dopri5();
  if (!ok || k >= K) running = false;
  if (ok && k >= K && r.contact_unconverged > 0 &&
      o.contact.on_unconverged == ContactSettings::OnUnconverged::Fail) {
    fail(SimulationStatus::Unconverged, r.first_unconverged_t,
         contact_unconverged_message(r, o.contact));
    return false;
  }
  return ok;
}

bool Simulation::Impl::step_rk4() {
  const double t_next = instant(k + 1);
  rhs_failure = {};
  rk4.do_step(Rhs{this}, x, dxdt, t, t_next - t);
  if (rhs_failure.happened) {
    fail(rhs_failure);
    return false;
  }
  if (!accept(x, t_next)) return false;
  t = t_next;
  ++k;
  // the next step's first stage, and the Data of the sample (after the last step it
  // serves the sample only)
  const Purpose purpose =
      k == K ? Purpose::Sample : (due(k, K) ? Purpose::StepAndSample : Purpose::Step);
  if (!evaluate(x, t, dxdt, purpose)) return false;
  return !due(k, K) || emit(t);
}

Simulation::Impl::Trial Simulation::Impl::judge(odeint::controlled_step_result res,
                                                const Vector& xn, double h_attempt) {
  if (rhs_failure.happened || (res == odeint::success && !xn.allFinite())) {
    // a trial stage left the domain: retry smaller
    if (rhs_failure.happened) last = rhs_failure;
    ++r.rejected_steps;
    h = 0.25 * h_attempt;
  } else if (res == odeint::fail) {
    ++r.rejected_steps;
  } else {
    tiny = h_attempt < kTinyStep * o.integrator.dt ? tiny + 1 : 0;
    if (tiny <= kMaxTinySteps) return Trial::Accepted;
    std::ostringstream os;
    os << "step size underflow: " << kMaxTinySteps << " steps in a row shorter than " << kTinyStep
       << " dt (h = " << h_attempt << "); the motion is too fast to integrate";
    fail(SimulationStatus::StepUnderflow, t, os.str());
    return Trial::Failed;
  }
  if (!(h >= min_step(t))) {
    if (last.happened) {
      fail(last);
    } else {
      std::ostringstream os;
      os << "step size underflow (h = " << h << ")";
      fail(SimulationStatus::StepUnderflow, t, os.str());
    }
    return Trial::Failed;
  }
  return Trial::Rejected;
}

bool Simulation::Impl::step_rkf78() {
  for (;;) {
    const double t_target = instant(k + 1);
    const double h_before = h, h_attempt = std::min(h, t_target - t);
    double t_try = t, h_try = h_attempt;
    rhs_failure = {};
    const auto res = rkf78->try_step(Rhs{this}, x, dxdt, t_try, x_new, h_try);
    h = h_try;
    const Trial trial = judge(res, x_new, h_attempt);
    if (trial == Trial::Failed) return false;
    if (trial == Trial::Rejected) continue;
    // a step clipped to an output instant does not shrink the controller's proposal
    if (h_attempt < h_before) h = std::max(h, h_before);
    const bool reached = h_attempt == t_target - t;
    t = reached ? t_target : t_try;
    x.swap(x_new);
    if (!accept(x, t)) return false;
    const bool sample = reached && due(k + 1, K);
    if (!evaluate(x, t, dxdt, sample ? Purpose::StepAndSample : Purpose::Step)) return false;
    if (reached) ++k;
    if (sample && !emit(t)) return false;
    return not_stiff(h_attempt);
  }
}

bool Simulation::Impl::step_dopri5() {
  for (;;) {
    const double h_before = h, h_attempt = std::min(h, T() - t);
    double t_try = t, h_try = h_attempt;
    rhs_failure = {};
    const auto res = dopri5->try_step(Rhs{this}, x, dxdt, t_try, x_new, dxdt_new, h_try);
    h = h_try;
    const Trial trial = judge(res, x_new, h_attempt);
    if (trial == Trial::Failed) return false;
    if (trial == Trial::Rejected) continue;
    if (h_attempt < h_before) h = std::max(h, h_before);
    const double t_new = (h_attempt == T() - t) ? T() : t_try;
    // d holds the last stage, the derivative at (t_new, x_new) carried to the next step
    if (!on_branch(t_new)) return false;
    // the output instants in (t, t_new], interpolated
    while (k < K && instant(k + 1) <= t_new) {
      const double tk = instant(++k);
      if (!due(k, K)) continue;
      if (tk == t_new)
        x_out = x_new;
      else
        dopri5->stepper().calc_state(tk, x_out, x, dxdt, t, x_new, dxdt_new, t_new);
      if (!evaluate(x_out, tk, scratch, Purpose::Sample) || !emit(tk)) return false;
    }
    x.swap(x_new);
    dxdt.swap(dxdt_new);
    t = t_new;
    if (!accept(x, t)) return false;
    // the projection moved x: the carried (FSAL) derivative is stale
    if (projection && k < K && !evaluate(x, t, dxdt, Purpose::Step)) return false;
    return k >= K || not_stiff(h_attempt);
  }
}

bool Simulation::Impl::jacobian(const Vector& xi, double t_at, Eigen::MatrixXd& J) {
  const TreeModel& tree = m.tree();
  State s;
  s.t = t_at;
  s.q = xi.head(tree.nq);
  s.u = xi.tail(tree.nu);
  try {
    state_jacobian(m, d, s, J);
  } catch (const std::exception& e) {
    if (!rhs_failure.happened) rhs_failure = {true, SolveStatus::NotFinite, e.what(), t_at};
    J.setConstant(x.size(), x.size(), std::numeric_limits<double>::quiet_NaN());
    return false;
  }
  return true;
}

bool Simulation::Impl::step_rosenbrock() {
  namespace ublas = boost::numeric::ublas;
  using UVector = ublas::vector<double>;
  using UMatrix = ublas::matrix<double>;
  const Eigen::Index n = x.size();
  Eigen::MatrixXd J;
  Vector xe(n), fe(n);
  auto system = [&](const UVector& xu, UVector& fu, double ts) {
    for (Eigen::Index i = 0; i < n; ++i) xe(i) = xu(i);
    rhs(xe, fe, ts);
    for (Eigen::Index i = 0; i < n; ++i) fu(i) = fe(i);
  };
  // ∂ẋ/∂x exact; ∂ẋ/∂t (servo targets and torques of time: a stiff servo makes it large,
  // and leaving it out would cost the method its order) by central differences in t,
  // extrapolated twice (Richardson)
  Vector fp(n), fm(n);
  auto jac = [&](const UVector& xu, UMatrix& Ju, double ts, UVector& dfdt) {
    for (Eigen::Index i = 0; i < n; ++i) xe(i) = xu(i);
    jacobian(xe, ts, J);
    const double h0 = 1e-3 * std::max(1.0, std::abs(ts));
    Vector slope[3];
    for (int l = 0; l < 3; ++l) {
      const double hl = h0 / (1 << l);
      rhs(xe, fp, ts + hl);
      rhs(xe, fm, ts - hl);
      slope[l] = (fp - fm) / (2 * hl);
    }
    const Vector e0 = (4 * slope[1] - slope[0]) / 3, e1 = (4 * slope[2] - slope[1]) / 3;
    const Vector ft = (16 * e1 - e0) / 15;
    for (Eigen::Index i = 0; i < n; ++i) {
      dfdt(i) = ft(i);
      for (Eigen::Index j = 0; j < n; ++j) Ju(i, j) = J(i, j);
    }
  };
  UVector xu(n);
  for (;;) {
    const double t_target = instant(k + 1);
    const double h_before = h, h_attempt = std::min(h, t_target - t);
    double t_try = t, h_try = h_attempt;
    for (Eigen::Index i = 0; i < n; ++i) xu(i) = x(i);
    rhs_failure = {};
    const auto res = rosenbrock->try_step(std::make_pair(system, jac), xu, t_try, h_try);
    h = h_try;
    x_new.resize(n);
    for (Eigen::Index i = 0; i < n; ++i) x_new(i) = xu(i);
    const Trial trial = judge(res, x_new, h_attempt);
    if (trial == Trial::Failed) return false;
    if (trial == Trial::Rejected) continue;
    if (h_attempt < h_before) h = std::max(h, h_before);
    const bool reached = h_attempt == t_target - t;
    t = reached ? t_target : t_try;
    x.swap(x_new);
    if (!accept(x, t)) return false;
    const bool sample = reached && due(k + 1, K);
    if (!evaluate(x, t, dxdt, sample ? Purpose::StepAndSample : Purpose::Step)) return false;
    if (reached) ++k;
    if (sample && !emit(t)) return false;
    return true;
  }
}

bool Simulation::Impl::not_stiff(double h_step) {
  slow = h_step < kSlowStep * o.integrator.dt ? slow + 1 : 0;
  if (slow < kStiffSteps) return true;
  slow = 0;
  const double rho = fastest_rate(dxdt);
  const Vector f0 = dxdt;
  // d back at (t, x), as after any step
  if (!evaluate(x, t, dxdt, Purpose::Step)) return false;
  const double remaining = (T() - t) / h_step;
  if (!(h_step * rho > kStiffProduct) || !(remaining > kStiffBudget)) return true;
  std::ostringstream os;
  os.precision(3);
  os << "the equations are stiff: their fastest mode decays or turns at a rate of about " << rho
     << " 1/s, which holds " << o.integrator.method << " to steps of " << h_step
     << " s by stability (" << remaining << " more steps to reach t = " << T() << ")";
  if (o.stabilization.type == Stabilization::Type::Baumgarte)
    os << "; lower the Baumgarte gains (alpha " << o.stabilization.alpha << ", beta "
       << o.stabilization.beta << ") or use \"stabilization\": {\"type\": \"projection\"}";
  fail(SimulationStatus::Stiff, t, os.str());
  return false;
}

// Power iteration on J v ≈ (f(x + δ v) − f(x)) / δ.  The start vector has a component along
// every coordinate (signs and sizes from a fixed sequence), so it is never orthogonal to the
// fastest mode by accident; eight products give ρ to a few per cent when that mode is well
// separated, and a lower bound otherwise, which is all the test needs.
double Simulation::Impl::fastest_rate(const Vector& f0) {
  Vector v(x.size()), xp(x.size()), fp(x.size());
  unsigned s = 12345u;  // a fixed linear congruential sequence: the same run gives the same ρ
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    s = 1664525u * s + 1013904223u;
    v(i) = (static_cast<double>(s >> 8) / 16777216.0 - 0.5) * (1.0 + std::abs(x(i)));
  }
  const double scale = 1.0 + x.lpNorm<Eigen::Infinity>();
  double rho = 0.0;
  for (int it = 0; it < kPowerIterations; ++it) {
    const double nv = v.norm();
    if (!(nv > 0) || !std::isfinite(nv)) break;
    const double delta = 1e-7 * scale / nv;
    xp = x + delta * v;
    ss->normalize(xp);  // stay on the quaternions' unit sphere, as the integrator does
    const SolveStatus st = ss->rate(xp, t, d, fp);
    ++r.rhs_evaluations;
    if (st != SolveStatus::Ok || !fp.allFinite()) break;
    v = (fp - f0) / delta;
    rho = v.norm() / nv;
  }
  return rho;
}

}  // namespace appell
