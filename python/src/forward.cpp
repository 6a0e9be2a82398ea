// The equations of motion at one instant in Python.
//
//   r = appell.forward(model)            # at the scene's t = 0 state, as `appell eval`
//   r = appell.forward(model, state, formulation="pinv")
//   r["accelerations"]["bob"]["linear"], r["forces"]["rod"]["bob"]["force"]
//
// For many calls, a Data keeps the workspace (one forward() allocates one):
//   data = appell.Data(model); data.forward(state); data.udot
#include <chrono>

#include "python/src/bindings.hpp"

namespace appell::python {

namespace {

// a Data with its model kept alive; its methods take `lock` (forward() runs the model's
// Python forces, which give the GIL up to other threads while they run)
struct PyData {
  std::shared_ptr<PyModel> model;
  Data data;
  ObjectLock lock;
  explicit PyData(std::shared_ptr<PyModel> m) : model(std::move(m)), data(*model->model) {}
};

SolverOptions solver_of(const PyModel& pm, const std::optional<std::string>& formulation) {
  SolverOptions o = pm.settings.solver;
  if (formulation && !parse_formulation(*formulation, o.formulation))
    throw std::invalid_argument("forward(): unknown formulation '" + *formulation + "'; expected " +
                                formulation_names());
  return o;
}

const char* status_name(SolveStatus s) {
  return s == SolveStatus::Ok             ? "ok"
         : s == SolveStatus::Inconsistent ? "inconsistent"
                                          : "not finite";
}

// `appell eval`'s state: the model's initial state, velocities projected onto the
// constraints in the mass metric; then the formulation
SolveStatus evaluate(const Model& m, Data& d, const std::optional<State>& s,
                     const SolverOptions& o) {
  if (s) {
    check_state(m, *s, "forward()");
    return forward(m, d, *s, o);
  }
  return initial_conditions(m, d, m.initial_state(), o);
}

// accelerations, multipliers and forces by name, as `appell eval` prints them
py::dict result_of(const Model& m, const Data& d, SolveStatus status, Formulation f) {
  py::dict acc, mult, forces;
  for (int i = 0; i < m.nbody(); ++i) {
    py::dict e;
    const SpatialMotion a = body_acceleration(m, d, i);
    e["linear"] = a.linear;
    if (m.bodies()[i].rigid()) e["angular"] = a.angular;
    acc[py::str(m.bodies()[i].name)] = e;
  }
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const Constraint& con = *m.constraints()[c];
    mult[py::str(con.name())] = Eigen::VectorXd(d.lambda.segment(m.row_offset(c), con.rows()));
    py::dict per;
    for (size_t j = 0; j < con.bodies().size(); ++j) {
      const int b = con.bodies()[j];
      const SpatialForce& w = d.reaction[m.slot_offset(c) + j];
      py::dict fw;
      fw["force"] = w.force;
      if (m.bodies()[b].rigid()) fw["moment"] = w.moment;
      per[py::str(m.bodies()[b].name)] = fw;
    }
    forces[py::str(con.name())] = per;
  }
  py::dict r;
  r["status"] = status_name(status);
  r["message"] = d.diagnostics.message;
  r["formulation"] = formulation_name(resolve_formulation(m, f));
  r["t"] = d.t;
  r["rank"] = d.diagnostics.rank;
  r["dof"] = m.nu() - d.diagnostics.rank;
  r["udot"] = d.udot;
  r["accelerations"] = acc;
  r["multipliers"] = mult;
  r["forces"] = forces;
  return r;
}

void bind_data(py::module_& m) {
  py::class_<PyData>(m, "Data", "The workspace of one model: reuse it for many forward() calls.")
      .def(py::init<std::shared_ptr<PyModel>>(), py::arg("model"),
           "Data(model: Model): a workspace sized for this model")
      .def(
          "forward",
          [](PyData& pd, const State& s, const std::optional<std::string>& formulation) {
            const SolverOptions o = solver_of(*pd.model, formulation);
            const auto held = pd.lock.hold("Data.forward()");
            return status_name(forward(*pd.model->model, pd.data, s, o));
          },
          py::arg("state"), py::arg("formulation") = py::none(),
          "forward(state: State, formulation: str | None = None) -> str\n\n"
          "Evaluates the equations of motion on a State; returns 'ok', 'inconsistent' or "
          "'not finite'.  Then read udot, multipliers, reactions, positions.")
      .def_property_readonly(
          "t",
          [](PyData& pd) {
            const auto held = pd.lock.hold("Data.t");
            return pd.data.t;
          },
          "t: float, the time evaluated")
      .def_property_readonly(
          "udot",
          [](PyData& pd) {
            const auto held = pd.lock.hold("Data.udot");
            return Eigen::VectorXd(pd.data.udot);
          },
          "udot: ndarray, the maximal accelerations per composite body: (dv, dw) (rigid) or dv; "
          "appell.forward_dynamics gives them in joint coordinates")
      .def_property_readonly(
          "multipliers",
          [](PyData& pd) {
            const auto held = pd.lock.hold("Data.multipliers");
            return Eigen::VectorXd(pd.data.lambda);
          },
          "multipliers: ndarray (nrows,), the minimum-norm Lagrange multipliers")
      .def_property_readonly(
          "positions",
          [](PyData& pd) {
            const auto held = pd.lock.hold("Data.positions");
            return body_positions(pd.data.body.data(), pd.data.nbody);
          },
          "positions: ndarray (nbody, 3), the centres of mass, world frame")
      .def_property_readonly(
          "reactions",
          [](PyData& pd) {
            const auto held = pd.lock.hold("Data.reactions");
            const int n = static_cast<int>(pd.data.reaction.size());
            py::array_t<double> a({n, 6});
            auto r = a.mutable_unchecked<2>();
            for (int i = 0; i < n; ++i)
              for (int k = 0; k < 3; ++k) {
                r(i, k) = pd.data.reaction[i].force(k);
                r(i, k + 3) = pd.data.reaction[i].moment(k);
              }
            return a;
          },
          "reactions: ndarray (slots, 6), (force, moment) per constraint per body it names, in "
          "model order")
      .def(
          "result",
          [](PyData& pd) {
            const auto held = pd.lock.hold("Data.result()");
            return result_of(*pd.model->model, pd.data, pd.data.diagnostics.status,
                             pd.model->settings.solver.formulation);
          },
          "result() -> dict: the last forward()'s results by name, as appell.forward() gives them");
}

}  // namespace

