// rkf78: Runge–Kutta–Fehlberg 7(8) with error control (Boost.Odeint's
// runge_kutta_fehlberg78 under its controller), each step clipped so that every output
// instant is hit exactly.
#include "engine/run/integrators/integrator.hpp"

namespace appell {

namespace {

class Rkf78 final : public Stepper {
 public:
  explicit Rkf78(Simulation::Impl& s)
      : rkf78_(Simulation::Impl::Checker(s.ss.get(), s.o.integrator.atol, s.o.integrator.rtol)) {}

  bool step(Simulation::Impl& s) override {
    using Trial = Simulation::Impl::Trial;
    for (;;) {
      const double t_target = s.instant(s.k + 1);
      const double h_before = s.h, h_attempt = std::min(s.h, t_target - s.t);
      double t_try = s.t, h_try = h_attempt;
      s.rhs_failure = {};
      const auto res =
          rkf78_.try_step(Simulation::Impl::Rhs{&s}, s.x, s.dxdt, t_try, s.x_new, h_try);
      s.h = h_try;
      const Trial trial = s.judge(res, s.x_new, h_attempt);
      if (trial == Trial::Failed) return false;
      if (trial == Trial::Rejected) continue;
      return s.end_clipped_step(h_before, h_attempt, t_target, t_try) && s.not_stiff(h_attempt);
    }
  }

 private:
  odeint::controlled_runge_kutta<Simulation::Impl::Fehlberg, Simulation::Impl::Checker> rkf78_;
};

}  // namespace

const Integrator& rkf78_integrator() {
  static const Integrator kRkf78{
      {"rkf78", "Runge-Kutta-Fehlberg 7(8), adaptive, steps clipped to the output instants", true,
       false, false, false},
      nullptr,
      [](Simulation::Impl& s) -> std::unique_ptr<Stepper> { return std::make_unique<Rkf78>(s); }};
  return kRkf78;
}

}  // namespace appell
