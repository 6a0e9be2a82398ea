// rk4: the classical Runge–Kutta method of order 4 at a fixed step dt, the last step
// shortened to end at T (Boost.Odeint's runge_kutta4).  In a system in quasi-velocities, q
// is projected back onto the holonomic rows after each step.
#include "engine/lagrangian/first_order.hpp"
#include "engine/run/integrators/integrator.hpp"

namespace appell {

namespace {

class Rk4 final : public Stepper {
 public:
  // dxdt holds ẋ(t, x), the first stage; the epilogue evaluates the next one
  bool step(Simulation::Impl& s) override {
    const double t_next = s.instant(s.k + 1);
    s.rhs_failure = {};
    rk4_.do_step(Simulation::Impl::Rhs{&s}, s.x, s.dxdt, s.t, t_next - s.t);
    if (s.rhs_failure.happened) {
      s.fail(s.rhs_failure);
      return false;
    }
    return s.end_fixed_step(t_next, true);
  }

 private:
  odeint::runge_kutta4<Eigen::VectorXd> rk4_;
};

long rk4_first_order(const lagrangian_detail::FirstOrder& f, Eigen::VectorXd& X, double t0,
                     const LagrangianRun& run,
                     const std::function<void(const LagrangianSample&)>& out) {
  using Vector = Eigen::VectorXd;
  auto rhs = [&](const Vector& x, Vector& dx, double t) { f.rate(x, t, dx); };
  odeint::runge_kutta4<Vector, double, Vector, double, odeint::vector_space_algebra> rk4;
  const long K = lagrangian_detail::steps_of(run);
  long steps = 0;
  for (long step = 1; step <= K; ++step) {
    const double ta = t0 + (step - 1) * run.dt, tb = t0 + step * run.dt;
    rk4.do_step(rhs, X, ta, tb - ta);
    f.project(X, tb);
    ++steps;
    if (step % run.every == 0 || step == K) out(f.sample(X, tb));
  }
  return steps;
}

}  // namespace

const Integrator& rk4_integrator() {
  static const Integrator kRk4{
      {"rk4", "classical Runge-Kutta, order 4, fixed step dt", false, false, true, true},
      nullptr,
      [](Simulation::Impl&) -> std::unique_ptr<Stepper> { return std::make_unique<Rk4>(); },
      rk4_first_order};
  return kRk4;
}

}  // namespace appell
