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

#include "appell/lagrangian_run.hpp"
#include "appell/lagrangian_scene.hpp"
#include "appell/scene_document.hpp"
#include "cli/commands.hpp"
#include "cli/linearize.hpp"

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
  try {
    out = load_lagrangian_scene(path);
    return true;
  } catch (const SceneError& e) {
    std::cerr << "error: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << path << ": " << e.what() << "\n";
  }
  return false;
}

ojson by_name(const std::vector<std::string>& names, const Eigen::VectorXd& v) {
  ojson o = ojson::object();
  for (size_t i = 0; i < names.size(); ++i) o[names[i]] = v(static_cast<Eigen::Index>(i));
  return o;
}
ojson array(const Eigen::VectorXd& v) {
  ojson a = ojson::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) a.push_back(v(i));
  return a;
}
ojson matrix(const Eigen::MatrixXd& m) {
  ojson a = ojson::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) a.push_back(array(m.row(i).transpose()));
  return a;
}
bool finite(const ojson& j) {
  if (j.is_number()) return std::isfinite(j.get<double>());
  if (!j.is_structured()) return true;
  for (const auto& e : j)
    if (!finite(e)) return false;
  return true;
}

std::vector<std::string> nu_names(const LagrangianSystem& s) {
  std::vector<std::string> out;
  for (const LagrangianRow& r : s.quasi_velocities) out.push_back(r.name);
  return out;
}

// the equations as text: H ν̇ = F_ν row by row, and the map q̇ = Y ν + y
void print_table(std::ostream& os, const LagrangianSystem& s, const LagrangianState& x,
                 const LagrangianData& d) {
  const auto nu = nu_names(s);
  os << "Lagrangian system: " << s.n() << " coordinates, " << s.m()
     << (s.m() == 1 ? " constraint row, " : " constraint rows, ") << s.dof()
     << " quasi-velocities (" << (s.chosen_quasi_velocities ? "chosen" : "default") << ")\n";
  os << std::setprecision(10);
  for (int a = 0; a < s.dof(); ++a)
    os << "  " << nu[a] << " = " << s.quasi_velocities[a].e.text() << " = " << d.nu(a) << ",  d/dt "
       << nu[a] << " = " << d.nudot(a) << "\n";
  os << "Gibbs-Appell in nu:  H nu_dot = F_nu\n";
  for (int a = 0; a < s.dof(); ++a) {
    os << "  ";
    for (int b = 0; b < s.dof(); ++b) os << std::setw(18) << d.H(a, b);
    os << "   | " << std::setw(18) << d.F_nu(a) << "\n";
  }
  os << "accelerations:\n";
  for (int i = 0; i < s.n(); ++i)
    os << "  " << s.coordinates[i] << ": q = " << x.q(i) << ", rate = " << x.qd(i)
       << ", acceleration = " << d.qdd(i) << ", constraint force = " << d.Qc(i) << "\n";
  for (int i = 0; i < s.m(); ++i)
    os << "  constraint " << s.constraints[i].name << ": multiplier " << d.lambda(i) << "\n";
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
    std::cout << "  " << r.name << (r.holonomic ? "  position  " : "  velocity  ") << r.e.text()
              << "\n";
  std::cout << "quasi-velocities (" << (s.chosen_quasi_velocities ? "chosen" : "default") << "):\n";
  for (const LagrangianRow& r : s.quasi_velocities)
    std::cout << "  " << r.name << " = " << r.e.text() << "\n";
  std::cout << "degrees of freedom: " << s.dof() << "\nok\n";
  return 0;
}

