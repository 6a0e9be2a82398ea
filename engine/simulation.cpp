#include "engine/simulation.hpp"

#include <boost/numeric/odeint.hpp>
#include <boost/numeric/odeint/external/eigen/eigen.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "engine/forward.hpp"
#include "engine/projection.hpp"

namespace appell {

namespace odeint = boost::numeric::odeint;
using State = Eigen::VectorXd;
using Clock = std::chrono::steady_clock;

const char* simulation_status_name(SimulationStatus s) {
  switch (s) {
    case SimulationStatus::Completed:
      return "completed";
    case SimulationStatus::NotFinite:
      return "not finite";
    case SimulationStatus::Inconsistent:
      return "inconsistent";
    case SimulationStatus::StepUnderflow:
      return "step size underflow";
    case SimulationStatus::Unsupported:
      return "unsupported";
  }
  return "?";
}

SimulationOptions SimulationOptions::from_model(const Model& m) {
  SimulationOptions o;
  o.formulation = m.solver.formulation;
  o.integrator = m.integrator;
  o.every = m.output.every;
  return o;
}

namespace {

SimulationStatus status_of(SolveStatus s) {
  switch (s) {
    case SolveStatus::Ok:
      return SimulationStatus::Completed;
    case SolveStatus::Inconsistent:
      return SimulationStatus::Inconsistent;
    case SolveStatus::NotFinite:
      return SimulationStatus::NotFinite;
    case SolveStatus::Unsupported:
      return SimulationStatus::Unsupported;
  }
  return SimulationStatus::NotFinite;
}

// number of steps (rk4) or output intervals (adaptive) covering [0, T] with spacing dt;
// the last one is shortened to end at T
long intervals(double T, double dt) {
  return T <= 0 ? 0 : std::max(1L, static_cast<long>(std::ceil(T / dt - 1e-9)));
}

// the smallest step that still advances t meaningfully
double min_step(double t) {
  return 16.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t));
}

}  // namespace

struct Simulation::Impl {
  const Model& m;
  SimulationOptions o;
  std::unique_ptr<StateSpace> ss;
  Data d;
  State x, dxdt, x_new, dxdt_new, x_out, scratch;
  SimulationResult r;
  const Observer* observe = nullptr;
  bool projection = false;

  // the first failing right-hand side inside the integrator, if any
  struct Failure {
    bool happened = false;
    SolveStatus status = SolveStatus::Ok;
    std::string message;
    double t = 0.0;
  } rhs_failure;

  Impl(const Model& model, SimulationOptions options)
      : m(model), o(std::move(options)), ss(make_state_space(model, o.formulation)), d(model) {
    projection = m.solver.stabilization.type == Stabilization::Type::Projection;
  }

  // ---- the right-hand side, as odeint sees it ---------------------------------------
  void rhs(const State& xi, State& xdot, double t) {
    const Clock::time_point t0 = Clock::now();
    const SolveStatus s = ss->derivative(xi, t, d, xdot);
    r.rhs_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    ++r.rhs_evaluations;
    if (s != SolveStatus::Ok) {
      if (!rhs_failure.happened) rhs_failure = {true, s, d.diagnostics.message, t};
      xdot.setConstant(std::numeric_limits<double>::quiet_NaN());  // never accepted
    }
  }
  struct Rhs {
    Impl* self;
    void operator()(const State& xi, State& xdot, double t) const { self->rhs(xi, xdot, t); }
  };

  // ---- outcomes ------------------------------------------------------------------------
  SimulationResult& fail(SimulationStatus s, double t, const std::string& why) {
    r.status = s;
    r.t = t;
    r.message = why;
    return r;
  }
  SimulationResult& fail(const Failure& f) { return fail(status_of(f.status), f.t, f.message); }

  // Evaluates (t, xi) into d and xdot; false (and r filled) when that fails.
  bool evaluate(const State& xi, double t, State& xdot, bool for_output) {
    rhs_failure = {};
    if (for_output) {
      const SolveStatus s = ss->derivative(xi, t, d, xdot);
      ++r.output_evaluations;
      if (s != SolveStatus::Ok) rhs_failure = {true, s, d.diagnostics.message, t};
    } else {
      rhs(xi, xdot, t);
    }
    if (rhs_failure.happened) fail(rhs_failure);
    return !rhs_failure.happened;
  }

