// What a Pinocchio or MuJoCo user expects next to whole runs: a simulation driven step by
// step from Python, the model described as plain Python objects, and the `a:b:n` ranges
// of the command line.
//
//   sim = appell._appell.Simulator(model, state, {"dt": 1e-3})
//   sim.step(10); sim.t, sim.state          # joint coordinates at the time reached
//   appell._appell._describe(model)         # {"bodies": [...], "joints": [...], ...}
//   appell._appell._set_values("/p", "0:1:5")   # the JSON texts `--set /p=0:1:5` gives
//
// A Simulator is appell::Simulation's start()/step(): stepping it in any number of calls
// makes the same steps, bit for bit, as one whole run (appell.simulate()).
#include <cmath>
#include <map>
#include <mutex>

#include "appell/joint_forces.hpp"
#include "appell/state_space.hpp"
#include "python/src/bindings.hpp"
#include "python/src/contact_table.hpp"

namespace appell::python {

namespace {

// An input set from Python between steps (what MuJoCo's data.ctrl is): τ = value, nu
// entries, read at every evaluation.  Until `given`, the force it stands in for (`base`, a
// scene's joint_torque on the joint) acts, bit for bit (0 + τ is τ), or none (τ = 0).
struct InputValue {
  Eigen::VectorXd value;
  bool given = false;
};

class JointInput final : public JointForce {
 public:
  JointInput(std::shared_ptr<const Joint> joint, std::shared_ptr<const InputValue> input,
             std::shared_ptr<const JointForce> base)
      : JointForce(std::move(joint)), input_(std::move(input)), base_(std::move(base)) {}
  std::string type() const override { return "joint_torque"; }
  size_t scratch_size() const override { return base_ ? base_->scratch_size() : 0; }
  // a given input holds still; else the scene's force's own
  bool tau_derivatives(const StateView& s, const double* q, const double* u, double* dq,
                       double* du) const override {
    if (input_->given || !base_) {
      for (int k = 0; k < nu() * nu(); ++k) dq[k] = du[k] = 0.0;
      return true;
    }
    return base_->tau_derivatives(s, q, u, dq, du);
  }

 private:
  void tau(const StateView& s, const double* q, const double* u, double* out) const override {
    if (input_->given) {  // set_input() checked its size
      for (int k = 0; k < nu(); ++k) out[k] = input_->value(k);
      return;
    }
    for (int k = 0; k < nu(); ++k) out[k] = 0.0;
    if (base_) base_->add_generalized_force(s, q, u, out);
  }
  std::shared_ptr<const InputValue> input_;
  std::shared_ptr<const JointForce> base_;
};

// The joint inputs of a Simulator, by joint name: one JointInput per joint that has a
// scene joint_torque (standing in for the first one) and per joint named in `actuated`.
// The run's model is the scene's compiled again with these in place of those forces (the
// same bodies, constraints and shapes in the same order: the same tree, the same
// numbers); with no inputs it is the scene's model itself.
struct Inputs {
  std::shared_ptr<const Model> model;
  std::vector<std::string> names;  // the scene's joint_torque joints, then `actuated`'s
  std::map<std::string, std::shared_ptr<InputValue>> values;
};

Inputs make_inputs(const std::shared_ptr<PyModel>& pm, const std::vector<std::string>& actuated) {
  const Model& m = model_of(pm);
  Inputs in;
  std::vector<ForcePtr> forces;
  // joint j of m, owned with its constraint (JointInput keeps it)
  const auto joint_ptr = [&](const Joint* j) {
    for (int k = 0; k < static_cast<int>(m.constraints().size()); ++k)
      if (m.joint(k) == j) return std::shared_ptr<const Joint>(m.constraints()[k], j);
    return std::shared_ptr<const Joint>();
  };
  const auto add = [&](const std::shared_ptr<const Joint>& j,
                       const std::shared_ptr<const JointForce>& base) {
    auto v = std::make_shared<InputValue>();
    v->value = Eigen::VectorXd::Zero(j->joint_type().nu());
    in.values[j->name()] = v;
    in.names.push_back(j->name());
    return std::make_shared<JointInput>(j, v, base);
  };
  for (const ForcePtr& f : m.forces()) {
    auto torque = std::dynamic_pointer_cast<const JointTorque>(f);
    std::shared_ptr<const Joint> j = torque ? joint_ptr(&torque->joint()) : nullptr;
    if (j && !in.values.count(j->name()))
      forces.push_back(add(j, torque));
    else
      forces.push_back(f);
  }
  for (const std::string& name : actuated) {
    std::shared_ptr<const Joint> j;
    for (const Joint* k : m.joints())
      if (k->name() == name) j = joint_ptr(k);
    if (!j) {
      std::vector<std::string> joints;
      for (const Joint* k : m.joints()) joints.push_back(k->name());
      throw std::invalid_argument("Simulator(): actuated: no joint named '" + name +
                                  "'; joints: " + name_list(joints));
    }
    if (in.values.count(name))
      throw std::invalid_argument(
          "Simulator(): actuated: joint '" + name +
          "' is named twice or has a scene joint_torque (an input already)");
    forces.push_back(add(j, nullptr));
  }
  if (in.names.empty()) {
    in.model = std::shared_ptr<const Model>(pm, pm->model.get());
    return in;
  }
  ModelBuilder b;
  b.name = m.name();
  b.gravity = m.gravity();
  b.friction_rule = m.friction_rule();
  for (const Body& body : m.bodies()) b.add_body(body);
  for (const ConstraintPtr& c : m.constraints()) b.add_constraint(c);
  for (const ForcePtr& f : forces) b.add_force(f);
  for (const Shape& sh : m.shapes()) b.add_shape(sh);
  for (const Shape& sh : m.visuals()) b.add_shape(sh);
  in.model = std::make_shared<const Model>(compile(b));
  return in;
}

// A Simulation with its model kept alive and its samples recorded as simulate() records them.
class Simulator {
 public:
  Simulator(std::shared_ptr<PyModel> pm, const std::optional<State>& state, const py::dict& kw,
            bool forces, const std::vector<std::string>& actuated)
      : pm_(std::move(pm)),
        inputs_(make_inputs(pm_, actuated)),
        sim_(*inputs_.model, make_options(*pm_, kw)),
        traj_(*inputs_.model, forces),
        space_(make_state_space(*inputs_.model, solver_of(sim_))),
        data_(*inputs_.model),
        initial_(state) {
    if (state) check_state(*inputs_.model, *state, "Simulator()");
  }

