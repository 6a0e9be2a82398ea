// Running a simulation: Boost.Odeint on a StateSpace, with stabilization, initial
// conditions and observers (docs/scene-format.md "integrator", "stabilization", "Initial
// conditions").
//
//   appell::SimulationOptions o = appell::SimulationOptions::from_model(model);
//   appell::SimulationResult r = appell::simulate(model, o, [&](const appell::Sample& s) {
//     use(s.t, s.data.body, s.energy, s.violation_position);
//   });
//   if (r.status != appell::SimulationStatus::Completed) report(r.t, r.message);
//
// The integrator talks to the formulation only through StateSpace (state_space.hpp):
// x of the maximal state, ẋ = derivative(x, t), normalize(x), project(x, t).  The same
// code therefore integrates the maximal coordinates of pinv/gibbs-appell/sparse and the
// joint coordinates of `recursive`.
//
// Steppers (Boost.Odeint, Eigen::VectorXd state):
//   rk4     runge_kutta4, fixed step dt (the last step is shortened to end at `duration`);
//           one output row every `every` steps.
//   dopri5  runge_kutta_dopri5 (order 5(4), FSAL) under the standard error controller
//           |err_i| ≤ atol + rtol (|x_i| + h |ẋ_i|); output instants k·dt are read from the
//           stepper's dense output (its order-4 continuous extension), so dt does not limit
//           the step size.
//   rkf78   runge_kutta_fehlberg78 (order 7(8)) under the same controller; steps are
//           clipped so that every output instant k·dt is hit exactly.
//
// Unit quaternions (maximal coordinates) without spoiling the order.  The exact flow of q̇ = ½ (0,
// ω) ⊗ q keeps |q| constant: d|q|²/dt = 2 q·q̇ = q·((0,ω)⊗q) = 0, because (0,ω)⊗q is orthogonal to q
// for a pure (0,ω).  A Runge–Kutta method preserves only linear invariants, so the numerical |q|
// drifts, but only by the local error, O(h^{p+1}) per step.  Two things keep that drift harmless:
//   1. kinematics() builds Q from q/|q|, so the accelerations never see |q| ≠ 1; the
//      right-hand side is invariant under q → c q, and the drift never feeds back.
//   2. after every *accepted* step StateSpace::normalize() maps q → q/|q|.  That is the
//      orthogonal projection onto |q| = 1; it moves x by | |q| − 1 | = O(h^{p+1}), which
//      is of the size of the local error itself, so the global order p is unchanged
//      (a projection method, Hairer–Lubich–Wanner, Geometric Numerical Integration,
//      §IV.4).  Normalising inside the stages instead would make the update something
//      other than x + h Σ b_i k_i, for which the tableau's order conditions were derived.
// With dopri5's FSAL derivative carried over a normalisation, the carried q̇ is off by the
// same O(h^{p+1}) factor, again below the method's own error.
//
// Stabilization (SimulationOptions::stabilization):
//   none        the drift of g and π grows like the integration error;
//   baumgarte   b ← b − 2α π − β² g in constraint_rows() (forward.hpp), every rhs call;
//   projection  after every accepted step StateSpace::project() puts the positions and then
//               the velocities back on the constraint manifolds (projection.hpp).  With
//               dopri5 the derivative is then re-evaluated (the FSAL value is stale).
//
// Initial conditions.  Holonomic violations above 1e-6 at t = 0 are refused (the scene
// loader refuses them first, naming the constraint).  Initial velocities are projected
// onto π = 0 in the mass metric (projection.hpp, P3) before integration starts;
// `initial_velocity_correction` is the size of that change in the mass metric,
// ‖Δu‖_M = sqrt(Δuᵀ M Δu) = sqrt(2 × the kinetic energy of the correction), in √J.
//
// Failures are returned, not thrown: a non-finite state or acceleration, inconsistent
// constraints, a failed projection or a step-size underflow stop the run with a status,
// the time and the reason.  Every output instant reached before the failure has already
// been given to the observer.  Adaptive steppers treat a failing right-hand side inside a
// trial step as a rejection (a too-large step often leaves the domain) and only give up
// when the step size underflows.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "appell/contact.hpp"
#include "appell/data.hpp"

