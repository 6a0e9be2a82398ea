// The commands of the `appell` program.  Each returns the process exit status:
// 0 success, 2 bad input (scene or usage), 3 a numerical failure.
#pragma once

#include <optional>
#include <string>

#include "appell/scene.hpp"

namespace appell::cli {

// how `check` and `eval` print: Auto is a table on a terminal, else the machine format
// (eval: JSON; check: its plain lines); --json and --table choose (cli/table.hpp)
enum class Output { Auto, Json, Table };
bool wants_table(Output o);  // Table, or Auto with stdout a terminal

struct EvalOptions {
  std::string scene;
  std::string formulation;  // empty: the scene's choice
  Output output = Output::Auto;
};

struct SimulateOptions {
  std::string scene;
  std::string formulation;  // empty: the scene's choice
  std::string integrator;   // empty: the scene's choice
  std::optional<double> dt, duration;
  std::string out, summary, forces;  // empty: not written (summary: stdout)
  std::string report;                // HTML report (cli/report.hpp); empty: none
  bool quiet = false;
};

struct InverseOptions {
  std::string scene;
  std::string q, qd, qdd;  // comma-separated; empty: the scene's state (qdd: zero)
  std::string actuated;    // comma-separated tree joint names; empty: all
  double t = 0.0;
};

int run_check(const std::string& scene, Output output = Output::Auto);
int run_inverse(const InverseOptions& options);
int run_eval(const EvalOptions& options);
int run_simulate(const SimulateOptions& options);

// Loads a scene, or prints "error: <file>: <pointer>: <message>" and returns false.
bool load_or_report(const std::string& scene, Scene& out);
// Parses --formulation (empty: Auto, i.e. the scene's choice); prints a usage error and
// returns false.  Called before the scene is loaded: usage errors come first.
bool formulation_or_report(const std::string& name, Formulation& out);

}  // namespace appell::cli
