// An integrator as a type (appell/integrators.hpp): its public description, the checks it
// makes of a run's options, the stepper it gives a Simulation run, and optionally its run of
// a first-order system in quasi-velocities.  Private to the library.
//
//   engine/run/integrators/registry.cpp    the table: one line per integrator
//   engine/run/integrators/<name>.cpp      one integrator
//
// A Simulation builds its stepper once per start() and calls step() once per accepted step
// (a virtual call per step, none per right-hand side).  The epilogues the steppers share
// (accept, evaluate, emit) are Simulation::Impl's (engine/run/simulation_steppers.cpp).
#pragma once

#include <Eigen/Core>
#include <functional>
#include <memory>
#include <string>

#include "appell/integrators.hpp"
#include "appell/lagrangian_run.hpp"
#include "engine/run/simulation_impl.hpp"

namespace appell {

namespace lagrangian_detail {
struct FirstOrder;  // engine/lagrangian/first_order.hpp
}

// One integrator's state within one Simulation run.
class Stepper {
 public:
  virtual ~Stepper() = default;
  // one accepted step of run s (output instants passed are sampled); false when the run
  // stops, s.r saying why when it failed
  virtual bool step(Simulation::Impl& s) = 0;
};

struct Integrator {
  IntegratorInfo info;
  // The run's options checked against the model and settled (a formulation left Auto
  // chosen); `bad(what)` refuses them (it throws).  Null: nothing to check.
  void (*check)(const Model& m, SimulationOptions& o,
                const std::function<void(const std::string&)>& bad) = nullptr;
  // the stepper of run s, made after its initial conditions (s.x, s.dxdt, s.t set)
  std::unique_ptr<Stepper> (*make)(Simulation::Impl& s) = nullptr;
  // A run of the first-order system f from X at t0 with `run`'s dt, duration and every:
  // `out` is given each sample after the first (the caller gives that one); returns the
  // steps taken; throws lagrangian_detail::Failure.  Null unless info.quasi_velocities.
  long (*first_order)(const lagrangian_detail::FirstOrder& f, Eigen::VectorXd& X, double t0,
                      const LagrangianRun& run,
                      const std::function<void(const LagrangianSample&)>& out) = nullptr;
};

// the registered integrator named `name`, null when there is none
const Integrator* find_integrator_type(const std::string& name);
// the integrator that steps unilateral rows, the default of a scene that has them
const Integrator& unilateral_integrator();
// the stepper of a model without state (nothing for an error control to measure): rk4's
// step is exact there
const Integrator& stateless_integrator();

}  // namespace appell
