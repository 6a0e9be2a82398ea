// `appell linearize`: the linear model ẋ = A x + B w of a scene about its state
// (docs/derivatives.md): x = (δq in tangent coordinates, u), w the generalized forces of
// the input joints; eigenvalues and modes.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace appell::cli {

struct LinearizeOptions {
  std::string scene;
  std::optional<std::string> at;      // time, s (a number); not given: the scene's start
  std::optional<std::string> inputs;  // tree joint names; not given: every tree joint
  std::string format = "json";        // json | table
};

// Registers the subcommand on `app`, filling `o` when it is parsed.
CLI::App* add_linearize_command(CLI::App& app, LinearizeOptions& o);
int run_linearize(const LinearizeOptions& o);
// the same for a scene that declares a Lagrangian system (cli/lagrangian.cpp), at time `at`
int run_lagrangian_linearize(const LinearizeOptions& o, double at);
// the same for a scene of bodies with "quasi_velocities" (cli/rigid_nu.cpp)
int run_rigid_nu_linearize(const LinearizeOptions& o, double at);

}  // namespace appell::cli
