// A scene of bodies in its user's quasi-velocities (appell/rigid_quasi_velocities.hpp): the
// scene loads as any other (its "quasi_velocities" key is accepted and left here), then
// the quasi-velocities are parsed in its bodies and joints and checked on the compiled
// model at the state a run starts from.
#include <nlohmann/json.hpp>

#include "appell/forward.hpp"
#include "appell/integrators.hpp"
#include "appell/rigid_quasi_velocities.hpp"
#include "appell/scene_document.hpp"
#include "appell/simulation.hpp"
#include "scenes/reader.hpp"
#include "scenes/scene_parts.hpp"

namespace appell {

namespace {

// "quasi_velocities": [{"name", "expression", "parameters"}]: each name an identifier,
// once; each expression in the scene's variables, reading a velocity
std::vector<SceneQuasiVelocity> parse_quasi_velocities(const Node& list, const SceneContext& ctx) {
  std::vector<SceneQuasiVelocity> out;
  const size_t count = list.size();
  if (count == 0) list.fail("expected at least one quasi-velocity");
  for (size_t i = 0; i < count; ++i) {
    const Node n = list.at(i);
    n.object({"name", "expression", "parameters"});
    SceneQuasiVelocity qv;
    qv.name = n["name"].name("quasi-velocity");
    for (const SceneQuasiVelocity& other : out)
      if (other.name == qv.name) n["name"].fail("a second quasi-velocity called '" + qv.name + "'");
    const Node e = n["expression"];
    qv.expression = parse_equation(e, parse_parameters(n), ctx, true);
    bool rate = false;
    for (const ExprVariable& v : qv.expression.variables())
      rate = rate || v.kind == ExprVariable::Kind::Velocity ||
             v.kind == ExprVariable::Kind::AngularVelocity || v.kind == ExprVariable::Kind::JointU;
    if (!rate)
      e.fail(
          "reads no velocity (vx(b), wx(b), qd(j), ...); a quasi-velocity is a combination of "
          "velocities");
    qv.pointer = n.pointer();
    out.push_back(std::move(qv));
  }
  return out;
}

}  // namespace

bool is_rigid_nu_text(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  return j.is_object() && j.contains("quasi_velocities") && !j.contains("lagrangian");
}

RigidNuScene load_rigid_nu_scene_from_string(const std::string& text, const std::string& file) {
  Scene scene = load_scene_from_string(text, file);
  const nlohmann::json doc = parse_scene_document(text, file);
  const Node root(doc, "", file);
  SceneContext ctx{scene.model, file};
  const std::vector<SceneQuasiVelocity> qv = parse_quasi_velocities(root["quasi_velocities"], ctx);
  // the run: rk4 or dopri5, as a Lagrangian system's
  RigidNuScene out;
  const IntegratorOptions& in = scene.settings.integrator;
  const IntegratorInfo* method = find_integrator(in.method);
  if (in.method_given && (!method || !method->quasi_velocities))
    root["integrator"]["method"].fail("a scene in its quasi-velocities integrates with " +
                                      integrator_names(true) + ", got '" + in.method + "'");
  out.run.method = in.method_given ? in.method : LagrangianRun().method;
  out.run.dt = in.dt;
  out.run.duration = in.duration;
  out.run.rtol = in.rtol;
  out.run.atol = in.atol;
  out.run.every = scene.settings.output.every;
  // the state every run starts from
  const Model model = compile(scene);
  if (has_unilateral_rows(model, scene.settings.contact.joint_limits,
                          scene.settings.contact.joint_friction))
    root["quasi_velocities"].fail(
        "a scene with contact shapes, enforced joint limits or joint friction (unilateral "
        "rows) does not run in user quasi-velocities; its rows are bilateral constraints only");
  Data d(model);
  InitialConditions start;
  if (initial_conditions(model, d, model.initial_state(), scene.settings.solver, &start) !=
      SolveStatus::Ok)
    throw SceneError(file, "", "at t = 0: " + d.diagnostics.message);
  out.initial = start.state;
  out.velocity_correction = start.velocity_correction;
  out.system = make_rigid_nu_system(qv, model, out.initial, file);
  return out;
}

RigidNuScene load_rigid_nu_scene(const std::string& path) {
  return load_rigid_nu_scene_from_string(read_scene_text(path), path);
}

}  // namespace appell
