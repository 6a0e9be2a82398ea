// `appell check` and `appell eval`: the equations of motion at t = 0.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "appell/data.hpp"
#include "appell/forward.hpp"
#include "appell/joint.hpp"
#include "appell/simulation.hpp"
#include "appell/tree.hpp"
#include "cli/commands.hpp"
#include "cli/contact_outputs.hpp"
#include "cli/joint_outputs.hpp"
#include "cli/recorder.hpp"
#include "cli/table.hpp"

namespace appell::cli {

using ojson = nlohmann::ordered_json;

static ojson vec(const Vec3& v) {
  return ojson::array({v.x(), v.y(), v.z()});
}

// The state a simulation starts from: velocities projected onto the constraints in the
// mass metric (docs/scene-format.md "Initial conditions"; a no-op for consistent velocities), then
// one forward pass; `start.state` receives that state.  Prints the error and returns false
// when that fails.
static bool evaluate_t0(const std::string& scene, const Model& m, Data& d,
                        const SolverOptions& solver, InitialConditions& start) {
  if (initial_conditions(m, d, m.initial_state(), solver, &start) == SolveStatus::Ok) return true;
  std::cerr << "error: " << scene << ": at t = 0: " << d.diagnostics.message << "\n";
  return false;
}

int run_eval(const EvalOptions& o) {
  if (is_lagrangian_scene(o.scene)) return run_lagrangian_eval(o);
  if (is_rigid_nu_scene(o.scene)) return run_rigid_nu_eval(o);
  Scene scene;
  Formulation f;
  JointFrame frame;
  if (!options_and_scene_or_report(o.formulation, o.joint_frame, o.scene, f, frame, scene))
    return 2;
  const Model m = compile(scene);
  SolverOptions solver = scene.settings.solver;
  if (f != Formulation::Auto) solver.formulation = f;
  f = solver.formulation;
  Data d(m);
  InitialConditions start;
  if (!evaluate_t0(o.scene, m, d, solver, start)) return 3;
  ojson out;
  out["formulation"] = formulation_name(resolve_formulation(m, f));
  out["time"] = d.t;
  out["coordinates"] = m.nu();
  out["constraint_rows"] = m.nrows();
  out["constraint_rank"] = d.diagnostics.rank;
  out["dof"] = m.nu() - d.diagnostics.rank;
  out["joint_frame"] = joint_frame_name(frame);
  ojson bodies = ojson::object();
  for (int i = 0; i < m.nbody(); ++i) {
    const Body& b = m.bodies()[i];
    ojson e;
    const SpatialMotion a = body_acceleration(m, d, i);
    e["linear_acceleration"] = vec(a.linear);
    if (b.rigid()) e["angular_acceleration"] = vec(a.angular);
    bodies[b.name] = e;
  }
  out["bodies"] = bodies;
  ojson cons = ojson::object();
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const Constraint& con = *m.constraints()[c];
    ojson e;
    e["multipliers"] = ojson::array();
    for (int i = 0; i < con.rows(); ++i) e["multipliers"].push_back(d.lambda(m.row_offset(c) + i));
    ojson per = ojson::object();
    for (size_t j = 0; j < con.bodies().size(); ++j) {
      const int b = con.bodies()[j];
      const SpatialForce& w = d.reaction[m.slot_offset(c) + j];
      ojson fw;
      fw["force"] = vec(w.force);
      if (m.bodies()[b].rigid()) fw["moment"] = vec(w.moment);
      per[m.bodies()[b].name] = fw;
    }
    e["bodies"] = per;
    cons[con.name()] = e;
  }
  out["constraints"] = cons;
  out["joints"] = joints_json(m, d, &start.state, frame);
  // the contact forces at this state: one moreau step of the scene's dt (docs/contact.md)
  const SimulationOptions so = SimulationOptions::from_settings(scene.settings);
  if (has_unilateral_rows(m, so.contact.joint_limits, so.contact.joint_friction)) {
    std::vector<ContactSample> contacts;
    try {
      contacts = contact_forces(m, m.initial_state(), so, so.integrator.dt);
    } catch (const std::exception& e) {
      std::cerr << "error: " << o.scene << ": at t = 0: contact forces: " << e.what() << "\n";
      return 3;
    }
    ojson c = ContactRows(m).json(contacts);
    c["dt"] = so.integrator.dt;
    c["method"] = "impulses of one moreau step of dt from this state, divided by dt";
    out["contacts"] = c;
  }
  if (!finite_numbers(out)) {
    std::cerr << "error: " << o.scene
              << ": at t = 0: the accelerations or constraint forces are not finite\n";
    return 3;
  }
  if (wants_table(o.output))
    print_eval_table(std::cout, out);
  else
    std::cout << out.dump(2) << "\n";
  return 0;
}