int run_lagrangian_eval(const EvalOptions& o) {
  if (!o.formulation.empty() && o.formulation != "auto" && o.formulation != "gibbs-appell") {
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
  const auto nu = nu_names(s);
  ojson out;
  out["formulation"] = "gibbs-appell";
  out["system"] = "lagrangian";
  out["time"] = ls.initial.t;
  out["coordinates"] = s.n();
  out["constraint_rows"] = s.m();
  out["dof"] = s.dof();
  out["q"] = by_name(s.coordinates, ls.initial.q);
  out["qd"] = by_name(s.coordinates, ls.initial.qd);
  out["qdd"] = by_name(s.coordinates, d.qdd);
  ojson qv = ojson::object();
  for (int a = 0; a < s.dof(); ++a)
    qv[nu[a]] = ojson{
        {"expression", s.quasi_velocities[a].e.text()}, {"value", d.nu(a)}, {"rate", d.nudot(a)}};
  out["quasi_velocities"] = qv;
  out["nu"] = array(d.nu);
  out["nudot"] = array(d.nudot);
  out["hessian"] = matrix(d.H);
  out["F_nu"] = array(d.F_nu);
  // L96's F_a = B_a^i F_i: the applied forces alone (F_nu adds the velocity terms)
  out["Q_nu"] = array(d.Y.transpose() * d.Q);
  out["Y"] = matrix(d.Y);
  out["y"] = array(d.y);
  out["mass_matrix"] = matrix(d.M);
  out["f"] = array(d.f);
  out["lagrangian"] = d.L;
  out["energy"] = d.energy;
  ojson cons = ojson::object();
  for (int i = 0; i < s.m(); ++i) {
    Eigen::VectorXd fi = d.A.row(i).transpose() * d.lambda(i);
    cons[s.constraints[i].name] =
        ojson{{"multipliers", ojson::array({d.lambda(i)})}, {"forces", by_name(s.coordinates, fi)}};
  }
  out["constraints"] = cons;
  out["constraint_forces"] = by_name(s.coordinates, d.Qc);
  out["gauss_difference"] = (d.qdd - d.qdd_gauss).cwiseAbs().maxCoeff();
  if (!finite(out)) {
    std::cerr << "error: " << o.scene << ": at t = 0: the accelerations are not finite\n";
    return 3;
  }
  if (wants_table(o.output))
    print_table(std::cout, s, ls.initial, d);
  else
    std::cout << out.dump(2) << "\n";
  return 0;
}

int run_lagrangian_simulate(const SimulateOptions& o) {
  auto usage = [](const std::string& what) {
    std::cerr << "error: " << what << " (usage: appell simulate --help)\n";
    return 2;
  };
  if (!o.formulation.empty() && o.formulation != "auto" && o.formulation != "gibbs-appell")
    return usage("--formulation: a Lagrangian system runs in gibbs-appell, got '" + o.formulation +
                 "'");
  if (!o.forces.empty() || !o.contacts.empty() || !o.report.empty())
    return usage("--forces, --contacts and --report are not available for a Lagrangian system");
  if (!o.integrator.empty() && o.integrator != "rk4" && o.integrator != "dopri5")
    return usage("--integrator: a Lagrangian system integrates with rk4 or dopri5, got '" +
                 o.integrator + "'");
  LagrangianScene ls;
  if (!load(o.scene, ls)) return 2;
  LagrangianRun run = ls.run;
  if (!o.integrator.empty()) run.method = o.integrator;
  if (o.dt) {
    if (!(*o.dt > 0) || !std::isfinite(*o.dt)) return usage("--dt: must be a finite number > 0");
    run.dt = *o.dt;
  }
  if (o.duration) {
    if (!(*o.duration >= 0) || !std::isfinite(*o.duration))
      return usage("--duration: must be a finite number >= 0");
    run.duration = *o.duration;
  }
  const double steps = run.duration / run.dt;
  if (steps > SceneLimits::kMaxSteps || steps / run.every > SceneLimits::kMaxOutputRows)
    return usage("--dt, --duration: the limits are 1e9 steps and 1e7 output rows");
  const LagrangianSystem& s = ls.system;
  std::ofstream traj;
  if (!o.out.empty()) {
    traj.open(o.out);
    if (!traj) {
      std::cerr << "error: --out: cannot write " << o.out << "\n";
      return 2;
    }
    traj << "t";
    for (const std::string& c : s.coordinates) traj << ",q." << c;
    for (const std::string& c : s.coordinates) traj << ",qd." << c;
    for (const LagrangianRow& r : s.quasi_velocities) traj << ",nu." << r.name;
    traj << ",energy,violation_position,violation_velocity\n";
    traj << std::setprecision(17);
  }
  LagrangianSample first, last;
  double drift = 0.0, pos = 0.0, vel = 0.0;
  long rows = 0;
  const auto start = std::chrono::steady_clock::now();
  const LagrangianRunResult res =
      integrate_lagrangian(s, ls.initial, run, [&](const LagrangianSample& x) {
        if (rows++ == 0) first = x;
        last = x;
        drift = std::max(drift, std::abs(x.energy - first.energy));
        pos = std::max(pos, x.violation_position);
        vel = std::max(vel, x.violation_velocity);
        if (!traj.is_open()) return;
        traj << x.t;
        for (int i = 0; i < x.q.size(); ++i) traj << "," << x.q(i);
        for (int i = 0; i < x.qd.size(); ++i) traj << "," << x.qd(i);
        for (int i = 0; i < x.nu.size(); ++i) traj << "," << x.nu(i);
        traj << "," << x.energy << "," << x.violation_position << "," << x.violation_velocity
             << "\n";
      });
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (traj.is_open()) {
    traj.close();
    if (!traj) {
      std::cerr << "error: --out: cannot write " << o.out << "\n";
      return 2;
    }
  }
  ojson sum;
  sum["formulation"] = "gibbs-appell";
  sum["system"] = "lagrangian";
  sum["status"] = res.ok ? "ok" : "failed";
  if (!res.ok) sum["failure"] = ojson{{"t", res.failed_at}, {"message", res.message}};
  sum["integrator"] = run.method;
  sum["duration"] = res.ok ? run.duration : res.failed_at;
  sum["steps"] = res.steps;
  sum["rhs_evaluations"] = res.rhs_evaluations;
  sum["wall_seconds"] = wall;
  if (rows > 0) {
    const double e0 = first.energy;
    sum["energy"] = ojson{{"initial", e0},
                          {"final", last.energy},
                          {"max_abs_drift", drift},
                          {"max_rel_drift", e0 != 0 ? drift / std::abs(e0) : drift}};
    sum["constraint_violation"] = ojson{{"position_max", pos}, {"velocity_max", vel}};
    ojson fs = ojson::object();
    for (int i = 0; i < s.n(); ++i)
      fs[s.coordinates[i]] = ojson{{"q", last.q(i)}, {"rate", last.qd(i)}};
    ojson nus = ojson::object();
    for (int a = 0; a < s.dof(); ++a) nus[s.quasi_velocities[a].name] = last.nu(a);
    sum["final_state"] = ojson{{"t", last.t}, {"coordinates", fs}, {"quasi_velocities", nus}};
  }
  if (!o.summary.empty()) {
    std::ofstream f(o.summary);
    f << sum.dump(2) << "\n";
    if (!f) {
      std::cerr << "error: --summary: cannot write " << o.summary << "\n";
      return 2;
    }
  } else if (!o.quiet) {
    std::cout << sum.dump(2) << "\n";
  }
  if (!res.ok) {
    std::cerr << "error: " << o.scene << ": at t = " << res.failed_at << ": " << res.message
              << " (the rows before it are written)\n";
    return 3;
  }
  return 0;
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
  std::vector<std::string> states;
  for (const std::string& c : s.coordinates) states.push_back("q." + c);
  for (const LagrangianRow& r : s.quasi_velocities) states.push_back("nu." + r.name);
  Eigen::EigenSolver<Eigen::MatrixXd> es(A, false);
  std::vector<std::complex<double>> lam;
  for (Eigen::Index i = 0; i < es.eigenvalues().size(); ++i) lam.push_back(es.eigenvalues()(i));
  std::sort(lam.begin(), lam.end(), [](const auto& a, const auto& b) {
    return a.real() != b.real() ? a.real() > b.real() : a.imag() > b.imag();
  });
  ojson out;
  out["scene"] = o.scene;
  out["time"] = at;
  out["system"] = "lagrangian";
  out["derivatives"] =
      "central differences extrapolated twice (Richardson) of exact evaluations in (q, nu)";
  out["states"] = states;
  out["inputs"] = ojson::array();
  out["A"] = matrix(A);
  out["B"] = ojson::array();
  ojson eig = ojson::array();
  for (const std::complex<double>& l : lam) {
    const double wn = std::abs(l);
    eig.push_back(ojson{{"re", l.real() + 0.0},
                        {"im", l.imag() + 0.0},
                        {"natural_frequency", wn},
                        {"frequency_hz", std::abs(l.imag()) / (2 * M_PI)},
                        {"damping_ratio", wn > 0 ? -l.real() / wn + 0.0 : 0.0},
                        {"stable", l.real() < 0}});
  }
  out["eigenvalues"] = eig;
  if (o.format == "json") {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << "linear model of " << o.scene << " at t = " << at << " in (q, nu)\n";
  std::cout << std::setprecision(8);
  for (Eigen::Index i = 0; i < A.rows(); ++i) {
    std::cout << "  " << std::setw(12) << std::left << states[i] << std::right;
    for (Eigen::Index j = 0; j < A.cols(); ++j) std::cout << std::setw(16) << A(i, j);
    std::cout << "\n";
  }
  std::cout << "eigenvalues:\n";
  for (const std::complex<double>& l : lam)
    std::cout << "  " << l.real() + 0.0 << (l.imag() < 0 ? " - " : " + ") << std::abs(l.imag())
              << "i\n";
  return 0;
}

}  // namespace appell::cli
