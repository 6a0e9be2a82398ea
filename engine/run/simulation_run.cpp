#include <cmath>
#include <sstream>

#include "appell/contact.hpp"
#include "appell/forward.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/formulations/projection.hpp"
#include "engine/model/tree.hpp"
#include "engine/run/integrators/integrator.hpp"
#include "engine/run/simulation_impl.hpp"

namespace appell {

using namespace simulation_detail;
using Vector = Eigen::VectorXd;
using Clock = std::chrono::steady_clock;

Simulation::Impl::Impl(const Model& model, SimulationOptions options, const Integrator& in)
    : m(model),
      o(std::move(options)),
      ss(make_state_space(model, SolverOptions{o.formulation, o.stabilization})),
      d(model),
      integrator(&in) {
  projection = o.stabilization.type == Stabilization::Type::Projection;
}

Simulation::Impl::~Impl() = default;

void Simulation::Impl::rhs(const Vector& xi, Vector& xdot, double t) {
  rhs_as(xi, xdot, t, false);
}

// a right-hand side counted as the integrator's; `full`: every field of d (a sample's)
void Simulation::Impl::rhs_as(const Vector& xi, Vector& xdot, double t, bool full) {
  const Clock::time_point t0 = Clock::now();
  const SolveStatus s = full ? ss->derivative(xi, t, d, xdot) : ss->rate(xi, t, d, xdot);
  r.rhs_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
  ++r.rhs_evaluations;
  if (s != SolveStatus::Ok) {
    if (!rhs_failure.happened) rhs_failure = {true, s, d.diagnostics.message, t};
    xdot.setConstant(std::numeric_limits<double>::quiet_NaN());  // never accepted
  }
}

SimulationResult& Simulation::Impl::fail(SimulationStatus s, double t, const std::string& why) {
  r.status = s;
  r.t = t;
  r.message = why;
  // contradictory rows or a collapsing step after t = 0 without projection: most often a
  // singular position (engine/formulations/rank_policy.hpp, item 4); say what helps there
  if ((s == SimulationStatus::Inconsistent || s == SimulationStatus::StepUnderflow) && t > 0 &&
      m.nrows() > 0 && !projection)
    r.message +=
        "; if the mechanism passes a singular position, use \"stabilization\": {\"type\": "
        "\"projection\"}";
  return r;
}

bool Simulation::Impl::evaluate(const Vector& xi, double t, Vector& xdot, Purpose purpose) {
  rhs_failure = {};
  if (joint_space && purpose != Purpose::Step) {  // what the sample's joint columns read
    const int nq = m.tree().nq;
    sample_state.t = t;
    sample_state.q = xi.head(nq);  // the same sizes every time: no allocation
    sample_state.u = xi.tail(xi.size() - nq);
  }
  if (purpose == Purpose::Sample) {
    const SolveStatus s = ss->derivative(xi, t, d, xdot);
    ++r.output_evaluations;
    if (s != SolveStatus::Ok) rhs_failure = {true, s, d.diagnostics.message, t};
  } else {
    rhs_as(xi, xdot, t, purpose == Purpose::StepAndSample);
  }
  if (rhs_failure.happened) {
    fail(rhs_failure);
    return false;
  }
  return on_branch(t);
}

bool Simulation::Impl::on_branch(double t) {
  if (projection || rank0 < 0 || m.tree().nrows_extra == 0) return true;
  // max |g| over the holonomic rows: in joint space those beyond the tree (the tree's hold
  // by construction and are not evaluated), else all
  double g = 0.0;
  const auto add = [&](int c) {
    const Constraint& con = *m.constraints()[c];
    for (int i = 0; i < con.rows(); ++i)
      if (con.holonomic(i)) g = std::max(g, std::abs(d.position_residual(m.row_offset(c) + i)));
  };
  if (ss->formulation() == Formulation::Recursive)
    for (int c : m.tree().extra) add(c);
  else
    for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) add(c);
  const double before = violation, step = g - violation, largest = growth;
  violation = g;
  if (std::isfinite(step)) growth = std::max(growth, step);
  ++checks;
  std::ostringstream os;
  // with Baumgarte's feedback the violation is held at every step, and a motion through the
  // rank-deficient window is followed (the delta robot's arms going straight): there only a
  // jump of the violation tells that a step left the branch
  if (d.diagnostics.rank != rank0 && o.stabilization.type == Stabilization::Type::None) {
    os << "the rank of the constraints changed from " << rank0 << " to " << d.diagnostics.rank
       << " (of " << m.nrows() << " rows)";
  } else if (checks > 2 && g > kViolationFloor && step > kViolationJump * largest) {
    os << "the constraint violation jumped from " << before << " to " << g
       << " in one step (at most " << largest << " a step before)";
  } else {
    return true;
  }
  os << ": the mechanism reached a singular position, where without projection the motion "
        "can leave its branch";
  fail(SimulationStatus::Inconsistent, t, os.str());
  return false;
}