namespace appell {

class StateSpace;  // appell/state_space.hpp

struct SimulationOptions {
  Formulation formulation = Formulation::Auto;  // resolved against the model
  Stabilization stabilization;                  // none, baumgarte or projection
  IntegratorOptions integrator;                 // method, duration, dt, rtol, atol
  ContactSettings contact;                      // joint limits on/off, contact solver
  int every = 1;                                // output every N steps / output instants
  // called after every accepted step with the time reached; for progress bars
  std::function<void(double t)> progress;

  // a scene's solver, integrator and output settings
  static SimulationOptions from_settings(const Settings& s);
};

// What an observer sees at one output instant.  `data` describes (t, x) completely:
// body states, udot, lambda, reaction, residuals (it is the Data after a forward pass).
struct Sample {
  double t;
  const Data& data;
  double kinetic_energy;
  double potential_energy;
  double energy;              // kinetic + potential (gravity, springs)
  double violation_position;  // max |g| over the holonomic rows
  double violation_velocity;  // max |π| over all rows
  int index;                  // 0, 1, 2, ... over the samples of one run
  // The joint-space state (q, u) at t when the run integrates in joint coordinates (the
  // recursive formulation), else null: the joint columns of the outputs read the tree
  // joints' q, u from it instead of re-deriving them from the body states.
  const State* state = nullptr;
  // moreau runs: the contact points and joint limits of the step that ended at t (its
  // impulses / h; empty at t = 0 and when nothing touches), else null (appell/contact.hpp)
  const std::vector<ContactSample>* contacts = nullptr;
};
using Observer = std::function<void(const Sample&)>;

enum class SimulationStatus {
  Completed,
  NotFinite,      // the state or the accelerations stopped being finite
  Inconsistent,   // constraints inconsistent, a projection failed, or initial violation
  StepUnderflow,  // the adaptive step size fell below round-off
  Stiff,          // adaptive steps held down by stability, not accuracy, far too many to go on
  Unconverged,    // moreau: the contact solver missed its tolerance on some steps (the run
                  // went on to its end; ContactSettings::on_unconverged)
};
const char* simulation_status_name(SimulationStatus s);

struct SimulationResult {
  SimulationStatus status = SimulationStatus::Completed;
  std::string message;          // why it stopped, for people (empty when completed)
  double t = 0.0;               // the time reached (the failure time when it failed)
  long steps = 0;               // accepted steps
  long rejected_steps = 0;      // adaptive steppers only
  long rhs_evaluations = 0;     // StateSpace::derivative calls made by the integrator
  long output_evaluations = 0;  // extra derivative calls made only to fill a Sample
  long samples = 0;
  double initial_velocity_correction = 0.0;  // ‖Δu‖_M, see above
  double wall_seconds = 0.0;
  double rhs_seconds = 0.0;  // wall time inside StateSpace::derivative (integrator calls)
  // moreau only: impacts (rows closing while approaching), the largest contact-solver
  // iterations and natural residual of a step, and the steps whose solver did not converge
  long impacts = 0;
  int contact_iterations = 0;
  double contact_residual = 0.0;
  long contact_unconverged = 0;
  double first_unconverged_t = 0.0;  // the end of the first such step
  double first_unconverged_residual = 0.0;
  double unconverged_residual = 0.0;  // the largest residual of those steps
  double max_penetration = 0.0;       // the largest penetration left after a step, m (≥ 0)
  bool ok() const { return status == SimulationStatus::Completed; }
};

// What a run's unconverged contact steps were, for people: how many, the first (its time and
// residual), the worst residual, the tolerance and the scene key that accepts them.
std::string contact_unconverged_message(const SimulationResult& r, const ContactSettings& c);

// One simulation of one model: owns the state space, the state x and a Data.  The model
// must outlive it; several Simulations of one model may run on several threads.
class Simulation {
 public:
  // Throws std::invalid_argument on bad options (method, dt ≤ 0, duration < 0, every < 1,
  // tolerances ≤ 0; a smooth method asked for a model with unilateral rows; moreau outside
  // the recursive formulation).
  Simulation(const Model& m, SimulationOptions options);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Integrates from the q, u of `initial` (the model's initial state when omitted) over
  // [0, duration]: start(), then step() until it returns false.  Calls `observe` at t = 0, at every
  // `every`-th step / output instant and at the final time.  Cost: steps × (stages × one forward
  // pass), plus one projection per step with projection stabilization.
  SimulationResult run(const Observer& observe = nullptr);
  SimulationResult run(const State& initial, const Observer& observe = nullptr);

  // Stepping, for embedders that drive the loop themselves:
  //   if (sim.start(obs)) while (sim.step(obs)) { ... sim.time(), sim.data() ... }
  //   if (!sim.result().ok()) ...
  // start() restarts from `initial` or the model's initial state (initial conditions, the
  // t = 0 sample);
  // step() makes one accepted step (rk4: one step of dt; adaptive: one step the error
  // controller accepts, with its rejected trials) and gives `observe` every output instant
  // it passes.  Both return false when the run cannot go on: finished (result().ok()) or
  // failed (result() says when and why).
  bool start(const Observer& observe = nullptr);
  bool start(const State& initial, const Observer& observe = nullptr);
  bool step(const Observer& observe = nullptr);
  bool running() const;                    // started, neither finished nor failed
  double time() const;                     // the time reached
  const SimulationResult& result() const;  // so far

  // the last evaluated state: every field at output instants (what observers see); between
  // them the recursive formulation evaluates only what the integrator needs (body states,
  // joint accelerations, extra rows: StateSpace::rate), so multipliers and reactions of
  // tree joints there are those of the last output instant.  moreau steps without an
  // observer evaluate their output instant only when data() is read (the step itself needs
  // no accelerations at its end): a loop that reads state() alone does not pay for it.
  // Not to be called from two threads at once on one Simulation.
  const Data& data() const;
  const Eigen::VectorXd& state() const;  // x, in the state space's coordinates
  const StateSpace& state_space() const;
  // the integration method in use: the options' one, or moreau for a model with unilateral
  // rows when none was given (IntegratorOptions::method_given)
  const std::string& method() const;
  // moreau: the contact points and joint limits of the last step (Sample::contacts); empty
  // before the first step and for other methods
  const std::vector<ContactSample>& contacts() const;

  // the run itself, opaque (the library's; its integrators step it)
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Simulation(m, options).run(observe), from the model's initial state or from `initial`.
SimulationResult simulate(const Model& m, const SimulationOptions& options,
                          const Observer& observe = nullptr);
SimulationResult simulate(const Model& m, const State& initial, const SimulationOptions& options,
                          const Observer& observe = nullptr);

// The contact forces at a state, without a run: one moreau step of size h from `initial`
// (after the initial conditions: velocities projected onto the bilateral constraints), its
// contact points and joint limits with impulse / h (docs/contact.md, "Outputs").  Empty when
// the model has no unilateral rows (or options.contact turns its limits off).  Throws
// std::invalid_argument as Simulation() does, and std::runtime_error with the run's message
// when the step fails.
std::vector<ContactSample> contact_forces(const Model& m, const State& initial,
                                          SimulationOptions options, double h);
// whether a model has unilateral rows: collision shapes that can touch, (joint_limits)
// limited revolute or prismatic joints, or (joint_friction) joints with Coulomb friction;
// such a model runs with the moreau method
bool has_unilateral_rows(const Model& m, bool joint_limits = true, bool joint_friction = true);

}  // namespace appell
