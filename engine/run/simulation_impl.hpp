// The run behind appell::Simulation (appell/simulation.hpp): Boost.Odeint's steppers on a
// StateSpace, the initial conditions of docs/scene-format.md, samples at output instants, and
// failures that say when and why.  Private to the library.
//
//   engine/run/simulation.cpp           the public Simulation, simulate()
//   engine/run/simulation_run.cpp       right-hand side, outcomes, samples, initial conditions
//   engine/run/simulation_steppers.cpp  one accepted step: the dispatch, the epilogues the
//                                       steppers share, error control and stiffness
//   engine/run/integrators/             one file per integrator, and their registry
#pragma once

#include <boost/numeric/odeint.hpp>
#include <boost/numeric/odeint/external/eigen/eigen.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "appell/simulation.hpp"
#include "appell/state_space.hpp"

namespace appell {
class MoreauStepper;  // engine/contact/moreau.hpp
class Stepper;        // engine/run/integrators/integrator.hpp
struct Integrator;
}  // namespace appell

namespace appell {

namespace odeint = boost::numeric::odeint;

namespace simulation_detail {

inline SimulationStatus status_of(SolveStatus s) {
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
inline long intervals(double T, double dt) {
  return T <= 0 ? 0 : std::max(1L, static_cast<long>(std::ceil(T / dt - 1e-9)));
}

// the smallest step that still advances t meaningfully
inline double min_step(double t) {
  return 16.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t));
}

// An adaptive run stops (step-size underflow) after this many accepted steps in a row,
// each shorter than kTinyStep × dt: ten million steps per output interval would be needed
// (an angular velocity of 1e9 rad/s, say), and the run would only seem to hang.  Passing a
// singular position takes a few such steps, not thousands.
constexpr double kTinyStep = 1e-7;
constexpr long kMaxTinySteps = 10000;

// Stiffness.  Steps just above kTinyStep × dt can still number millions (a Baumgarte gain
// of 1e9 holds dopri5 near 3e-9 s).  After kStiffSteps accepted steps in a row shorter than
// kSlowStep × dt, the fastest rate ρ of the equations, the spectral radius of ∂ẋ/∂x, is
// estimated by power iteration on finite differences of ẋ (kPowerIterations evaluations).
// An explicit Runge–Kutta step is limited by stability to h ρ ≲ 3 (dopri5's region reaches
// 3.3 on the negative real axis, 2.8 for rk4), by accuracy to h ρ well below 1 for
// a mode it must follow: h ρ > kStiffProduct means the steps are held down by a mode that
// decays or turns faster than the run can resolve, i.e. stiffness.  The run stops then if
// reaching T at that step would take more than kStiffBudget further steps.
constexpr double kSlowStep = 1e-4;
constexpr long kStiffSteps = 500;
constexpr int kPowerIterations = 8;
constexpr double kStiffProduct = 1.0;
constexpr double kStiffBudget = 1e6;

// A step across a singular position without projection (Simulation::Impl::on_branch)
constexpr double kViolationJump = 10.0;
constexpr double kViolationFloor = 1e-7;

}  // namespace simulation_detail

struct Simulation::Impl {
  using Vector = Eigen::VectorXd;  // the integrators' state x
  using Clock = std::chrono::steady_clock;

  const Model& m;
  SimulationOptions o;
  std::unique_ptr<StateSpace> ss;
  Data d;
  Vector x, dxdt, x_new, dxdt_new, x_out, scratch;
  // the joint-space state of the last sample's evaluation (Sample::state), when x is one
  State sample_state;
  bool joint_space = false;
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

  // `integrator`: o's method, its options checked (Simulation's constructor)
  Impl(const Model& model, SimulationOptions options, const Integrator& in);
  ~Impl();

  // ---- the right-hand side, as odeint sees it ---------------------------------------
  void rhs(const Vector& xi, Vector& xdot, double t);
  void rhs_as(const Vector& xi, Vector& xdot, double t, bool full);
  struct Rhs {
    Impl* self;
    void operator()(const Vector& xi, Vector& xdot, double t) const { self->rhs(xi, xdot, t); }
  };

  // ---- outcomes ------------------------------------------------------------------------
  SimulationResult& fail(SimulationStatus s, double t, const std::string& why);
  SimulationResult& fail(const Failure& f) {
    return fail(simulation_detail::status_of(f.status), f.t, f.message);
  }

  // What an evaluation serves: the next step only (ẋ, StateSpace::rate), the next step
  // and a sample (every field of d, StateSpace::derivative), or a sample only (counted
  // apart from the integrator's right-hand sides).
  enum class Purpose { Step, StepAndSample, Sample };
  // Evaluates (t, xi) into d and xdot; false (and r filled) when that fails.
  bool evaluate(const Vector& xi, double t, Vector& xdot, Purpose purpose);

