// What `appell linearize` prints (cli/linearize_output.cpp): the linear model, its states'
// and inputs' names, and its eigenvalues with their modes, as JSON or as a table.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "appell/derivatives.hpp"
#include "appell/model.hpp"
#include "appell/simulation.hpp"
#include "cli/linearize.hpp"

namespace appell::cli {

using ojson = nlohmann::ordered_json;

// x as %g with `digits` significant digits, never −0
std::string number_text(double x, int digits = 6);

// the state x = (δq_I, u_V): every coordinate on a tree, the independent ones with rows
struct StateNames {
  std::vector<std::string> states, coordinates, velocities;
};
StateNames state_names(const LinearModel& lm, const std::vector<std::string>& names);

// each eigenvalue λ, ascending by real part then imaginary part, with its natural frequency
// |λ|, damped frequency |Im λ|/2π, damping ratio −Re λ / |λ| and mode (the coordinates it
// moves most)
ojson eigen_json(const LinearModel& lm, const LinearModes& es, const StateNames& sn);

// what `linearize` computed, for the json document and the table
struct Linearization {
  std::string method;                    // exact | numerical
  std::vector<std::string> coordinates;  // every quasi-velocity's name
  StateNames names;
  std::vector<std::string> input_names;
  ojson held_json;  // the joints held by their limits: joint, side, force
  double velocity_correction = 0.0;
  ojson eigenvalues;  // eigen_json()
};

ojson linear_model_json(const LinearizeOptions& o, const Model& m, const SimulationOptions& so,
                        const State& s, const LinearModel& lm, const Linearization& r);
void print_linear_model(std::ostream& os, const LinearizeOptions& o, const Model& m, const State& s,
                        const LinearModel& lm, const Linearization& r);

}  // namespace appell::cli