void bind_forward(py::module_& m) {
  bind_data(m);
  m.def(
      "_forward_seconds",
      [](const std::shared_ptr<PyModel>& pm, const State& s, int n,
         const std::optional<std::string>& formulation) {
        // the C++ cost of one forward() on a reused Data, for comparing the Python call's
        const Model& model = model_of(pm);
        check_state(model, s, "_forward_seconds()");
        const SolverOptions o = solver_of(*pm, formulation);
        Data d(model);
        py::gil_scoped_release release;
        const auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < n; ++k) forward(model, d, s, o);
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n;
      },
      py::arg("model"), py::arg("state"), py::arg("n"), py::arg("formulation") = py::none(),
      "_forward_seconds(model: Model, state: State, n: int, formulation: str | None = None) -> "
      "float: the mean C++ seconds of one forward() over n calls (python/examples/throughput.py)");
  m.def(
      "forward",
      [](const std::shared_ptr<PyModel>& pm, const std::optional<State>& state,
         const std::optional<std::string>& formulation) {
        const Model& model = model_of(pm);
        const SolverOptions o = solver_of(*pm, formulation);
        Data d(model);
        const SolveStatus s = evaluate(model, d, state, o);
        return result_of(model, d, s, o.formulation);
      },
      py::arg("model"), py::arg("state") = py::none(), py::arg("formulation") = py::none(),
      "forward(model: Model, state: State | None = None, formulation: str | None = None) -> "
      "dict\n\nThe equations of motion at one state (default: the scene's t = 0 state with its "
      "velocities projected onto the constraints, as `appell eval`): a dict with status, "
      "formulation, rank, dof, udot, accelerations {body: {linear, angular}}, multipliers "
      "{constraint: array}, forces {constraint: {body: {force, moment}}}.");
}

}  // namespace appell::python