  // The Sample of d, which must describe (t, x) (a derivative was just evaluated there).
  void emit(double t) {
    ++r.samples;
    if (!observe || !*observe) return;
    const double T = kinetic_energy(m, d), V = potential_energy(m, d);
    const double vv = m.nrows() ? d.velocity_residual.cwiseAbs().maxCoeff() : 0.0;
    const Sample s{
        t, d, T, V, T + V, max_position_violation(m, d), vv, static_cast<int>(r.samples - 1)};
    (*observe)(s);
  }

  // After an accepted step: unit quaternions (see the header), then the projection.
  bool accept(State& xi, double t) {
    ++r.steps;
    r.t = t;
    ss->normalize(xi);
    if (projection) {
      const SolveStatus s = ss->project(xi, t, d);
      if (s != SolveStatus::Ok) {
        fail(status_of(s), t, d.diagnostics.message);
        return false;
      }
    }
    if (o.progress) o.progress(t);
    return true;
  }

  bool due(long k, long K) const { return k % o.every == 0 || k == K; }

  // ---- initial conditions (SPEC §2) ------------------------------------------------------
  bool start() {
    initial_state(m, d);
    kinematics(m, d);
    constraint_rows(m, d);
    int c = -1;
    const double g = max_position_violation(m, d, &c);
    if (!(g <= 1e-6)) {
      std::ostringstream os;
      os << "initial positions violate constraint '" << m.constraints()[c]->name() << "' by " << g
         << " (tolerance 1e-6)";
      fail(SimulationStatus::Inconsistent, 0.0, os.str());
      return false;
    }
    ProjectionReport rep;
    const SolveStatus s = project_velocities(m, d, &rep);
    r.initial_velocity_correction = rep.correction;
    if (s != SolveStatus::Ok) {
      fail(status_of(s), 0.0, "initial velocities: " + d.diagnostics.message);
      return false;
    }
    ss->from_maximal(d, x);
    return true;
  }

  // ---- rk4: fixed step ----------------------------------------------------------------
  void run_rk4() {
    odeint::runge_kutta4<State> stepper;
    const double T = o.integrator.duration, dt = o.integrator.dt;
    const long N = intervals(T, dt);
    double t = 0.0;
    for (long k = 0;; ++k) {
      // ẋ at (t_k, x_k): the first stage of the next step, and the Data of the sample
      if (!evaluate(x, t, dxdt, k == N)) return;
      if (due(k, N)) emit(t);
      if (k == N) return;
      const double t_next = (k + 1 == N) ? T : static_cast<double>(k + 1) * dt;
      rhs_failure = {};
      stepper.do_step(Rhs{this}, x, dxdt, t, t_next - t);
      if (rhs_failure.happened) {
        fail(rhs_failure);
        return;
      }
      if (!accept(x, t_next)) return;
      t = t_next;
    }
  }

