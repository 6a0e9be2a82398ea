// `appell linearize SCENE [--at t] [--inputs J1,J2] [--format json|table]` (cli/linearize.hpp).
//
// About the scene's state s (its initial joint coordinates and rates, at time --at), with
// x = (δq, u): δq the tangent coordinates of q about s.q (one per quasi-velocity,
// appell/derivatives.hpp) and w the generalized forces added at the input joints' quasi-
// velocities,
//   A = [ W         I        ]     B = [ 0         ]
//       [ ∂u̇/∂q     ∂u̇/∂u    ]         [ M⁻¹ E     ]     (E selects the inputs' columns)
// W is zero but for a spinning quaternion joint's block ω × (δq follows the reference
// motion; appell/derivatives.hpp).  Eigenvalues λ of A (modes(): cyclic states set aside)
// with their modes: natural frequency |λ|, damped frequency |Im λ|/2π,
// damping ratio −Re λ / |λ|, and the coordinates whose δq the mode moves most.  With
// constraint rows beyond the tree, x = (δq_I, u_V), the independent coordinates and
// velocities linearize() chose (appell/derivatives.hpp), printed with the model.
#include "cli/linearize.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "appell/data.hpp"
#include "appell/derivatives.hpp"
#include "appell/forward.hpp"
#include "appell/jacobians.hpp"
#include "appell/simulation.hpp"
#include "appell/tree.hpp"
#include "cli/commands.hpp"

