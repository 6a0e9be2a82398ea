// The commands of the `appell` program.  Each returns the process exit status:
// 0 success, 2 bad input (scene or usage), 3 a numerical failure.
#pragma once

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "appell/joint_columns.hpp"
#include "appell/scene.hpp"

namespace appell::cli {

// how `check` and `eval` print: Auto is a table on a terminal, else the machine format
// (eval: JSON; check: its plain lines); --json and --table choose (cli/table.hpp)
enum class Output { Auto, Json, Table };
bool wants_table(Output o);  // Table, or Auto with stdout a terminal

struct EvalOptions {
  std::string scene;
  std::string formulation;  // empty: the scene's choice
  std::string joint_frame;  // parent | child (appell/joint_columns.hpp); empty: parent
  Output output = Output::Auto;
};

struct SimulateOptions {
  std::string scene;
  std::string formulation;  // empty: the scene's choice
  std::string integrator;   // empty: the scene's choice
  std::optional<double> dt, duration;
  std::string out, summary, forces;  // empty: not written (summary: stdout)
  std::string contacts;              // contacts.csv (cli/contact_outputs.hpp); empty: none
  std::string report;                // HTML report (cli/report.hpp); empty: none
  std::string joint_frame;           // parent | child; empty: parent
  bool quiet = false;
};

struct InverseOptions {
  std::string scene;
  // comma lists (cli/inverse.cpp): positional or name=value items; not given: the scene's
  // state (qdd: zero)
  std::optional<std::string> q, qd, qdd;
  std::optional<std::string> actuated;  // tree joint names; not given: all
  std::optional<std::string> t;         // a number; not given: 0
  std::string joint_frame;              // parent | child; empty: parent
};

int run_check(const std::string& scene, Output output = Output::Auto);
int run_inverse(const InverseOptions& options);
int run_eval(const EvalOptions& options);
int run_simulate(const SimulateOptions& options);

// A scene with a top-level "lagrangian" (cli/lagrangian.cpp, docs/lagrangian.md): check,
// eval and simulate dispatch to these.
bool is_lagrangian_scene(const std::string& path);
int run_lagrangian_check(const std::string& scene, Output output);
int run_lagrangian_eval(const EvalOptions& options);
int run_lagrangian_simulate(const SimulateOptions& options);
// A scene of bodies with a top-level "quasi_velocities" (cli/rigid_nu.cpp): the same four
// in the user's quasi-velocities.
bool is_rigid_nu_scene(const std::string& path);
int run_rigid_nu_check(const std::string& scene, Output output);
int run_rigid_nu_eval(const EvalOptions& options);
int run_rigid_nu_simulate(const SimulateOptions& options);

// Loads a scene, or prints "error: <file>: <pointer>: <message>" and returns false.
bool load_or_report(const std::string& scene, Scene& out);
// The same for any loader: out = load(path), or the error printed and false
template <class Out, class Load>
bool loaded_or_reported(const std::string& path, Out& out, Load load) {
  try {
    out = load(path);
    return true;
  } catch (const SceneError& e) {
    std::cerr << "error: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << path << ": " << e.what() << "\n";
  }
  return false;
}
// Parses --formulation (empty: Auto, i.e. the scene's choice); prints a usage error and
// returns false.  Called before the scene is loaded: usage errors come first.
bool formulation_or_report(const std::string& name, Formulation& out);

// Whether --formulation allows a system that only Gibbs–Appell evaluates (a Lagrangian
// system, a scene in its quasi-velocities): empty, auto or gibbs-appell.
bool gibbs_appell_allowed(const std::string& formulation);

// --joint-frame (empty: parent); prints a usage error and returns false.
bool joint_frame_or_report(const std::string& name, JointFrame& out);

// The start eval and simulate share: --formulation and --joint-frame parsed (usage errors
// first), then the scene loaded; prints the first error and returns false.
bool options_and_scene_or_report(const std::string& formulation, const std::string& joint_frame,
                                 const std::string& path, Formulation& f, JointFrame& frame,
                                 Scene& scene);

// The comma lists of the command line (--q, --actuated, ...), strictly: items are trimmed
// of spaces; an empty item (",," or a trailing comma) is an error naming its position.
struct ListItem {
  std::string text;
  int position;  // 1-based
};
bool list_or_report(const std::string& option, const std::string& text, std::vector<ListItem>& out);
// A finite decimal number ("2", "-0.5", "1e-3"; not "nan", "inf", "0x10", "1e999", "").
bool parse_number(const std::string& text, double& out);
// parse_number, else prints "error: <option>: [<where>: ]expected a finite number (got <text>)"
bool number_or_report(const std::string& option, const std::string& where, const std::string& text,
                      double& out);

// Flushes standard output: `status` when everything printed was written, else an error
// line naming the reason and 2 (`appell eval > /dev/full` must not succeed).
int finish_stdout(int status);

}  // namespace appell::cli