  // ---- adaptive: shared handling of a trial step --------------------------------------
  // After try_step: true when the step is accepted; otherwise h is reduced and the run
  // may have failed (r.status set).
  enum class Trial { Accepted, Rejected, Failed };
  Trial judge(odeint::controlled_step_result res, const State& xn, double t, double h_attempt,
              double& h, Failure& last) {
    if (rhs_failure.happened || (res == odeint::success && !xn.allFinite())) {
      if (rhs_failure.happened) last = rhs_failure;
      ++r.rejected_steps;
      h = 0.25 * h_attempt;
    } else if (res == odeint::fail) {
      ++r.rejected_steps;
    } else {
      return Trial::Accepted;
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

  // ---- rkf78: controlled steps that hit every output instant -------------------------
  void run_rkf78() {
    using Stepper = odeint::runge_kutta_fehlberg78<State>;
    using Checker =
        odeint::default_error_checker<double, Stepper::algebra_type, Stepper::operations_type>;
    odeint::controlled_runge_kutta<Stepper, Checker> ctl(
        Checker(o.integrator.atol, o.integrator.rtol));
    const double T = o.integrator.duration, dt = o.integrator.dt;
    const long K = intervals(T, dt);
    double t = 0.0, h = std::min(dt, T);
    Failure last;
    if (!evaluate(x, t, dxdt, false)) return;
    emit(t);
    for (long k = 0; k < K;) {
      const double t_target = (k + 1 == K) ? T : static_cast<double>(k + 1) * dt;
      const double h_before = h, h_attempt = std::min(h, t_target - t);
      double t_try = t, h_try = h_attempt;
      rhs_failure = {};
      const auto res = ctl.try_step(Rhs{this}, x, dxdt, t_try, x_new, h_try);
      h = h_try;
      const Trial trial = judge(res, x_new, t, h_attempt, h, last);
      if (trial == Trial::Failed) return;
      if (trial == Trial::Rejected) continue;
      // accepted: a step clipped to an output instant does not shrink the proposal
      if (h_attempt < h_before) h = std::max(h, h_before);
      const bool reached = h_attempt == t_target - t;
      t = reached ? t_target : t_try;
      x.swap(x_new);
      if (!accept(x, t)) return;
      if (!evaluate(x, t, dxdt, false)) return;
      if (reached && due(++k, K)) emit(t);
    }
  }

  // ---- dopri5: dense output ------------------------------------------------------------
  void run_dopri5() {
    using Stepper = odeint::runge_kutta_dopri5<State>;
    using Checker =
        odeint::default_error_checker<double, Stepper::algebra_type, Stepper::operations_type>;
    odeint::controlled_runge_kutta<Stepper, Checker> ctl(
        Checker(o.integrator.atol, o.integrator.rtol));
    const double T = o.integrator.duration, dt = o.integrator.dt;
    const long K = intervals(T, dt);
    auto instant = [&](long k) { return k == K ? T : static_cast<double>(k) * dt; };
    double t = 0.0, h = std::min(dt, T);
    Failure last;
    if (!evaluate(x, t, dxdt, false)) return;
    emit(t);
    long k = 0;
    while (k < K) {
      const double h_before = h, h_attempt = std::min(h, T - t);
      double t_try = t, h_try = h_attempt;
      rhs_failure = {};
      const auto res = ctl.try_step(Rhs{this}, x, dxdt, t_try, x_new, dxdt_new, h_try);
      h = h_try;
      const Trial trial = judge(res, x_new, t, h_attempt, h, last);
      if (trial == Trial::Failed) return;
      if (trial == Trial::Rejected) continue;
      if (h_attempt < h_before) h = std::max(h, h_before);
      const double t_new = (h_attempt == T - t) ? T : t_try;
      // the output instants in (t, t_new], from the continuous extension
      while (k < K && instant(k + 1) <= t_new) {
        const double tk = instant(++k);
        if (!due(k, K)) continue;
        if (tk == t_new)
          x_out = x_new;
        else
          ctl.stepper().calc_state(tk, x_out, x, dxdt, t, x_new, dxdt_new, t_new);
        if (!evaluate(x_out, tk, scratch, true)) return;
        emit(tk);
      }
      x.swap(x_new);
      dxdt.swap(dxdt_new);
      t = t_new;
      if (!accept(x, t)) return;
      // the projection moved x: the carried (FSAL) derivative is stale
      if (projection && k < K && !evaluate(x, t, dxdt, false)) return;
    }
  }
};

Simulation::Simulation(const Model& m, SimulationOptions options) {
  const IntegratorOptions& in = options.integrator;
  const auto bad = [](const std::string& what) {
    throw std::invalid_argument("Simulation(): " + what);
  };
  if (in.method != "rk4" && in.method != "dopri5" && in.method != "rkf78")
    bad("integrator.method must be rk4, dopri5 or rkf78, got '" + in.method + "'");
  if (!(in.dt > 0) || !std::isfinite(in.dt)) bad("integrator.dt must be > 0");
  if (!(in.duration >= 0) || !std::isfinite(in.duration)) bad("integrator.duration must be >= 0");
  if (!(in.rtol > 0) || !(in.atol > 0)) bad("integrator.rtol and atol must be > 0");
  if (options.every < 1) bad("every must be >= 1, got " + std::to_string(options.every));
  impl_ = std::make_unique<Impl>(m, std::move(options));
}

Simulation::~Simulation() = default;

SimulationResult Simulation::run(const Observer& observe) {
  Impl& s = *impl_;
  const Clock::time_point t0 = Clock::now();
  s.r = SimulationResult{};
  s.observe = &observe;
  if (s.start()) {
    const std::string& method = s.o.integrator.method;
    if (method == "rk4")
      s.run_rk4();
    else if (method == "rkf78")
      s.run_rkf78();
    else
      s.run_dopri5();
  }
  s.observe = nullptr;
  s.r.wall_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return s.r;
}

const Data& Simulation::data() const {
  return impl_->d;
}
const Eigen::VectorXd& Simulation::state() const {
  return impl_->x;
}
const StateSpace& Simulation::state_space() const {
  return *impl_->ss;
}

SimulationResult simulate(const Model& m, const SimulationOptions& options,
                          const Observer& observe) {
  return Simulation(m, options).run(observe);
}

}  // namespace appell