namespace appell::cli {

using ojson = nlohmann::ordered_json;

CLI::App* add_linearize_command(CLI::App& app, LinearizeOptions& o) {
  CLI::App* c = app.add_subcommand(
      "linearize", "linear model (A, B), eigenvalues and modes about the scene's state");
  c->add_option("SCENE", o.scene, "scene file (JSON)")->required();
  c->add_option("--at", o.at, "time at which the scene's forces are taken, s (default: its start)");
  c->add_option("--inputs", o.inputs,
                "input joints, comma-separated: B's columns are unit generalized forces on "
                "their quasi-velocities (default: every tree joint)");
  c->add_option("--format", o.format, "json (default) | table");
  return c;
}

namespace {

std::string tree_joint_name(const Model& m, const TreeJoint& t) {
  return t.constraint >= 0 ? m.constraints()[t.constraint]->name() : m.bodies()[t.body].name;
}

// the name of each quasi-velocity: the joint's, with [k] when it has several
std::vector<std::string> coordinate_names(const Model& m) {
  std::vector<std::string> names(m.tree().nu);
  for (const TreeJoint& t : m.tree().joints)
    for (int k = 0; k < t.nu; ++k)
      names[t.u_offset + k] =
          tree_joint_name(m, t) + (t.nu > 1 ? "[" + std::to_string(k) + "]" : "");
  return names;
}

bool usage(const std::string& option, const std::string& message) {
  std::cerr << "error: " << option << ": " << message << "\n";
  return false;
}

// --inputs → the quasi-velocity indices of the joints named, in the order given
bool inputs_or_report(const Model& m, const std::string& text, std::vector<int>& columns,
                      std::vector<std::string>& names) {
  std::vector<ListItem> items;
  if (!list_or_report("--inputs", text, items)) return false;
  const TreeModel& tree = m.tree();
  std::string all;
  for (const TreeJoint& t : tree.joints) all += (all.empty() ? "" : ", ") + tree_joint_name(m, t);
  std::vector<int> seen;
  for (const ListItem& item : items) {
    int found = -1;
    for (int i = 0; i < static_cast<int>(tree.joints.size()); ++i)
      if (tree_joint_name(m, tree.joints[i]) == item.text) found = i;
    if (found < 0)
      return usage("--inputs",
                   "'" + item.text +
                       "' is not a joint of the scene's spanning tree (its joints: " + all + ")");
    if (std::find(seen.begin(), seen.end(), found) != seen.end())
      return usage("--inputs", "item " + std::to_string(item.position) + ": joint '" + item.text +
                                   "' is given twice");
    seen.push_back(found);
    const TreeJoint& t = tree.joints[found];
    if (t.nu == 0)
      return usage("--inputs", "joint '" + item.text + "' (" + t.type->name() +
                                   ") has no quasi-velocity to force");
    const std::vector<std::string> cn = coordinate_names(m);
    for (int k = 0; k < t.nu; ++k) {
      columns.push_back(t.u_offset + k);
      names.push_back(cn[t.u_offset + k]);
    }
  }
  return true;
}

ojson matrix_json(const Eigen::MatrixXd& A) {
  ojson rows = ojson::array();
  for (int r = 0; r < A.rows(); ++r) {
    ojson row = ojson::array();
    for (int c = 0; c < A.cols(); ++c) row.push_back(A(r, c) + 0.0);  // no −0
    rows.push_back(row);
  }
  return rows;
}

std::string num(double x, int digits = 6) {
  std::ostringstream s;
  s << std::setprecision(digits) << x + 0.0;  // no −0
  return s.str();
}

}  // namespace

int run_linearize(const LinearizeOptions& o) {
  if (o.format != "json" && o.format != "table")
    return usage("--format", "expected json or table (got '" + o.format + "')"), 2;
  double at = 0.0;
  if (o.at && !number_or_report("--at", "", *o.at, at)) return 2;
  if (is_lagrangian_scene(o.scene)) return run_lagrangian_linearize(o, o.at ? at : 0.0);
  if (is_rigid_nu_scene(o.scene)) return run_rigid_nu_linearize(o, o.at ? at : 0.0);
  Scene scene;
  if (!load_or_report(o.scene, scene)) return 2;
  const Model m = compile(scene);
  const TreeModel& tree = m.tree();
  const int nu = tree.nu;
  const std::vector<std::string> names = coordinate_names(m);
  std::vector<int> columns;
  std::vector<std::string> input_names;
  if (o.inputs) {
    if (!inputs_or_report(m, *o.inputs, columns, input_names)) return 2;
  } else {
    for (int k = 0; k < nu; ++k) columns.push_back(k), input_names.push_back(names[k]);
  }
  State s = m.initial_state();
  if (o.at) s.t = at;
  // the state a run starts from: velocities projected onto the constraints (as simulate and
  // eval do; a scene's rates rounded to a few digits still linearize)
  Data d0(m);
  InitialConditions start;
  if (initial_conditions(m, d0, s, scene.settings.solver, &start) == SolveStatus::Inconsistent &&
      !start.projected) {
    std::cerr << "error: " << o.scene << ": " << d0.diagnostics.message << "\n";
    return 2;
  }
  if (start.projected) s = start.state;

  // the unilateral rows that act at this state (one moreau step of the scene's dt, as
  // eval's contact forces): a limit pressing holds its coordinate, a contact pressing is
  // refused (docs/derivatives.md "Contact and limits")
  const SimulationOptions so = SimulationOptions::from_settings(scene.settings);
  std::vector<ContactSample> pressing;
  if (has_unilateral_rows(m, so.contact.joint_limits, so.contact.joint_friction)) {
    std::vector<ContactSample> rows;
    try {
      rows = contact_forces(m, s, so, so.integrator.dt);
    } catch (const std::exception& e) {
      std::cerr << "error: " << o.scene << ": at t = " << s.t << ": contact forces: " << e.what()
                << "\n";
      return 3;
    }
    double largest = 0.0;
    for (const ContactSample& c : rows) largest = std::max(largest, c.normal_force);
    for (const ContactSample& c : rows)
      if (c.normal_force > 1e-9 * std::max(1.0, largest)) pressing.push_back(c);
  }
  std::vector<int> held;
  ojson held_json = ojson::array();
  for (const ContactSample& c : pressing) {
    if (c.joint >= 0) continue;
    int count = 0;
    for (const ContactSample& p : pressing) count += p.joint < 0;
    const auto shape = [&](int k) {
      return k < 0 ? std::string("the world")
                   : "'" +
                         (m.shapes()[k].name.empty() ? "shape" + std::to_string(k)
                                                     : m.shapes()[k].name) +
                         "'";
    };
    std::cerr << "error: " << o.scene << ": at t = " << s.t << ": " << count
              << " contact point(s) press at this state (the first between "
              << shape(c.point.shape_a) << " and " << shape(c.point.shape_b) << ", "
              << num(c.normal_force)
              << " N): a contact is a set-valued force, and a linear model that took the bodies as "
                 "free would be wrong; contacts are not linearized (joint limits are: a pressing "
                 "limit holds its coordinate)\n";
    return 2;
  }
  for (const ContactSample& c : pressing)
    for (const TreeJoint& t : tree.joints)
      if (t.constraint == c.joint) {
        held.push_back(t.u_offset);
        held_json.push_back({{"joint", m.constraints()[c.joint]->name()},
                             {"side", c.upper ? "upper" : "lower"},
                             {"force", c.normal_force}});
      }

  LinearModel lm;
  try {
    lm = linearize(m, s, columns, held);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << o.scene << ": " << e.what() << "\n";
    return 2;
  }
  const Eigen::MatrixXd& A = lm.A;
  const Eigen::MatrixXd& B = lm.B;
  const std::string method = lm.exact ? "exact" : "numerical";
  const std::string& note = lm.note;
  if (!A.allFinite() || !B.allFinite()) {
    std::cerr << "error: " << o.scene << ": at t = " << s.t
              << ": the linear model is not finite (singular mass matrix?)\n";
    return 3;
  }

  // eigenvalues, ascending by real part then |imaginary part|; one of each conjugate pair
  // is listed with both signs of the imaginary part, as the solver gives them
  LinearModes es;
  try {
    es = modes(lm);
  } catch (const std::runtime_error&) {
    std::cerr << "error: " << o.scene << ": at t = " << s.t << ": eigenvalues did not converge\n";
    return 3;
  }
  const int nx = static_cast<int>(A.rows());
  std::vector<int> order(nx);
  for (int k = 0; k < nx; ++k) order[k] = k;
  const Eigen::VectorXcd& lam = es.values;
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (lam(a).real() != lam(b).real()) return lam(a).real() < lam(b).real();
    return lam(a).imag() < lam(b).imag();
  });
  // the state x = (δq_I, u_V): every coordinate on a tree, the independent ones with rows
  const int nI = static_cast<int>(lm.coordinates.size());
  std::vector<std::string> states, cnames, vnames;
  for (int k : lm.coordinates) cnames.push_back(names[k]), states.push_back("q:" + names[k]);
  for (int k : lm.velocities) vnames.push_back(names[k]), states.push_back("u:" + names[k]);

  ojson out;
  out["scene"] = o.scene;
  out["time"] = s.t;
  out["derivatives"] = method;
  if (!note.empty()) out["note"] = note;
  out["coordinates"] = names;
  if (tree.nrows_extra > 0) {
    out["constraint_rows"] = tree.nrows_extra;
    out["independent_coordinates"] = cnames;
    out["independent_velocities"] = vnames;
  }
  if (!held.empty()) {
    out["held_by_limits"] = held_json;
    out["note"] = std::string(
                      "coordinates resting on a joint limit whose force is positive are "
                      "held (the limit taken as the equality q = bound) and left out of "
                      "x") +
                  (note.empty() ? "" : "; " + note);
  }
  if (has_unilateral_rows(m, so.contact.joint_limits, so.contact.joint_friction))
    out["unilateral_rows"] =
        "no contact presses; limits that press are held (held_by_limits), open limits and "
        "joint Coulomb friction are not in the linear model";
  if (lm.turn_rate != 0) out["turn_rate"] = lm.turn_rate;
  if (start.velocity_correction > 0) out["initial_velocity_correction"] = start.velocity_correction;
  out["states"] = states;
  out["inputs"] = input_names;
  out["A"] = matrix_json(A);
  out["B"] = matrix_json(B);
  ojson eig = ojson::array();
  for (int k : order) {
    const std::complex<double> l = lam(k);
    const double wn = std::abs(l);
    // the mode's coordinates δq_I (its velocities when it moves none: a nonholonomic mode)
    const bool by_velocity = nI == 0 || es.vectors.col(k).head(nI).cwiseAbs().maxCoeff() == 0.0;
    const Eigen::VectorXcd v = by_velocity ? Eigen::VectorXcd(es.vectors.col(k).tail(nx - nI))
                                           : Eigen::VectorXcd(es.vectors.col(k).head(nI));
    const std::vector<std::string>& vn = by_velocity ? vnames : cnames;
    const int nv = static_cast<int>(v.size());
    const double vmax = nv > 0 ? v.cwiseAbs().maxCoeff() : 0.0;
    std::vector<int> idx(nv);
    for (int j = 0; j < nv; ++j) idx[j] = j;
    std::sort(idx.begin(), idx.end(),
              [&](int a, int b) { return std::abs(v(a)) > std::abs(v(b)); });
    ojson comps = ojson::array();
    for (int j : idx) {
      const double mag = vmax > 0 ? std::abs(v(j)) / vmax : 0.0;
      if (mag < 0.05 || comps.size() >= 4) break;
      comps.push_back({{"coordinate", vn[j]},
                       {"magnitude", mag},
                       {"phase_deg", std::arg(v(j) / v(idx[0])) * 180.0 / M_PI}});
    }
    ojson e;
    e["re"] = l.real() + 0.0;  // no −0
    e["im"] = l.imag() + 0.0;
    e["natural_frequency"] = wn;                          // rad/s
    e["frequency_hz"] = std::abs(l.imag()) / (2 * M_PI);  // damped
    e["damping_ratio"] = wn > 0 ? -l.real() / wn + 0.0 : 0.0;
    e["stable"] = l.real() < 0;
    e["mode"] = comps;
    eig.push_back(e);
  }
  out["eigenvalues"] = eig;

  if (o.format == "json") {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::ostream& os = std::cout;
  os << "linear model of " << o.scene << " at t = " << s.t << " (derivatives: " << method << ")\n";
  if (!note.empty()) os << "note: " << note << "\n";
  for (const ojson& h : held_json)
    os << "held by its " << h["side"].get<std::string>() << " limit (force "
       << num(h["force"].get<double>()) << "): " << h["joint"].get<std::string>() << "\n";
  if (start.velocity_correction > 0)
    os << "initial velocities projected onto the constraints first: |du|_M = "
       << start.velocity_correction << "\n";
  if (tree.nrows_extra > 0) {
    os << "constraint rows beyond the tree: " << tree.nrows_extra << "; independent coordinates:";
    for (const std::string& n : cnames) os << " " << n;
    os << "; independent velocities:";
    for (const std::string& n : vnames) os << " " << n;
    os << "\n";
  }
  os << "x = (δq, u), " << nx << " states; inputs: " << input_names.size() << "\n\nA =\n";
  auto print = [&](const Eigen::MatrixXd& X, const std::vector<std::string>& cols) {
    os << std::setw(16) << "";
    for (const std::string& c : cols) os << std::setw(14) << c.substr(0, 13);
    os << "\n";
    for (int r = 0; r < X.rows(); ++r) {
      os << std::setw(16) << states[r].substr(0, 15);
      for (int c = 0; c < X.cols(); ++c) os << std::setw(14) << num(X(r, c));
      os << "\n";
    }
  };
  print(A, states);
  os << "\nB =\n";
  print(B, input_names);
  os << "\neigenvalues:\n"
     << std::setw(14) << "re" << std::setw(14) << "im" << std::setw(14) << "|λ| rad/s"
     << std::setw(12) << "f Hz" << std::setw(10) << "ζ"
     << "  mode\n";
  for (const ojson& e : eig) {
    std::string mode;
    for (const ojson& c : e["mode"])
      mode += (mode.empty() ? "" : ", ") + c["coordinate"].get<std::string>() + " " +
              num(c["magnitude"].get<double>(), 3);
    os << std::setw(14) << num(e["re"].get<double>()) << std::setw(14) << num(e["im"].get<double>())
       << std::setw(14) << num(e["natural_frequency"].get<double>()) << std::setw(12)
       << num(e["frequency_hz"].get<double>(), 4) << std::setw(10)
       << num(e["damping_ratio"].get<double>(), 3) << "  " << mode << "\n";
  }
  return 0;
}

}  // namespace appell::cli
