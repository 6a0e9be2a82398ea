#include <sstream>

#include "appell/derivatives.hpp"
#include "appell/forward.hpp"
#include "appell/tree.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/formulations/projection.hpp"
#include "engine/run/integrators/integrator.hpp"
#include "engine/run/simulation_impl.hpp"

namespace appell {

using namespace simulation_detail;
using Vector = Eigen::VectorXd;
using Clock = std::chrono::steady_clock;

bool Simulation::Impl::step() {
  if (!running) return false;
  sample_pending = false;                // d is the step's workspace from here on
  const bool ok = stepper->step(*this);  // engine/run/integrators/
  if (!ok || k >= K) running = false;
  if (ok && k >= K && r.contact_unconverged > 0 &&
      o.contact.on_unconverged == ContactSettings::OnUnconverged::Fail) {
    fail(SimulationStatus::Unconverged, r.first_unconverged_t,
         contact_unconverged_message(r, o.contact));
    return false;
  }
  return ok;
}

bool Simulation::Impl::end_fixed_step(double t_next, bool rate) {
  if (!accept(x, t_next)) return false;
  t = t_next;
  ++k;
  if (!rate) {
    if (!due(k, K)) return true;
    if (!observe || !*observe) {  // no one to see it now: evaluated if data() is read
      sample_pending = true;
      ++r.samples;
      return true;
    }
    return evaluate(x, t, dxdt, Purpose::Sample) && emit(t);
  }
  // the next step's first stage, and the Data of the sample (after the last step it
  // serves the sample only)
  const Purpose purpose =
      k == K ? Purpose::Sample : (due(k, K) ? Purpose::StepAndSample : Purpose::Step);
  if (!evaluate(x, t, dxdt, purpose)) return false;
  return !due(k, K) || emit(t);
}

void Simulation::Impl::evaluate_pending_sample() {
  sample_pending = false;
  // the sample's checks (emit) without a second count; a failure ends the run as the step
  // would have, with the state kept
  const long samples = r.samples;
  if (evaluate(x, t, dxdt, Purpose::Sample) && emit(t)) r.samples = samples;
  if (!r.ok()) running = false;
}

bool Simulation::Impl::end_clipped_step(double h_before, double h_attempt, double t_target,
                                        double t_try) {
  // a step clipped to an output instant does not shrink the controller's proposal
  if (h_attempt < h_before) h = std::max(h, h_before);
  const bool reached = h_attempt == t_target - t;
  t = reached ? t_target : t_try;
  x.swap(x_new);
  if (!accept(x, t)) return false;
  const bool sample = reached && due(k + 1, K);
  if (!evaluate(x, t, dxdt, sample ? Purpose::StepAndSample : Purpose::Step)) return false;
  if (reached) ++k;
  return !sample || emit(t);
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
