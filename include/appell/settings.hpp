// Run settings: how to solve and integrate, not what the system is.  A scene's "solver",
// "integrator" and "output" sections; SimulationOptions (appell/simulation.hpp) are made
// from them.  They are not part of the Model, so one Model runs under many settings.
#pragma once

#include <string>

namespace appell {

enum class Formulation { Auto, Recursive, GibbsAppell, Pinv, Sparse };
const char* formulation_name(Formulation f);
// false when `name` is not one of auto, recursive, gibbs-appell, pinv, sparse
bool parse_formulation(const std::string& name, Formulation& out);
// "auto, recursive, gibbs-appell, pinv or sparse", for messages
std::string formulation_names();

// Constraint stabilization.  Baumgarte replaces the acceleration rows by
//   dπ/dt + 2α π + β² g = 0      (g = 0 for nonholonomic rows),
// i.e. b ← b − 2α π − β² g.  Projection is done by the integrator after each step.
struct Stabilization {
  enum class Type { None, Baumgarte, Projection };
  Type type = Type::None;
  double alpha = 0.0;
  double beta = 0.0;
};

struct SolverOptions {
  Formulation formulation = Formulation::Auto;
  Stabilization stabilization;
};

struct IntegratorOptions {
  // rk4 | dopri5 | rkf78 for smooth motion; moreau (velocity-level time stepping) for
  // unilateral rows: contact shapes, enforced joint limits (docs/contact.md).  A model with
  // unilateral rows steps with moreau unless a method was given (method_given).
  std::string method = "rk4";
  bool method_given = false;
  double duration = 1.0;
  double dt = 1e-3;
  double rtol = 1e-9;
  double atol = 1e-12;
};

// Unilateral rows and their solver (docs/contact.md)
struct ContactSettings {
  bool joint_limits = true;    // enforce the joints' limits (URDF <limit>, scene "limit")
  bool joint_friction = true;  // the joints' Coulomb friction (URDF <dynamics friction>)
  double tolerance = 1e-10;    // on the contact problem's natural residual (m/s, rad/s)
  int max_iterations = 5000;   // of the contact solver per step
  // a step whose residual stays above the tolerance: the run goes on to its end and then
  // fails (Fail: SimulationStatus::Unconverged, the CLI exits 3) or only counts it (Warn:
  // SimulationResult::contact_unconverged, the CLI warns on stderr)
  enum class OnUnconverged { Fail, Warn };
  OnUnconverged on_unconverged = OnUnconverged::Fail;
};

struct OutputOptions {
  int every = 1;
};

// Everything a scene says about running it.
struct Settings {
  SolverOptions solver;
  IntegratorOptions integrator;
  ContactSettings contact;
  OutputOptions output;
};

}  // namespace appell