// a joint's damping and limits (URDF <dynamics>, <limit>), as " damping c, limits [lo, hi]"
// a joint's damping, friction and limits, and whether a moreau run applies the last two:
// they act on the one-coordinate joints of the spanning tree (engine/contact/moreau.cpp)
static std::string joint_properties(const Model& m, int index, const ContactSettings& contact) {
  const Joint* j = m.joint(index);
  if (!j) return "";
  bool tree_coordinate = false;
  for (const TreeJoint& t : m.tree().joints)
    if (t.constraint == index && t.nq == 1 && t.nu == 1) tree_coordinate = true;
  auto status = [&](bool on, const char* key) -> std::string {
    if (!tree_coordinate) return " (not enforced: only one-coordinate joints of the tree)";
    if (!on) return std::string(" (not enforced: contact.") + key + " is false)";
    return " (enforced)";
  };
  const JointProperties& p = j->properties();
  std::ostringstream os;
  if (p.damping > 0) os << "  damping " << p.damping;
  if (p.friction > 0)
    os << "  friction " << p.friction << status(contact.joint_friction, "joint_friction");
  if (p.limited)
    os << "  limits [" << p.lower << ", " << p.upper << "] effort " << p.effort << " velocity "
       << p.velocity << status(contact.joint_limits, "joint_limits");
  return os.str();
}

int run_check(const std::string& scene, Output output) {
  if (is_lagrangian_scene(scene)) return run_lagrangian_check(scene, output);
  if (is_rigid_nu_scene(scene)) return run_rigid_nu_check(scene, output);
  Scene loaded;
  if (!load_or_report(scene, loaded)) return 2;
  const Model m = compile(loaded);
  // the same evaluation as eval's, in the formulation chosen by structure (every formulation
  // decides the rank by one policy, engine/formulations/rank_policy.hpp; a dense one would cost
  // O(n³) on a long chain); its failure is reported before anything that looks like a valid report
  Data d(m);
  SolverOptions solver = loaded.settings.solver;
  solver.formulation = Formulation::Auto;
  InitialConditions start;
  if (!evaluate_t0(scene, m, d, solver, start)) return 3;
  // a URDF robot's base in the URDF's words, and how to change it
  const std::string robot = loaded.robot.urdf.empty() ? "" : describe(loaded.robot);
  if (output == Output::Json) {
    auto j = check_json(m, d.diagnostics.rank);
    if (!robot.empty()) j["robot_base"] = robot;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  if (wants_table(output)) {
    print_check_table(std::cout, m, d.diagnostics.rank);
    if (!robot.empty()) std::cout << "robot base: " << robot << "\n";
    std::cout << "ok\n";
    return 0;
  }
  std::cout << "scene: " << m.name() << "\n";
  std::cout << "bodies: " << m.nbody() << "\n";
  for (const Body& b : m.bodies())
    std::cout << "  " << padded(b.name, 16) << padded(b.rigid() ? "rigid" : "particle", 10)
              << "mass " << b.mass << "\n";
  std::cout << "constraints: " << m.constraints().size() << " (" << m.nrows() << " rows)\n";
  for (int i = 0; i < static_cast<int>(m.constraints().size()); ++i) {
    const Constraint& c = *m.constraints()[i];
    std::cout << "  " << padded(c.name(), 16) << padded(c.type(), 16) << c.rows()
              << (c.rows() == 1 ? " row " : " rows") << "  [";
    for (size_t j = 0; j < c.bodies().size(); ++j)
      std::cout << (j ? ", " : "") << m.bodies()[c.bodies()[j]].name;
    std::cout << "]" << joint_properties(m, i, loaded.settings.contact) << "\n";
  }
  std::cout << "forces: " << m.forces().size() << "\n";
  std::cout << base_line(m) << "\n";
  if (!robot.empty()) std::cout << "robot base: " << robot << "\n";
  // the same count in the words of joint space (tree) and of maximal coordinates
  const TreeModel& tree = m.tree();
  const int dof = m.nu() - d.diagnostics.rank;
  std::cout << "joint coordinates: " << tree.nq << " (q), joint velocities: " << tree.nu
            << " (u), in " << tree.joints.size() << " tree joints\n";
  std::cout << "constraints beyond the tree: " << tree.nrows_extra << " rows, rank "
            << tree.nu - dof << "\n";
  std::cout << "coordinates: " << m.nu() << " maximal velocities (6 a body, 3 a particle)\n";
  std::cout << "constraint rank: " << d.diagnostics.rank << " of " << m.nrows() << " rows\n";
  std::cout << "degrees of freedom: " << dof << "\n";
  std::cout << "ok\n";
  return 0;
}

}  // namespace appell::cli
