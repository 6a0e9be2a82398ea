// A scene's settings (scenes/scene_build.hpp): "solver", "integrator", "contact", "output".
#include <sstream>

#include "appell/integrators.hpp"
#include "scenes/scene_build.hpp"

namespace appell::scene_detail {

namespace {

void parse_solver(const Node& n, SolverOptions& s) {
  n.object({"formulation", "stabilization"});
  if (n.has("formulation")) {
    const std::string f = n["formulation"].string();
    if (!parse_formulation(f, s.formulation))
      n["formulation"].fail("unknown formulation '" + f + "'; expected " + formulation_names());
  }
  if (!n.has("stabilization")) return;
  const Node st = n["stabilization"];
  std::string type;
  if (st.json().is_string()) {
    type = st.string();
    if (type != "none") st.fail("expected \"none\" or an object with a type, got '" + type + "'");
  } else {
    st.object({"type", "alpha", "beta"});
    type = st["type"].string();
  }
  if (type == "none") {
    s.stabilization.type = Stabilization::Type::None;
  } else if (type == "baumgarte") {
    s.stabilization.type = Stabilization::Type::Baumgarte;
    s.stabilization.alpha = st["alpha"].nonnegative();
    s.stabilization.beta = st["beta"].nonnegative();
  } else if (type == "projection") {
    if (st.has("alpha") || st.has("beta")) st.fail("projection takes no alpha or beta");
    s.stabilization.type = Stabilization::Type::Projection;
  } else {
    st["type"].fail("unknown stabilization '" + type + "'; expected none, baumgarte or projection");
  }
}

void parse_integrator(const Node& n, IntegratorOptions& o) {
  n.object({"method", "duration", "dt", "rtol", "atol"});
  if (n.has("method")) {
    o.method = n["method"].string();
    o.method_given = true;
    if (!find_integrator(o.method))
      n["method"].fail("unknown method '" + o.method + "'; expected " + integrator_names());
  }
  if (n.has("duration")) o.duration = n["duration"].nonnegative();
  if (n.has("dt")) o.dt = n["dt"].positive();
  if (n.has("rtol")) o.rtol = n["rtol"].positive();
  if (n.has("atol")) o.atol = n["atol"].positive();
}

// The output size guard: an absurd dt (1e-300) or duration would ask for more steps than
// a run can take, or more rows than a file should hold.
void check_run_size(const Node& top, const Settings& s) {
  const double steps = s.integrator.duration / s.integrator.dt;
  const double rows = steps / s.output.every;
  if (!(steps <= SceneLimits::kMaxSteps) || !(rows <= SceneLimits::kMaxOutputRows)) {
    std::ostringstream os;
    os << "duration / dt = " << steps << " steps and " << rows
       << " output rows; the limits are 1e9 steps and 1e7 rows";
    const Node in = top["integrator"];
    (in.has("dt") ? in["dt"] : in["duration"]).fail(os.str());
  }
}

}  // namespace

FrictionRule friction_rule(const Node& top, const UrdfScene* robot) {
  std::string rule = "geometric";
  if (top.has("contact") && top["contact"].has("friction")) {
    const Node n = top["contact"]["friction"];
    rule = n.string();
    if (rule != "geometric" && rule != "max")
      n.fail("unknown friction rule '" + rule + "' (expected \"geometric\" or \"max\")");
  } else if (robot && robot->settings.contains("friction")) {
    rule = robot->settings["friction"].get<std::string>();
  }
  return rule == "max" ? FrictionRule::Max : FrictionRule::Geometric;
}

void parse_settings(const Node& top, Settings& settings) {
  if (top.has("solver")) parse_solver(top["solver"], settings.solver);
  if (top.has("integrator")) parse_integrator(top["integrator"], settings.integrator);
  if (top.has("contact")) {
    const Node c = top["contact"];
    c.object({"joint_limits", "joint_friction", "tolerance", "max_iterations", "friction",
              "on_unconverged"});
    for (const char* key : {"joint_limits", "joint_friction"}) {
      if (!c.has(key)) continue;
      const Node flag = c[key];
      if (!flag.json().is_boolean())
        flag.fail("expected true or false, got " + type_name(flag.json()));
      (std::string(key) == "joint_limits" ? settings.contact.joint_limits
                                          : settings.contact.joint_friction) =
          flag.json().get<bool>();
    }
    if (c.has("tolerance")) settings.contact.tolerance = c["tolerance"].positive();
    if (c.has("max_iterations"))
      settings.contact.max_iterations = c["max_iterations"].positive_int();
    if (c.has("on_unconverged")) {
      const std::string p = c["on_unconverged"].string();
      if (p != "fail" && p != "warn")
        c["on_unconverged"].fail("expected \"fail\" or \"warn\", got \"" + p + "\"");
      settings.contact.on_unconverged =
          p == "warn" ? ContactSettings::OnUnconverged::Warn : ContactSettings::OnUnconverged::Fail;
    }
  }
  if (top.has("output")) {
    const Node o = top["output"];
    o.object({"every"});
    if (o.has("every")) settings.output.every = o["every"].positive_int();
  }
  check_run_size(top, settings);
}

Disabled disabled_parts(const Node& top, const UrdfScene* robot) {
  static const char* const kNames[] = {"contact", "limit",     "frictionloss",
                                       "passive", "actuation", "equality"};
  Disabled d;
  const auto set = [&](const std::string& name) {
    bool* flags[] = {&d.contact, &d.limit, &d.frictionloss, &d.passive, &d.actuation, &d.equality};
    for (int k = 0; k < 6; ++k)
      if (name == kNames[k]) *flags[k] = true;
  };
  if (top.has("disable")) {
    const Node list = top["disable"];
    if (!list.json().is_array())
      list.fail(
          "expected an array of names (contact, limit, frictionloss, passive, actuation, "
          "equality), got " +
          type_name(list.json()));
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string name = list.at(i).string();
      bool known = false;
      for (const char* k : kNames) known = known || name == k;
      if (!known)
        list.at(i).fail("unknown switch '" + name +
                        "'; expected contact, limit, frictionloss, passive, actuation or equality");
      set(name);
    }
  } else if (robot && robot->settings.contains("disable")) {
    for (const auto& name : robot->settings["disable"]) set(name.get<std::string>());
  }
  return d;
}

// what a force is to the switches: "passive" (springs and dampers), "actuation" (joint
// torques and servos), "" (forces applied to bodies: force, torque, expression); an
// included MJCF says it for each of its own (a damper actuator is actuation)
std::string force_kind(const Node& n, const UrdfScene* robot) {
  if (robot && &n.file() == &robot->file) {
    const auto k = robot->kinds.find(n.pointer());
    if (k != robot->kinds.end()) return k->second;
  }
  const std::string type = n.has("type") && n["type"].json().is_string()
                               ? n["type"].json().get<std::string>()
                               : std::string();
  if (type == "spring" || type == "damping" || type == "joint_spring" || type == "joint_damping")
    return "passive";
  if (type == "joint_torque" || type == "pd") return "actuation";
  return "";
}

// An equality (MuJoCo's word): a mimic, or what an included MJCF's <equality> became
bool is_equality(const Node& n, const UrdfScene* robot) {
  if (robot && &n.file() == &robot->file) {
    const auto k = robot->kinds.find(n.pointer());
    if (k != robot->kinds.end()) return k->second == "equality";
  }
  return n.json().is_object() && n.has("type") && n["type"].json() == "mimic";
}

}  // namespace appell::scene_detail
