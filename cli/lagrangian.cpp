// `appell check`, `eval` and `simulate` on a scene that declares a Lagrangian system
// (docs/lagrangian.md): the equations in the user's quasi-velocities at t = 0, and runs
// of (q, ν).
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "appell/derivatives.hpp"
#include "appell/integrators.hpp"
#include "appell/lagrangian_run.hpp"
#include "appell/lagrangian_scene.hpp"
#include "appell/output_schema.hpp"
#include "appell/scene_document.hpp"
#include "cli/commands.hpp"
#include "cli/linearize.hpp"
#include "cli/nu_report.hpp"

namespace appell::cli {

using ojson = nlohmann::ordered_json;

bool is_lagrangian_scene(const std::string& path) {
  try {
    return is_lagrangian_text(read_scene_text(path));
  } catch (const std::exception&) {
    return false;  // the scene loader reports it
  }
}

namespace {

bool load(const std::string& path, LagrangianScene& out) {
  return loaded_or_reported(path, out,
                            [](const std::string& p) { return load_lagrangian_scene(p); });
}

std::vector<std::string> nu_names(const LagrangianSystem& s) {
  std::vector<std::string> out;
  for (const LagrangianRow& r : s.quasi_velocities) out.push_back(r.name);
  return out;
}

NuSystemView view_of(const LagrangianSystem& s) {
  NuSystemView v;
  v.kind = "lagrangian";
  v.coordinates = v.rates = s.coordinates;
  v.nu = nu_names(s);
  for (const LagrangianRow& r : s.quasi_velocities) v.nu_text.push_back(r.e.text());
  for (const LagrangianRow& r : s.constraints) v.rows.push_back(r.name);
  v.chosen = s.chosen_quasi_velocities;
  return v;
}

}  // namespace

int run_lagrangian_check(const std::string& scene, Output output) {
  LagrangianScene ls;
  if (!load(scene, ls)) return 2;
  const LagrangianSystem& s = ls.system;
  if (output == Output::Json) {
    ojson j;
    j["scene"] = s.name;
    j["coordinates"] = s.coordinates;
    j["constraint_rows"] = s.m();
    j["dof"] = s.dof();
    j["quasi_velocities"] = nu_names(s);
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "scene: " << s.name << "\n";
  std::cout << "lagrangian system: " << s.n() << " coordinates (";
  for (int i = 0; i < s.n(); ++i) std::cout << (i ? ", " : "") << s.coordinates[i];
  std::cout << ")\n";
  std::cout << "constraints: " << s.m() << " rows\n";
  for (const LagrangianRow& r : s.constraints)
    std::cout << "  " << r.name
              << (r.holonomic   ? "  position  "
                  : r.nonlinear ? "  velocity (nonlinear in the rates)  "
                                : "  velocity  ")
              << r.e.text() << "\n";
  std::cout << "quasi-velocities (" << (s.chosen_quasi_velocities ? "chosen" : "default") << "):\n";
  for (const LagrangianRow& r : s.quasi_velocities)
    std::cout << "  " << r.name << " = " << r.e.text() << "\n";
  std::cout << "degrees of freedom: " << s.dof() << "\nok\n";
  return 0;
}

int run_lagrangian_eval(const EvalOptions& o) {
  if (!gibbs_appell_allowed(o.formulation)) {
    std::cerr << "error: --formulation: a Lagrangian system is evaluated by gibbs-appell (in its "
                 "quasi-velocities), got '"
              << o.formulation << "'\n";
    return 2;
  }
  LagrangianScene ls;
  if (!load(o.scene, ls)) return 2;
  const LagrangianSystem& s = ls.system;
  LagrangianData d(s);
  if (evaluate_lagrangian(s, ls.initial, d) != LagrangianStatus::Ok) {
    std::cerr << "error: " << o.scene << ": at t = 0: " << d.message << "\n";
    return 3;
  }
  NuSystemView v = view_of(s);
  v.lagrangian = d.L;
  v.energy = d.energy;
  return print_nu_eval(v, o.scene, ls.initial.t, ls.initial.q, ls.initial.qd, d, o.output);
}

int run_lagrangian_simulate(const SimulateOptions& o) {
  // the scene's own errors first (as for scenes of bodies), then the options it refuses
  LagrangianScene ls;
  if (!load(o.scene, ls)) return 2;
  if (refused_nu_options(o) != 0) return 2;
  LagrangianRun run = ls.run;
  if (checked_nu_run(o, run) != 0) return 2;
  const LagrangianSystem& s = ls.system;
  return write_nu_run(view_of(s), o, run, [&](const LagrangianRun& r, const auto& sample) {
    return integrate_lagrangian(s, ls.initial, r, sample);
  });
}

int run_lagrangian_linearize(const LinearizeOptions& o, double at) {
  if (o.inputs) {
    std::cerr << "error: --inputs: a Lagrangian system has no input joints; its generalized "
                 "forces are expressions of the scene (usage: appell linearize --help)\n";
    return 2;
  }
  LagrangianScene ls;
  if (!load(o.scene, ls)) return 2;
  const LagrangianSystem& s = ls.system;
  LagrangianState x = ls.initial;
  x.t = at;
  Eigen::MatrixXd A;
  std::string message;
  if (linearize_lagrangian(s, x, A, message) != LagrangianStatus::Ok || !A.allFinite()) {
    std::cerr << "error: " << o.scene << ": at t = " << at << ": "
              << (message.empty() ? "the linear model is not finite" : message) << "\n";
    return 3;
  }
  return print_nu_linear(view_of(s), o, at, A);
}

}  // namespace appell::cli