  // Every method takes the Simulator's lock (ObjectLock, bindings.hpp): step() runs with
  // the GIL released, and the run's Python forces give it up while they run, so two Python
  // threads could otherwise step or read one Simulator at once.

  // n accepted steps (fewer when the run finishes or fails); true while it can go on
  bool step(long n) {
    if (n < 0) throw std::invalid_argument("step(): n must be >= 0, got " + std::to_string(n));
    const auto held = lock_.hold("Simulator.step()");
    start();
    py::gil_scoped_release release;
    for (long k = 0; k < n && sim_.running(); ++k) sim_.step(observer());
    return sim_.running();
  }

  // steps until the time reaches t (or the run ends)
  bool advance_to(double t) {
    if (!std::isfinite(t))
      throw std::invalid_argument("advance_to(): t must be a finite time, got " +
                                  std::string(std::isnan(t) ? "nan"
                                              : t > 0       ? "inf"
                                                            : "-inf"));
    const auto held = lock_.hold("Simulator.advance_to()");
    start();
    py::gil_scoped_release release;
    while (sim_.running() && sim_.time() < t) sim_.step(observer());
    return sim_.running();
  }

  double time() {
    const auto held = lock_.hold("Simulator.t");
    start();
    return sim_.time();
  }
  bool running() {
    const auto held = lock_.hold("Simulator.running");
    start();
    return sim_.running();
  }

  // the joint coordinates of the state reached (a copy)
  State state() {
    const auto held = lock_.hold("Simulator.state");
    start();
    return space_->to_state(sim_.state(), sim_.time(), data_);
  }

  py::dict info() {
    const auto held = lock_.hold("Simulator.info");
    return info_locked();
  }

  py::tuple samples() {
    const auto held = lock_.hold("Simulator.samples()");
    return py::make_tuple(traj_.columns(), as_array(traj_.values(), traj_.rows(), traj_.cols()),
                          info_locked());
  }

  const std::shared_ptr<PyModel>& model() const { return pm_; }

  // the inputs by joint name: the value given, or None while the scene's force acts
  py::dict inputs() {
    const auto held = lock_.hold("Simulator.inputs");
    py::dict d;
    for (const std::string& name : inputs_.names) {
      const InputValue& v = *inputs_.values.at(name);
      d[py::str(name)] = v.given ? py::cast(Eigen::VectorXd(v.value)) : py::none();
    }
    return d;
  }

  // the input of joint `name` from the next evaluation on (the next step's first stage was
  // evaluated before, at the instant reached): its nu values (a number for nu = 1), or None
  // to give the joint back to the scene's force
  void set_input(const std::string& name, const py::object& value) {
    const auto held = lock_.hold("Simulator.set_input()");
    const auto it = inputs_.values.find(name);
    if (it == inputs_.values.end()) {
      std::string known;
      for (const std::string& n : inputs_.names) known += (known.empty() ? "'" : ", '") + n + "'";
      throw std::invalid_argument("set_input(): no input '" + name +
                                  "'; the inputs are the joints with a joint_torque "
                                  "in the scene and those named in Simulator(..., actuated=[...])" +
                                  (known.empty() ? std::string(" (none here)") : ": " + known));
    }
    InputValue& v = *it->second;
    if (value.is_none()) {
      v.given = false;
      return;
    }
    const Eigen::VectorXd x = real_vector(value, "set_input(): value");
    if (x.size() != v.value.size())
      throw std::invalid_argument("set_input(): joint '" + name + "' takes " +
                                  std::to_string(v.value.size()) + " values, got " +
                                  std::to_string(x.size()));
    if (!x.allFinite())
      throw std::invalid_argument("set_input(): the input of joint '" + name + "' is not finite");
    v.value = x;
    v.given = true;
  }

