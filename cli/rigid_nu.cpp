// `appell check`, `eval`, `simulate` and `linearize` on a scene of bodies with
// "quasi_velocities" (docs/lagrangian.md, "Rigid-body scenes in your quasi-velocities"):
// the scene reduced to the Lagrangian machinery's system in the user's ν
// (appell/rigid_quasi_velocities.hpp), reported as a Lagrangian system is (cli/nu_report.hpp).
#include <iostream>
#include <nlohmann/json.hpp>

#include "appell/rigid_quasi_velocities.hpp"
#include "appell/scene_document.hpp"
#include "cli/commands.hpp"
#include "cli/linearize.hpp"
#include "cli/nu_report.hpp"

namespace appell::cli {

bool is_rigid_nu_scene(const std::string& path) {
  try {
    return is_rigid_nu_text(read_scene_text(path));
  } catch (const std::exception&) {
    return false;  // the scene loader reports it
  }
}

namespace {

bool load(const std::string& path, RigidNuScene& out) {
  return loaded_or_reported(path, out, [](const std::string& p) { return load_rigid_nu_scene(p); });
}

NuSystemView view_of(const RigidNuSystem& s) {
  NuSystemView v;
  v.kind = "rigid";
  v.coordinates = s.q_names;
  v.rates = s.u_names;
  for (const SceneQuasiVelocity& q : s.quasi_velocities) {
    v.nu.push_back(q.name);
    v.nu_text.push_back(q.expression.text());
  }
  v.rows = s.row_names;
  return v;
}

}  // namespace

int run_rigid_nu_check(const std::string& scene, Output output) {
  RigidNuScene rs;
  if (!load(scene, rs)) return 2;
  const RigidNuSystem& s = rs.system;
  const NuSystemView v = view_of(s);
  if (output == Output::Json) {
    nlohmann::ordered_json j;
    j["scene"] = s.model.name();
    j["joint_velocities"] = v.rates;
    j["constraint_rows"] = v.rows;
    j["dof"] = s.dof();
    j["quasi_velocities"] = v.nu;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "scene: " << s.model.name() << "\n";
  std::cout << "bodies: " << s.model.nbody() << ", joint velocities: " << s.n()
            << ", independent constraint rows: " << s.m() << "\n";
  std::cout << "quasi-velocities (chosen):\n";
  for (size_t a = 0; a < v.nu.size(); ++a)
    std::cout << "  " << v.nu[a] << " = " << v.nu_text[a] << "\n";
  std::cout << "degrees of freedom: " << s.dof() << "\nok\n";
  return 0;
}

int run_rigid_nu_eval(const EvalOptions& o) {
  if (!gibbs_appell_allowed(o.formulation)) {
    std::cerr << "error: --formulation: a scene in its quasi-velocities is evaluated by "
                 "gibbs-appell, got '"
              << o.formulation << "'\n";
    return 2;
  }
  RigidNuScene rs;
  if (!load(o.scene, rs)) return 2;
  const RigidNuSystem& s = rs.system;
  RigidNuData d(s);
  if (evaluate_rigid_nu(s, rs.initial, d) != LagrangianStatus::Ok) {
    std::cerr << "error: " << o.scene << ": at t = 0: " << d.r.message << "\n";
    return 3;
  }
  NuSystemView v = view_of(s);
  v.energy = d.energy;
  return print_nu_eval(v, o.scene, rs.initial.t, rs.initial.q, rs.initial.u, d.r, o.output);
}

int run_rigid_nu_simulate(const SimulateOptions& o) {
  RigidNuScene rs;
  if (!load(o.scene, rs)) return 2;
  if (refused_nu_options(o) != 0) return 2;
  LagrangianRun run = rs.run;
  if (checked_nu_run(o, run) != 0) return 2;
  const RigidNuSystem& s = rs.system;
  return write_nu_run(view_of(s), o, run, [&](const LagrangianRun& r, const auto& sample) {
    return integrate_rigid_nu(s, rs.initial, r, sample);
  });
}

int run_rigid_nu_linearize(const LinearizeOptions& o, double at) {
  if (o.inputs) {
    std::cerr << "error: --inputs: a scene in its quasi-velocities is linearized without inputs "
                 "(usage: appell linearize --help)\n";
    return 2;
  }
  RigidNuScene rs;
  if (!load(o.scene, rs)) return 2;
  State x = rs.initial;
  x.t = at;
  Eigen::MatrixXd A;
  std::string message;
  if (linearize_rigid_nu(rs.system, x, A, message) != LagrangianStatus::Ok || !A.allFinite()) {
    std::cerr << "error: " << o.scene << ": at t = " << at << ": "
              << (message.empty() ? "the linear model is not finite" : message) << "\n";
    return 3;
  }
  return print_nu_linear(view_of(rs.system), o, at, A);
}

}  // namespace appell::cli
