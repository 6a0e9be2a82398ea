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
#include "appell/state_space.hpp"
#include "python/src/bindings.hpp"
#include "python/src/contact_table.hpp"

namespace appell::python {

namespace {

// A Simulation with its model kept alive and its samples recorded as simulate() records them.
class Simulator {
 public:
  Simulator(std::shared_ptr<PyModel> pm, const std::optional<State>& state, const py::dict& kw,
            bool forces)
      : pm_(std::move(pm)),
        sim_(*pm_->model, make_options(*pm_, kw)),
        traj_(*pm_->model, forces),
        space_(make_state_space(*pm_->model, solver_of(sim_))),
        data_(*pm_->model) {
    if (state) check_state(*pm_->model, *state);
    py::gil_scoped_release release;
    if (state)
      sim_.start(*state, observer());
    else
      sim_.start(observer());
  }

  // n accepted steps (fewer when the run finishes or fails); true while it can go on
  bool step(long n) {
    if (n < 0) throw std::invalid_argument("step(): n must be >= 0, got " + std::to_string(n));
    py::gil_scoped_release release;
    for (long k = 0; k < n && sim_.running(); ++k) sim_.step(observer());
    return sim_.running();
  }

  // steps until the time reaches t (or the run ends)
  bool advance_to(double t) {
    py::gil_scoped_release release;
    while (sim_.running() && sim_.time() < t) sim_.step(observer());
    return sim_.running();
  }

  double time() const { return sim_.time(); }
  bool running() const { return sim_.running(); }

  // the joint coordinates of the state reached (a copy)
  State state() {
    space_->to_maximal(sim_.state(), sim_.time(), data_);
    State s = state_from_bodies(*pm_->model, data_.body);
    s.t = sim_.time();
    return s;
  }

  py::dict info() const {
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
    if (sim_.method() == "moreau") {  // the summary's contact figures, as simulate()'s
      i["impacts"] = r.impacts;
      i["max_penetration"] = r.max_penetration;
      i["contact_iterations"] = r.contact_iterations;
      i["contact_residual"] = r.contact_residual;
    }
    return i;
  }

  py::tuple samples() const {
    return py::make_tuple(traj_.columns(), as_array(traj_.values(), traj_.rows(), traj_.cols()),
                          info());
  }

  const std::shared_ptr<PyModel>& model() const { return pm_; }

 private:
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
  Simulation sim_;
  Trajectory traj_;
  RunSummary summary_;
  ContactTable contacts_;              // the samples' contact rows (Result.contacts)
  std::unique_ptr<StateSpace> space_;  // to read the state x in joint coordinates
  Data data_;
};

py::array_t<double> matrix(const Mat3& m) {
  py::array_t<double> a({3, 3});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a.mutable_at(i, j) = m(i, j);
  return a;
}

std::string body_name(const Model& m, int b) {
  return b == kWorld ? "world" : m.bodies()[static_cast<size_t>(b)].name;
}

// the model as lists of dicts: bodies, joints (the spanning tree's, with their coordinates),
// constraints, forces
py::dict describe(const PyModel& pm) {
  const Model& m = *pm.model;
  py::list bodies, joints, constraints, forces;
  for (const Body& b : m.bodies()) {
    py::dict d;
    d["name"] = b.name;
    d["type"] = b.rigid() ? "rigid" : "particle";
    d["rigid"] = b.rigid();
    d["mass"] = b.mass;
    d["inertia"] = matrix(b.inertia);
    d["position"] = b.position;
    d["orientation"] =
        Eigen::Vector4d(b.orientation.w(), b.orientation.x(), b.orientation.y(), b.orientation.z());
    d["velocity"] = b.velocity;
    d["angular_velocity"] = b.angular_velocity;
    bodies.append(d);
  }
  for (const TreeJoint& j : m.tree().joints) {
    py::dict d;
    d["name"] = j.constraint >= 0 ? m.constraints()[static_cast<size_t>(j.constraint)]->name()
                                  : std::string();
    d["type"] = j.type->name();
    d["nq"] = j.nq;
    d["nu"] = j.nu;
    d["q_offset"] = j.q_offset;
    d["u_offset"] = j.u_offset;
    d["parent"] = body_name(m, j.parent_body);
    d["child"] = body_name(m, j.body);
    joints.append(d);
  }
  for (const ConstraintPtr& c : m.constraints()) {
    py::dict d;
    d["name"] = c->name();
    d["type"] = c->type();
    d["rows"] = c->rows();
    py::list names;
    for (int b : c->bodies()) names.append(body_name(m, b));
    d["bodies"] = names;
    constraints.append(d);
  }
  for (const ForcePtr& f : m.forces()) {
    py::dict d;
    d["type"] = f->type();
    forces.append(d);
  }
  py::dict out;
  out["name"] = m.name();
  out["gravity"] = m.gravity();
  out["bodies"] = bodies;
  out["joints"] = joints;
  out["constraints"] = constraints;
  out["forces"] = forces;
  return out;
}

}  // namespace

void bind_stepping(py::module_& m) {
  py::class_<Simulator>(m, "Simulator",
                        "The C++ half of appell.Simulator: a run driven step by step")
      .def(py::init<std::shared_ptr<PyModel>, const std::optional<State>&, const py::dict&, bool>(),
           py::arg("model"), py::arg("state") = py::none(), py::arg("options") = py::dict(),
           py::arg("forces") = true,
           "Simulator(model: Model, state: State | None = None, options: dict = {}, forces: "
           "bool = True)")
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
  m.def("_describe", &describe, py::arg("model"),
        "_describe(model: Model) -> dict (appell.describe() returns it)");
  m.def("_set_values", &parse_set_values, py::arg("pointer"), py::arg("text"),
        "_set_values(pointer: str, text: str) -> list[str]\n\nThe values, as JSON texts, of a "
        "command line's --set POINTER=TEXT (a:b:n or "
        "v1,v2,...)");
}

}  // namespace appell::python