// A sample is checked before anyone sees it: every number an observer may write (body
// states, energy, violations, constraint forces) is finite, or the run stops here with
// NotFinite and the observer never sees the sample.  So outputs hold finite rows only.
bool Simulation::Impl::emit(double t) {
  // a joint-space run's rotors and joint springs from its State
  const double T = joint_space ? kinetic_energy(m, d, sample_state) : kinetic_energy(m, d);
  const double V = joint_space ? potential_energy(m, d, sample_state) : potential_energy(m, d);
  const double vv = m.nrows() ? d.velocity_residual.cwiseAbs().maxCoeff() : 0.0;
  const double vp = max_position_violation(m, d);
  const char* bad = nullptr;
  for (const BodyState& b : d.body)
    if (!bad && !(b.x.allFinite() && b.v.allFinite() && b.w.allFinite() && b.Q.allFinite()))
      bad = "the state is not finite";
  if (!bad && !std::isfinite(T + V)) bad = "the energy is not finite";
  if (!bad && !(std::isfinite(vv) && std::isfinite(vp)))
    bad = "the constraint violation is not finite";
  for (const SpatialForce& w : d.reaction)
    if (!bad && !(w.force.allFinite() && w.moment.allFinite()))
      bad = "the constraint forces are not finite";
  if (bad) {
    fail(SimulationStatus::NotFinite, t, bad);
    return false;
  }
  ++r.samples;
  if (!observe || !*observe) return true;
  const Sample s{t,
                 d,
                 T,
                 V,
                 T + V,
                 vp,
                 vv,
                 static_cast<int>(r.samples - 1),
                 joint_space ? &sample_state : nullptr,
                 integrator->info.unilateral ? &contacts : nullptr};
  (*observe)(s);
  return true;
}

bool Simulation::Impl::accept(Vector& xi, double t) {
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

bool Simulation::Impl::start(const State& initial) {
  r = SimulationResult{};
  running = false;
  sample_pending = false;  // a last run's unread sample: d is evaluated anew below
  // positions checked, velocities projected, in joint coordinates; d is evaluated there
  // once, by the first step's ẋ below
  InitialConditions ic;
  const SolveStatus s = project_initial_state(m, d, initial, ic);
  r.initial_velocity_correction =
      std::isfinite(ic.velocity_correction) ? ic.velocity_correction : 0.0;
  // a failure of the evaluation itself is the first step's to report (below)
  if (s != SolveStatus::Ok && !ic.projected) {
    const bool velocities = ic.position_violation <= 1e-6 && s == SolveStatus::Inconsistent;
    fail(status_of(s), 0.0, (velocities ? "initial velocities: " : "") + d.diagnostics.message);
    return false;
  }
  // a start outside a joint limit is a position error, not a contact (appell/contact.hpp)
  if (integrator->info.unilateral && o.contact.joint_limits) {
    const LimitViolation v = joint_limit_violation(m, ic.state.q);
    if (v.constraint >= 0) {
      fail(SimulationStatus::Inconsistent, 0.0, v.message);
      return false;
    }
  }
  ss->from_state(ic.state, x, d);
  joint_space = ss->formulation() == Formulation::Recursive;

  // the stepper, fresh (a model without state: rk4's step is exact, and an error control
  // would have nothing to measure)
  const IntegratorOptions& in = o.integrator;
  contacts.clear();
  stepper.reset();
  const bool stateless = x.size() == 0 && !integrator->info.unilateral;
  stepper = (stateless ? stateless_integrator() : *integrator).make(*this);
  t = 0.0;
  h = std::min(in.dt, T());
  k = 0;
  K = intervals(T(), in.dt);
  last = {};
  tiny = 0;

  // ẋ at t = 0: the first stage of the first step, and the Data of the first sample
  rank0 = -1;
  if (!evaluate(x, t, dxdt, K == 0 ? Purpose::Sample : Purpose::StepAndSample)) return false;
  rank0 = d.diagnostics.rank;
  violation = growth = 0.0;
  checks = 0;
  if (!on_branch(t) || !emit(t)) return false;
  running = K > 0;
  return true;
}

}  // namespace appell