 private:
  // The run starts (initial conditions, the t = 0 sample) when it is first stepped or
  // read, so that inputs set before that act from t = 0 on, as a scene's would.  The lock
  // is held.
  void start() {
    if (started_) return;
    started_ = true;
    py::gil_scoped_release release;
    if (initial_)
      sim_.start(*initial_, observer());
    else
      sim_.start(observer());
  }

  py::dict info_locked() {
    start();
    const SimulationResult& r = sim_.result();
    py::dict i;
    i["status"] = simulation_status_name(r.status);
    i["message"] = r.message;
    i["t"] = sim_.time();
    i["steps"] = r.steps;
    i["rejected_steps"] = r.rejected_steps;
    i["rhs_evaluations"] = r.rhs_evaluations;
    i["samples"] = r.samples;
    i["initial_velocity_correction"] = r.initial_velocity_correction;
    i["formulation"] = formulation_name(sim_.state_space().formulation());
    RunSummary s = summary_;
    SimulationResult copy = r;
    check_figures(s, copy);
    add_run_summary(i, s);
    i["traj_columns"] = traj_.traj_columns();
    i["contacts"] = contacts_.to_dict(*pm_->model);
    if (find_integrator(sim_.method())
            ->unilateral) {  // the summary's contact figures, as simulate()'s
      i["impacts"] = r.impacts;
      i["max_penetration"] = r.max_penetration;
      i["contact_iterations"] = r.contact_iterations;
      i["contact_residual"] = r.contact_residual;
    }
    return i;
  }

  static SolverOptions solver_of(const Simulation& sim) {
    SolverOptions o;
    o.formulation = sim.state_space().formulation();
    return o;
  }
  Observer observer() {
    return [this](const Sample& s) {
      traj_.record(s);
      summary_.record(s);
      contacts_.record(s);
    };
  }

  std::shared_ptr<PyModel> pm_;
  Inputs inputs_;  // before sim_: the run holds *inputs_.model
  Simulation sim_;
  Trajectory traj_;
  RunSummary summary_;
  ContactTable contacts_;              // the samples' contact rows (Result.contacts)
  std::unique_ptr<StateSpace> space_;  // to read the state x in joint coordinates
  Data data_;
  std::optional<State> initial_;
  bool started_ = false;
  ObjectLock lock_;
};

}  // namespace

void bind_stepping(py::module_& m) {
  py::class_<Simulator>(m, "Simulator",
                        "The C++ half of appell.Simulator: a run driven step by step")
      .def(py::init<std::shared_ptr<PyModel>, const std::optional<State>&, const py::dict&, bool,
                    const std::vector<std::string>&>(),
           py::arg("model"), py::arg("state") = py::none(), py::arg("options") = py::dict(),
           py::arg("forces") = true, py::arg("actuated") = std::vector<std::string>(),
           "Simulator(model: Model, state: State | None = None, options: dict = {}, forces: "
           "bool = True, actuated: list[str] = [])")
      .def("set_input", &Simulator::set_input, py::arg("name"), py::arg("value"),
           "set_input(name: str, value: float | array (nu,) | None) -> None: joint name's "
           "input from the next evaluation on (None: the scene's force again)")
      .def_property_readonly("inputs", &Simulator::inputs,
                             "inputs: dict[str, ndarray | None], the inputs by joint name")
      .def("step", &Simulator::step, py::arg("n") = 1,
           "step(n: int = 1) -> bool: n accepted steps; True while the run can go on")
      .def("advance_to", &Simulator::advance_to, py::arg("t"),
           "advance_to(t: float) -> bool: steps until the time reaches t")
      .def_property_readonly("t", &Simulator::time, "t: float, the time reached")
      .def_property_readonly("running", &Simulator::running,
                             "running: bool, False once finished or failed")
      .def_property_readonly("state", &Simulator::state,
                             "state: State, the joint coordinates reached (a copy)")
      .def_property_readonly("info", &Simulator::info, "info: dict, status and message")
      .def_property_readonly("model", &Simulator::model, "model: Model")
      .def("samples", &Simulator::samples,
           "samples() -> (list[str], ndarray, dict): the samples so far");
  m.def("_describe", &describe_model, py::arg("model"),
        "_describe(model: Model) -> dict (appell.describe() returns it)");
  m.def("_set_values", &parse_set_values, py::arg("pointer"), py::arg("text"),
        "_set_values(pointer: str, text: str) -> list[str]\n\nThe values, as JSON texts, of a "
        "command line's --set POINTER=TEXT (a:b:n or "
        "v1,v2,...)");
}

}  // namespace appell::python
