// dopri5: Dormand–Prince 5(4) with error control and dense output (Boost.Odeint's
// runge_kutta_dopri5): free steps, the output instants from the stepper's continuous
// extension.  In a system in quasi-velocities, integrate_const's dense output at every dt
// (q not projected: the tolerances hold the drift).
#include "engine/lagrangian/first_order.hpp"
#include "engine/run/integrators/integrator.hpp"

namespace appell {

namespace {

class Dopri5 final : public Stepper {
 public:
  explicit Dopri5(Simulation::Impl& s)
      : dopri5_(Simulation::Impl::Checker(s.ss.get(), s.o.integrator.atol, s.o.integrator.rtol)) {}

  bool step(Simulation::Impl& s) override {
    using Trial = Simulation::Impl::Trial;
    using Purpose = Simulation::Impl::Purpose;
    for (;;) {
      const double h_before = s.h, h_attempt = std::min(s.h, s.T() - s.t);
      double t_try = s.t, h_try = h_attempt;
      s.rhs_failure = {};
      const auto res = dopri5_.try_step(Simulation::Impl::Rhs{&s}, s.x, s.dxdt, t_try, s.x_new,
                                        s.dxdt_new, h_try);
      s.h = h_try;
      const Trial trial = s.judge(res, s.x_new, h_attempt);
      if (trial == Trial::Failed) return false;
      if (trial == Trial::Rejected) continue;
      if (h_attempt < h_before) s.h = std::max(s.h, h_before);
      const double t_new = (h_attempt == s.T() - s.t) ? s.T() : t_try;
      // d holds the last stage, the derivative at (t_new, x_new) carried to the next step
      if (!s.on_branch(t_new)) return false;
      // the output instants in (t, t_new], interpolated
      while (s.k < s.K && s.instant(s.k + 1) <= t_new) {
        const double tk = s.instant(++s.k);
        if (!s.due(s.k, s.K)) continue;
        if (tk == t_new)
          s.x_out = s.x_new;
        else
          dopri5_.stepper().calc_state(tk, s.x_out, s.x, s.dxdt, s.t, s.x_new, s.dxdt_new, t_new);
        if (!s.evaluate(s.x_out, tk, s.scratch, Purpose::Sample) || !s.emit(tk)) return false;
      }
      s.x.swap(s.x_new);
      s.dxdt.swap(s.dxdt_new);
      s.t = t_new;
      if (!s.accept(s.x, s.t)) return false;
      // the projection moved x: the carried (FSAL) derivative is stale
      if (s.projection && s.k < s.K && !s.evaluate(s.x, s.t, s.dxdt, Purpose::Step)) return false;
      return s.k >= s.K || s.not_stiff(h_attempt);
    }
  }

 private:
  odeint::controlled_runge_kutta<Simulation::Impl::Dopri, Simulation::Impl::Checker> dopri5_;
};

long dopri5_first_order(const lagrangian_detail::FirstOrder& f, Eigen::VectorXd& X, double t0,
                        const LagrangianRun& run,
                        const std::function<void(const LagrangianSample&)>& out) {
  using Vector = Eigen::VectorXd;
  auto rhs = [&](const Vector& x, Vector& dx, double t) { f.rate(x, t, dx); };
  using Dopri =
      odeint::runge_kutta_dopri5<Vector, double, Vector, double, odeint::vector_space_algebra>;
  auto stepper = odeint::make_dense_output(run.atol, run.rtol, Dopri());
  const double every = run.dt * run.every;
  const long K = lagrangian_detail::steps_of(run);
  const double end = t0 + K * run.dt;
  if (t0 + every <= end && !(t0 + 2 * every <= end)) {
    // one output instant: integrate_const would interpolate it before taking any step
    // (its loop never runs), reading a continuous extension that does not exist yet
    stepper.initialize(X, t0, every);
    long steps = 0;
    for (; stepper.current_time() < t0 + every; ++steps) stepper.do_step(rhs);
    stepper.calc_state(t0 + every, X);
    out(f.sample(X, t0 + every));
    return steps;
  }
  return static_cast<long>(odeint::integrate_const(stepper, rhs, X, t0, t0 + K * run.dt, every,
                                                   [&](const Vector& Xs, double t) {
                                                     if (std::lround((t - t0) / every) == 0)
                                                       return;  // t0 sampled by the caller
                                                     out(f.sample(Xs, t));
                                                   }));
}

}  // namespace

const Integrator& dopri5_integrator() {
  static const Integrator kDopri5{
      {"dopri5", "Dormand-Prince 5(4), adaptive, dense output at every dt", true, false, true,
       false},
      nullptr,
      [](Simulation::Impl& s) -> std::unique_ptr<Stepper> { return std::make_unique<Dopri5>(s); },
      dopri5_first_order};
  return kDopri5;
}

}  // namespace appell
