// The integrators a run can use ("integrator": {"method": ...}, `--integrator`, Python's
// `integrator=` and `method=`), each a type of its own registered once
// (engine/run/integrators/registry.cpp).  The scene readers, the CLI, the Python module and
// Simulation read this table: a method's name, what it steps, and the list of valid names
// an error shows.
//
// Adding an integrator: one file in engine/run/integrators/ (its stepper: one accepted step
// of a Simulation, and optionally one run of a system in its quasi-velocities) and its line
// in engine/run/integrators/registry.cpp.
#pragma once

#include <string>
#include <vector>

namespace appell {

struct IntegratorInfo {
  const char* name;
  const char* summary;  // one line, for help texts
  // the step is controlled by an error estimate; dt is the output spacing, else the step
  bool adaptive = false;
  // it steps unilateral rows (contact shapes, joint limits, joint friction): the one a
  // scene with them runs by default, and their outputs (contacts.csv, limit forces) exist
  bool unilateral = false;
  // it also integrates a system in its quasi-velocities (a Lagrangian system, a scene with
  // "quasi_velocities": appell/lagrangian_run.hpp)
  bool quasi_velocities = false;
  // in such a system, q is projected back onto the holonomic rows after each step (a
  // dense-output run is not: its tolerances hold the drift)
  bool projects = false;
};

// every integrator, in the order errors list them
const std::vector<IntegratorInfo>& integrators();
// the one named `name`, null when there is none
const IntegratorInfo* find_integrator(const std::string& name);
// "rk4, dopri5, rkf78, rosenbrock or moreau": the valid names for an error message; with
// `quasi_velocities`, those that integrate a system in its quasi-velocities
std::string integrator_names(bool quasi_velocities = false);

}  // namespace appell
