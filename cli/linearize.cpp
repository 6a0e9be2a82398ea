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
#include "cli/linearize_output.hpp"

namespace appell::cli {

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

// the state the model is taken about: the scene's initial state at --at, velocities
// projected onto the constraints (as simulate and eval do; a scene's rates rounded to a few
// digits still linearize); false (reported) when they cannot be
bool start_state(const LinearizeOptions& o, const Model& m, const Scene& scene, double at, State& s,
                 InitialConditions& start) {
  s = m.initial_state();
  if (o.at) s.t = at;
  Data d0(m);
  if (initial_conditions(m, d0, s, scene.settings.solver, &start) == SolveStatus::Inconsistent &&
      !start.projected) {
    std::cerr << "error: " << o.scene << ": " << d0.diagnostics.message << "\n";
    return false;
  }
  if (start.projected) s = start.state;
  return true;
}

std::string shape_name(const Model& m, int k) {
  return k < 0
             ? std::string("the world")
             : "'" +
                   (m.shapes()[k].name.empty() ? "shape" + std::to_string(k) : m.shapes()[k].name) +
                   "'";
}

// The unilateral rows that act at s (one moreau step of the scene's dt, as eval's contact
// forces): a limit pressing holds its coordinate (its quasi-velocity into `held`), a contact
// pressing is refused (docs/derivatives.md "Contact and limits").  The exit status, 0 when
// the model can be linearized.
int held_by_limits(const LinearizeOptions& o, const Model& m, const SimulationOptions& so,
                   const State& s, std::vector<int>& held, ojson& held_json) {
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
  for (const ContactSample& c : pressing) {
    if (c.joint >= 0) continue;
    int count = 0;
    for (const ContactSample& p : pressing) count += p.joint < 0;
    std::cerr << "error: " << o.scene << ": at t = " << s.t << ": " << count
              << " contact point(s) press at this state (the first between "
              << shape_name(m, c.point.shape_a) << " and " << shape_name(m, c.point.shape_b) << ", "
              << number_text(c.normal_force)
              << " N): a contact is a set-valued force, and a linear model that took the bodies as "
                 "free would be wrong; contacts are not linearized (joint limits are: a pressing "
                 "limit holds its coordinate)\n";
    return 2;
  }
  for (const ContactSample& c : pressing)
    for (const TreeJoint& t : m.tree().joints)
      if (t.constraint == c.joint) {
        held.push_back(t.u_offset);
        held_json.push_back({{"joint", m.constraints()[c.joint]->name()},
                             {"side", c.upper ? "upper" : "lower"},
                             {"force", c.normal_force}});
      }
  return 0;
}

// linearize() about s and the modes of its A; the exit status, 0 when both are finite
int linear_model(const LinearizeOptions& o, const Model& m, const State& s,
                 const std::vector<int>& columns, const std::vector<int>& held, LinearModel& lm,
                 LinearModes& es) {
  try {
    lm = linearize(m, s, columns, held);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << o.scene << ": " << e.what() << "\n";
    return 2;
  }
  if (!lm.A.allFinite() || !lm.B.allFinite()) {
    std::cerr << "error: " << o.scene << ": at t = " << s.t
              << ": the linear model is not finite (singular mass matrix?)\n";
    return 3;
  }
  try {
    es = modes(lm);
  } catch (const std::runtime_error&) {
    std::cerr << "error: " << o.scene << ": at t = " << s.t << ": eigenvalues did not converge\n";
    return 3;
  }
  return 0;
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
  const std::vector<std::string> names = coordinate_names(m);
  Linearization r;
  r.coordinates = names;
  std::vector<int> columns;
  if (o.inputs) {
    if (!inputs_or_report(m, *o.inputs, columns, r.input_names)) return 2;
  } else {
    for (int k = 0; k < m.tree().nu; ++k) columns.push_back(k), r.input_names.push_back(names[k]);
  }
  State s;
  InitialConditions start;
  if (!start_state(o, m, scene, at, s, start)) return 2;
  r.velocity_correction = start.velocity_correction;
  const SimulationOptions so = SimulationOptions::from_settings(scene.settings);
  std::vector<int> held;
  r.held_json = ojson::array();
  if (const int status = held_by_limits(o, m, so, s, held, r.held_json)) return status;

  LinearModel lm;
  LinearModes es;
  if (const int status = linear_model(o, m, s, columns, held, lm, es)) return status;
  r.method = lm.exact ? "exact" : "numerical";
  r.names = state_names(lm, names);
  r.eigenvalues = eigen_json(lm, es, r.names);
  if (o.format == "json")
    std::cout << linear_model_json(o, m, so, s, lm, r).dump(2) << "\n";
  else
    print_linear_model(std::cout, o, m, s, lm, r);
  return 0;
}

}  // namespace appell::cli
