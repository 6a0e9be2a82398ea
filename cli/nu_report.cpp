// What `appell eval`, `simulate` and `linearize` print of a system in its quasi-velocities
// (cli/nu_report.hpp): a Lagrangian system (cli/lagrangian.cpp) or a scene of bodies with
// "quasi_velocities" (cli/rigid_nu.cpp).
#include "cli/nu_report.hpp"

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
#include "appell/output_schema.hpp"
#include "appell/scene_document.hpp"

namespace appell::cli {

using ojson = nlohmann::ordered_json;

namespace {

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

// the equations as text: H ν̇ = F_ν row by row, and the accelerations
void print_table(std::ostream& os, const NuSystemView& v, const Eigen::VectorXd& q,
                 const Eigen::VectorXd& rates, const LagrangianData& d) {
  const int n = static_cast<int>(v.rates.size()), m = static_cast<int>(v.rows.size()),
            k = static_cast<int>(v.nu.size());
  os << (v.kind == "rigid" ? "Scene of bodies: " : "Lagrangian system: ") << n
     << (v.kind == "rigid" ? " joint velocities, " : " coordinates, ") << m
     << (m == 1 ? " constraint row, " : " constraint rows, ") << k << " quasi-velocities ("
     << (v.chosen ? "chosen" : "default") << ")\n";
  os << std::setprecision(10);
  for (int a = 0; a < k; ++a)
    os << "  " << v.nu[a] << " = " << v.nu_text[a] << " = " << d.nu(a) << ",  d/dt " << v.nu[a]
       << " = " << d.nudot(a) << "\n";
  os << "Gibbs-Appell in nu:  H nu_dot = F_nu\n";
  for (int a = 0; a < k; ++a) {
    os << "  ";
    for (int b = 0; b < k; ++b) os << std::setw(18) << d.H(a, b);
    os << "   | " << std::setw(18) << d.F_nu(a) << "\n";
  }
  os << "accelerations:\n";
  const bool with_q = v.coordinates.size() == v.rates.size();
  for (int i = 0; i < n; ++i) {
    os << "  " << v.rates[i] << ": ";
    if (with_q) os << "q = " << q(i) << ", ";
    os << "rate = " << rates(i) << ", acceleration = " << d.qdd(i)
       << ", constraint force = " << d.Qc(i) << "\n";
  }
  for (int i = 0; i < m; ++i)
    os << "  constraint " << v.rows[i] << ": multiplier " << d.lambda(i) << "\n";
}

}  // namespace

int print_nu_eval(const NuSystemView& v, const std::string& scene, double t,
                  const Eigen::VectorXd& q, const Eigen::VectorXd& rates, const LagrangianData& d,
                  Output output) {
  const int m = static_cast<int>(v.rows.size()), k = static_cast<int>(v.nu.size());
  ojson out;
  out["formulation"] = formulation_name(Formulation::GibbsAppell);
  out["system"] = v.kind;
  out["time"] = t;
  out["coordinates"] = v.rates.size();
  out["constraint_rows"] = m;
  out["dof"] = k;
  out["q"] = by_name(v.coordinates, q);
  out["qd"] = by_name(v.rates, rates);
  out["qdd"] = by_name(v.rates, d.qdd);
  ojson qv = ojson::object();
  for (int a = 0; a < k; ++a)
    qv[v.nu[a]] = ojson{{"expression", v.nu_text[a]}, {"value", d.nu(a)}, {"rate", d.nudot(a)}};
  out["quasi_velocities"] = qv;
  out["nu"] = array(d.nu);
  out["nudot"] = array(d.nudot);
  out["hessian"] = matrix(d.H);
  out["F_nu"] = array(d.F_nu);
  // L96's F_a = B_a^i F_i: the applied forces alone (F_nu adds the velocity terms)
  if (v.kind == "lagrangian") out["Q_nu"] = array(d.Y.transpose() * d.Q);
  out["Y"] = matrix(d.Y);
  out["y"] = array(d.y);
  out["mass_matrix"] = matrix(d.M);
  out["f"] = array(d.f);
  if (v.kind == "lagrangian") out["lagrangian"] = v.lagrangian;
  out["energy"] = v.energy;
  ojson cons = ojson::object();
  for (int i = 0; i < m; ++i) {
    Eigen::VectorXd fi = d.A.row(i).transpose() * d.lambda(i);
    cons[v.rows[i]] =
        ojson{{"multipliers", ojson::array({d.lambda(i)})}, {"forces", by_name(v.rates, fi)}};
  }
  out["constraints"] = cons;
  out["constraint_forces"] = by_name(v.rates, d.Qc);
  out["gauss_difference"] = (d.qdd - d.qdd_gauss).cwiseAbs().maxCoeff();
  if (!finite(out)) {
    std::cerr << "error: " << scene << ": at t = " << t << ": the accelerations are not finite\n";
    return 3;
  }
  if (wants_table(output))
    print_table(std::cout, v, q, rates, d);
  else
    std::cout << out.dump(2) << "\n";
  return 0;
}

namespace {

int simulate_usage(const std::string& what) {
  std::cerr << "error: " << what << " (usage: appell simulate --help)\n";
  return 2;
}

}  // namespace

int refused_nu_options(const SimulateOptions& o) {
  const auto& usage = simulate_usage;
  if (!gibbs_appell_allowed(o.formulation))
    return usage("--formulation: a system in its quasi-velocities runs in gibbs-appell, got '" +
                 o.formulation + "'");
  if (!o.forces.empty() || !o.contacts.empty() || !o.report.empty())
    return usage(
        "--forces, --contacts and --report are not available for a system in its "
        "quasi-velocities");
  const IntegratorInfo* in = find_integrator(o.integrator);
  if (!o.integrator.empty() && (!in || !in->quasi_velocities))
    return usage("--integrator: a system in its quasi-velocities integrates with " +
                 integrator_names(true) + ", got '" + o.integrator + "'");
  return 0;
}

int checked_nu_run(const SimulateOptions& o, LagrangianRun& run) {
  const auto& usage = simulate_usage;
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
  return 0;
}

namespace {

// one row of traj.csv in the columns of `schema` (nu_traj_schema)
void write_nu_row(const OutputSchema& schema, const LagrangianSample& x, std::ostream& out) {
  const auto put = [&](const Eigen::VectorXd& v) {
    for (int i = 0; i < v.size(); ++i) out << "," << v(i);
  };
  for (const ColumnGroup& g : schema.groups()) switch (g.quantity) {
      case Quantity::Time:
        out << x.t;
        break;
      case Quantity::Coordinates:
        put(x.q);
        break;
      case Quantity::Rates:
        put(x.qd);
        break;
      case Quantity::QuasiVelocities:
        put(x.nu);
        break;
      case Quantity::Energy:
        out << "," << x.energy;
        break;
      case Quantity::ViolationPosition:
        out << "," << x.violation_position;
        break;
      case Quantity::ViolationVelocity:
        out << "," << x.violation_velocity;
        break;
      default:
        throw std::logic_error(
            "write_nu_row(): a column a run in quasi-velocities has no value for");
    }
  out << "\n";
}

}  // namespace

int write_nu_run(const NuSystemView& v, const SimulateOptions& o, const LagrangianRun& run,
                 const NuIntegrate& integrate) {
  const OutputSchema schema = nu_traj_schema(v.coordinates, v.rates, v.nu);
  std::ofstream traj;
  if (!o.out.empty()) {
    traj.open(o.out);
    if (!traj) {
      std::cerr << "error: --out: cannot write " << o.out << "\n";
      return 2;
    }
    traj << schema.header() << std::setprecision(17);
  }
  LagrangianSample first, last;
  double drift = 0.0, pos = 0.0, vel = 0.0;
  long rows = 0;
  const auto start = std::chrono::steady_clock::now();
  const LagrangianRunResult res = integrate(run, [&](const LagrangianSample& x) {
    if (rows++ == 0) first = x;
    last = x;
    drift = std::max(drift, std::abs(x.energy - first.energy));
    pos = std::max(pos, x.violation_position);
    vel = std::max(vel, x.violation_velocity);
    if (!traj.is_open()) return;
    write_nu_row(schema, x, traj);
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
  sum["formulation"] = formulation_name(Formulation::GibbsAppell);
  sum["system"] = v.kind;
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
    const bool with_rates = v.coordinates.size() == v.rates.size();
    for (size_t i = 0; i < v.coordinates.size(); ++i) {
      const auto j = static_cast<Eigen::Index>(i);
      fs[v.coordinates[i]] =
          with_rates ? ojson{{"q", last.q(j)}, {"rate", last.qd(j)}} : ojson{{"q", last.q(j)}};
    }
    ojson nus = ojson::object();
    for (size_t a = 0; a < v.nu.size(); ++a) nus[v.nu[a]] = last.nu(static_cast<Eigen::Index>(a));
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

int print_nu_linear(const NuSystemView& v, const LinearizeOptions& o, double at,
                    const Eigen::MatrixXd& A) {
  std::vector<std::string> states;
  for (const std::string& c : v.coordinates) states.push_back("q." + c);
  for (const std::string& r : v.nu) states.push_back("nu." + r);
  // the cyclic states set aside first, each an exact 0 (appell/derivatives.hpp modes())
  LinearModel lm;
  lm.A = A;
  const Eigen::VectorXcd values = modes(lm).values;
  std::vector<std::complex<double>> lam(values.data(), values.data() + values.size());
  std::sort(lam.begin(), lam.end(), [](const auto& a, const auto& b) {
    return a.real() != b.real() ? a.real() > b.real() : a.imag() > b.imag();
  });
  ojson out;
  out["scene"] = o.scene;
  out["time"] = at;
  out["system"] = v.kind;
  out["derivatives"] =
      v.kind == "lagrangian"
          ? "exact (nested dual numbers) in (q, nu)"
          : "central differences extrapolated twice (Richardson) of exact evaluations in (q, nu)";
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
