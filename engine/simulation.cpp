#include "appell/simulation.hpp"

#include <boost/numeric/odeint.hpp>
#include <boost/numeric/odeint/external/eigen/eigen.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "appell/forward.hpp"
#include "engine/projection.hpp"
#include "engine/stages.hpp"

namespace appell {

namespace odeint = boost::numeric::odeint;
using Vector = Eigen::VectorXd;  // the integrators' state x
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
  }
  return "?";
}

SimulationOptions SimulationOptions::from_settings(const Settings& s) {
  SimulationOptions o;
  o.formulation = s.solver.formulation;
  o.stabilization = s.solver.stabilization;
  o.integrator = s.integrator;
  o.every = s.output.every;
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
  Vector x, dxdt, x_new, dxdt_new, x_out, scratch;
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
      : m(model),
        o(std::move(options)),
        ss(make_state_space(model, SolverOptions{o.formulation, o.stabilization})),
        d(model) {
    projection = o.stabilization.type == Stabilization::Type::Projection;
  }

  // ---- the right-hand side, as odeint sees it ---------------------------------------
  void rhs(const Vector& xi, Vector& xdot, double t) {
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
    void operator()(const Vector& xi, Vector& xdot, double t) const { self->rhs(xi, xdot, t); }
  };

  // ---- outcomes ------------------------------------------------------------------------
  SimulationResult& fail(SimulationStatus s, double t, const std::string& why) {
    r.status = s;
    r.t = t;
    r.message = why;
    // contradictory rows or a collapsing step after t = 0 without projection: most often a
    // singular position (engine/rank_policy.hpp, item 4); say what helps there
    if ((s == SimulationStatus::Inconsistent || s == SimulationStatus::StepUnderflow) && t > 0 &&
        m.nrows() > 0 && !projection)
      r.message +=
          "; if the mechanism passes a singular position, use \"stabilization\": {\"type\": "
          "\"projection\"}";
    return r;
  }
  SimulationResult& fail(const Failure& f) { return fail(status_of(f.status), f.t, f.message); }

  // Evaluates (t, xi) into d and xdot; false (and r filled) when that fails.
  bool evaluate(const Vector& xi, double t, Vector& xdot, bool for_output) {
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
  bool accept(Vector& xi, double t) {
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

  // ---- the run's state between steps ------------------------------------------------------
  using Dopri = odeint::runge_kutta_dopri5<Vector>;
  using Fehlberg = odeint::runge_kutta_fehlberg78<Vector>;
  using Checker =
      odeint::default_error_checker<double, Dopri::algebra_type, Dopri::operations_type>;
  odeint::runge_kutta4<Vector> rk4;
  std::unique_ptr<odeint::controlled_runge_kutta<Dopri, Checker>> dopri5;
  std::unique_ptr<odeint::controlled_runge_kutta<Fehlberg, Checker>> rkf78;
  enum class Method { Rk4, Dopri5, Rkf78 } method = Method::Rk4;
  double t = 0.0, h = 0.0;  // time reached; adaptive: the controller's next step size
  long k = 0, K = 0;        // output instants (adaptive) or steps (rk4) done, and their number
  bool running = false;
  Failure last;  // the last failing right-hand side among rejected trial steps

  double T() const { return o.integrator.duration; }
  double instant(long i) const { return i >= K ? T() : static_cast<double>(i) * o.integrator.dt; }

  // ---- initial conditions (SPEC §2) ------------------------------------------------------
  bool start(const State& initial) {
    r = SimulationResult{};
    running = false;
    set_state(m, d, initial);
    d.t = 0.0;
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

    // the stepper, fresh
    const IntegratorOptions& in = o.integrator;
    method = in.method == "rk4"      ? Method::Rk4
             : in.method == "dopri5" ? Method::Dopri5
                                     : Method::Rkf78;
    dopri5.reset();
    rkf78.reset();
    if (method == Method::Dopri5)
      dopri5 = std::make_unique<odeint::controlled_runge_kutta<Dopri, Checker>>(
          Checker(in.atol, in.rtol));
    if (method == Method::Rkf78)
      rkf78 = std::make_unique<odeint::controlled_runge_kutta<Fehlberg, Checker>>(
          Checker(in.atol, in.rtol));
    t = 0.0;
    h = std::min(in.dt, T());
    k = 0;
    K = intervals(T(), in.dt);
    last = {};

    // ẋ at t = 0: the first stage of the first step, and the Data of the first sample
    if (!evaluate(x, t, dxdt, K == 0)) return false;
    emit(t);
    running = K > 0;
    return true;
  }

  // ---- one accepted step -------------------------------------------------------------------
  bool step() {
    if (!running) return false;
    const bool ok = method == Method::Rk4     ? step_rk4()
                    : method == Method::Rkf78 ? step_rkf78()
                                              : step_dopri5();
    if (!ok || k >= K) running = false;
    return ok;
  }

  // rk4: fixed step dt, the last one shortened to end at T; dxdt holds ẋ(t, x)
  bool step_rk4() {
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
    if (!evaluate(x, t, dxdt, k == K)) return false;
    if (due(k, K)) emit(t);
    return true;
  }

  // After try_step: Accepted, Rejected (h reduced), or Failed (r says why).
  enum class Trial { Accepted, Rejected, Failed };
  Trial judge(odeint::controlled_step_result res, const Vector& xn, double h_attempt) {
    if (rhs_failure.happened || (res == odeint::success && !xn.allFinite())) {
      // a trial stage left the domain: retry smaller
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

  // rkf78: controlled steps clipped so that every output instant is hit exactly
  bool step_rkf78() {
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
      if (!evaluate(x, t, dxdt, false)) return false;
      if (reached && due(++k, K)) emit(t);
      return true;
    }
  }

  // dopri5: free steps; output instants from the stepper's continuous extension
  bool step_dopri5() {
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
      // the output instants in (t, t_new], interpolated
      while (k < K && instant(k + 1) <= t_new) {
        const double tk = instant(++k);
        if (!due(k, K)) continue;
        if (tk == t_new)
          x_out = x_new;
        else
          dopri5->stepper().calc_state(tk, x_out, x, dxdt, t, x_new, dxdt_new, t_new);
        if (!evaluate(x_out, tk, scratch, true)) return false;
        emit(tk);
      }
      x.swap(x_new);
      dxdt.swap(dxdt_new);
      t = t_new;
      if (!accept(x, t)) return false;
      // the projection moved x: the carried (FSAL) derivative is stale
      if (projection && k < K && !evaluate(x, t, dxdt, false)) return false;
      return true;
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

namespace {
// adds the wall time of one public call to the result
struct WallTimer {
  SimulationResult& r;
  Clock::time_point t0 = Clock::now();
  ~WallTimer() { r.wall_seconds += std::chrono::duration<double>(Clock::now() - t0).count(); }
};
}  // namespace

bool Simulation::start(const Observer& observe) {
  return start(impl_->m.initial_state(), observe);
}

bool Simulation::start(const State& initial, const Observer& observe) {
  Impl& s = *impl_;
  s.observe = &observe;
  bool ok;
  {
    s.r = SimulationResult{};
    WallTimer timer{s.r};
    ok = s.start(initial);
  }
  s.observe = nullptr;
  return ok;
}

bool Simulation::step(const Observer& observe) {
  Impl& s = *impl_;
  s.observe = &observe;
  WallTimer timer{s.r};
  const bool ok = s.step();
  s.observe = nullptr;
  return ok;
}

bool Simulation::running() const {
  return impl_->running;
}
double Simulation::time() const {
  return impl_->t;
}
const SimulationResult& Simulation::result() const {
  return impl_->r;
}

SimulationResult Simulation::run(const Observer& observe) {
  return run(impl_->m.initial_state(), observe);
}

SimulationResult Simulation::run(const State& initial, const Observer& observe) {
  if (start(initial, observe))
    while (step(observe)) {
    }
  return impl_->r;
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

SimulationResult simulate(const Model& m, const State& initial, const SimulationOptions& options,
                          const Observer& observe) {
  return Simulation(m, options).run(initial, observe);
}

}  // namespace appell
