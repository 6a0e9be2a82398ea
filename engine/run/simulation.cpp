#include "appell/simulation.hpp"

#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "appell/derivatives.hpp"
#include "appell/forward.hpp"
#include "appell/tree.hpp"
#include "engine/contact/moreau.hpp"
#include "engine/run/integrators/integrator.hpp"
#include "engine/run/simulation_impl.hpp"

namespace appell {

using Clock = std::chrono::steady_clock;

std::string contact_unconverged_message(const SimulationResult& r, const ContactSettings& c) {
  std::ostringstream os;
  os << "the contact solver missed its tolerance " << c.tolerance << " on " << r.contact_unconverged
     << (r.contact_unconverged == 1 ? " step" : " steps")
     << ", the first ending at t = " << r.first_unconverged_t << " (residual "
     << r.first_unconverged_residual << "), the worst residual " << r.unconverged_residual
     << "; those steps kept the solver's best impulses.  To accept them: \"contact\": "
        "{\"on_unconverged\": \"warn\"}";
  return os.str();
}

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
    case SimulationStatus::Stiff:
      return "stiff";
    case SimulationStatus::Unconverged:
      return "unconverged";
  }
  return "?";
}

SimulationOptions SimulationOptions::from_settings(const Settings& s) {
  SimulationOptions o;
  o.formulation = s.solver.formulation;
  o.stabilization = s.solver.stabilization;
  o.integrator = s.integrator;
  o.contact = s.contact;
  o.every = s.output.every;
  return o;
}

Simulation::Simulation(const Model& m, SimulationOptions options) {
  const IntegratorOptions& in = options.integrator;
  const auto bad = [](const std::string& what) {
    throw std::invalid_argument("Simulation(): " + what);
  };
  const Integrator* integrator = find_integrator_type(in.method);
  if (!integrator)
    bad("integrator.method must be " + integrator_names() + ", got '" + in.method + "'");
  // a limit or friction on a joint that closes a loop would be ignored (appell/contact.hpp)
  const std::vector<UnenforcedJoint> lost =
      unenforced_joint_properties(m, options.contact.joint_limits, options.contact.joint_friction);
  if (!lost.empty()) bad(describe(m, lost.front()));
  if (MoreauStepper::has_unilateral_rows(m, options.contact.joint_limits,
                                         options.contact.joint_friction)) {
    const Integrator& unilateral = unilateral_integrator();
    if (!in.method_given)
      integrator = &unilateral;
    else if (!integrator->info.unilateral)
      bad("integrator.method '" + in.method +
          "' cannot step unilateral rows (contact shapes, joint limits or joint friction); use "
          "\"" +
          unilateral.info.name +
          "\", or turn limits and friction off with \"contact\": {\"joint_limits\": "
          "false, \"joint_friction\": false}");
    options.integrator.method = integrator->info.name;
  }
  // what the integrator itself asks of the run (engine/run/integrators/)
  if (integrator->check) integrator->check(m, options, bad);
  {
    const Formulation f = resolve_formulation(m, options.formulation);
    if (f != Formulation::Recursive && !m.joint_space_only().empty())
      bad(std::string("the ") + formulation_name(f) + " formulation cannot evaluate this model: " +
          m.joint_space_only() + "; use the recursive formulation");
  }
  if (!(in.dt > 0) || !std::isfinite(in.dt)) bad("integrator.dt must be > 0");
  if (!(in.duration >= 0) || !std::isfinite(in.duration)) bad("integrator.duration must be >= 0");
  if (!(in.rtol > 0) || !(in.atol > 0)) bad("integrator.rtol and atol must be > 0");
  // the step and output counters are longs: duration / dt must stay countable
  if (!(in.duration / in.dt <= 1e15))
    bad("integrator.duration / dt is above 1e15 steps; dt is too small for this duration");
  if (options.every < 1) bad("every must be >= 1, got " + std::to_string(options.every));
  impl_ = std::make_unique<Impl>(m, std::move(options), *integrator);
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
  if (impl_->sample_pending) impl_->evaluate_pending_sample();
  return impl_->d;
}
const Eigen::VectorXd& Simulation::state() const {
  return impl_->x;
}
const std::string& Simulation::method() const {
  return impl_->o.integrator.method;
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