  // The Sample of d, which must describe (t, x) (a derivative was just evaluated there),
  // checked finite and given to the observer; false (and r filled) when it is not finite.
  bool emit(double t);
  // An output instant that a step without an observer passed, where the step itself did
  // not evaluate d (moreau): no one sees it unless Simulation::data() is read, which
  // evaluates it then (evaluate_pending_sample).  The next step drops it.
  bool sample_pending = false;
  void evaluate_pending_sample();

  // After an accepted step: unit quaternions (see the header), then the projection.
  bool accept(Vector& xi, double t);

  // Without projection, a singular position (rank_policy.hpp, item 4) cannot be followed:
  // the motion may turn onto another branch of the manifold.  Two signs that one was
  // reached, checked on d just evaluated at (t, x) on the trajectory: without stabilization,
  // the rank of the rows is not what it was at t = 0 (a step landed inside the window σ < τ;
  // with Baumgarte the motion through it is followed), or, with either, the position
  // violation grew in one step by more than kViolationJump times any earlier step's growth,
  // to above kViolationFloor (a fixed or large step went across the window: elsewhere the
  // violation only grows by the integration error, smoothly).  False (and r filled) then.
  bool on_branch(double t);
  int rank0 = -1;          // the rank at t = 0
  double violation = 0.0;  // the position violation at the last check
  double growth = 0.0;     // the largest growth of the violation between two checks so far
  long checks = 0;         // checks made (the first step's growth has nothing to compare to)

  bool due(long k, long K) const { return k % o.every == 0 || k == K; }

  // ---- the run's state between steps ------------------------------------------------------
  using Dopri = odeint::runge_kutta_dopri5<Vector>;
  using Fehlberg = odeint::runge_kutta_fehlberg78<Vector>;
  // odeint's error checker, asking the state space what the step's error is
  // (StateSpace::step_error: in joint coordinates with loops, also the bodies' error)
  class Checker {
   public:
    using value_type = double;
    using algebra_type = Dopri::algebra_type;
    using operations_type = Dopri::operations_type;
    Checker() = default;
    Checker(StateSpace* ss, double atol, double rtol) : ss_(ss), atol_(atol), rtol_(rtol) {}
    double error(algebra_type&, const Vector& x, const Vector& xdot, Vector& err, double dt) const {
      return ss_->step_error(x, xdot, err, dt, atol_, rtol_);
    }

   private:
    StateSpace* ss_ = nullptr;
    double atol_ = 1e-6, rtol_ = 1e-6;
  };
  const Integrator* integrator = nullptr;  // the run's (engine/run/integrators/)
  std::unique_ptr<Stepper> stepper;        // its state, made by start()
  // the last moreau step's rows for outputs (engine/run/contact_samples.cpp)
  std::vector<ContactSample> contacts;
  // after a moreau step of length `step`: contacts from its records, the penetration figure
  void record_contacts(const MoreauStepper& moreau, double step);
  double t = 0.0, h = 0.0;  // time reached; adaptive: the controller's next step size
  long k = 0, K = 0;        // output instants (adaptive) or steps (rk4) done, and their number
  bool running = false;
  Failure last;   // the last failing right-hand side among rejected trial steps
  long tiny = 0;  // accepted adaptive steps in a row shorter than kTinyStep × dt
  long slow = 0;  // accepted adaptive steps in a row shorter than kSlowStep × dt

  double T() const { return o.integrator.duration; }
  double instant(long i) const { return i >= K ? T() : static_cast<double>(i) * o.integrator.dt; }

  // ---- initial conditions (docs/scene-format.md)
  // ------------------------------------------------------
  bool start(const State& initial);

  // ---- one accepted step -------------------------------------------------------------------
  bool step();

  // After try_step: Accepted, Rejected (h reduced), or Failed (r says why).
  enum class Trial { Accepted, Rejected, Failed };
  Trial judge(odeint::controlled_step_result res, const Vector& xn, double h_attempt);

  // The epilogue of a fixed step to t_next (x holds its end): accept, then the sample when
  // one is due.  `rate`: the next step needs ẋ there (rk4), evaluated with the sample.
  bool end_fixed_step(double t_next, bool rate);
  // The epilogue of an accepted controlled step clipped to the next output instant
  // t_target (x_new holds its end at t_try): the controller's proposal kept when the step
  // was clipped, x ← x_new accepted, ẋ evaluated, the sample when the instant is reached.
  bool end_clipped_step(double h_before, double h_attempt, double t_target, double t_try);

  // After an accepted adaptive step of size h_step to (t, x) with ẋ = dxdt: counts slow
  // steps and, every kStiffSteps of them, tests for stiffness (see kSlowStep).  False (and r
  // filled) when the run is stiff; d is left evaluated at (t, x) either way.
  bool not_stiff(double h_step);
  // ρ, the spectral radius of ∂ẋ/∂x at (t, x) with ẋ(x) = f0, by power iteration
  double fastest_rate(const Vector& f0);
};

}  // namespace appell
