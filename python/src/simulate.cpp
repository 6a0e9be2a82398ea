// Simulations in Python: options by keyword, the samples as columns, observers.
//
//   cols, values, info = appell._appell.simulate(model, state, observer, forces, {"duration": 2})
//
// (appell/__init__.py wraps it into appell.simulate() returning an appell.Result.)  The
// GIL is released while the C++ integrator runs; an observer takes it back at every
// output instant, and Ctrl-C is honoured about ten times a second.
#include <chrono>

#include "python/src/bindings.hpp"
#include "python/src/contact_table.hpp"

namespace appell::python {

py::array_t<double> as_array(const std::vector<double>& v, size_t rows, size_t cols) {
  py::array_t<double> a({rows, cols});
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

namespace {

Stabilization stabilization_of(const py::handle& v) {
  Stabilization s;
  const py::dict d = py::isinstance<py::dict>(v) ? v.cast<py::dict>() : py::dict();
  const std::string type = py::isinstance<py::str>(v) ? v.cast<std::string>()
                           : d.contains("type")       ? d["type"].cast<std::string>()
                                                      : "";
  if (type == "none") return s;
  if (type == "projection")
    s.type = Stabilization::Type::Projection;
  else if (type == "baumgarte") {
    s.type = Stabilization::Type::Baumgarte;
    s.alpha = d.contains("alpha") ? d["alpha"].cast<double>() : 0.0;
    s.beta = d.contains("beta") ? d["beta"].cast<double>() : 0.0;
  } else {
    throw std::invalid_argument(
        "stabilization: expected 'none', 'projection' or {'type': 'baumgarte', 'alpha': .., "
        "'beta': ..}");
  }
  return s;
}

}  // namespace

SimulationOptions make_options(const PyModel& pm, const py::dict& kw) {
  SimulationOptions o = SimulationOptions::from_settings(pm.settings);
  for (const auto& [key, value] : kw) {
    const std::string k = key.cast<std::string>();
    if (value.is_none()) continue;
    if (k == "formulation") {
      const std::string f = value.cast<std::string>();
      if (!parse_formulation(f, o.formulation))
        throw std::invalid_argument("formulation: unknown formulation '" + f + "'; expected " +
                                    formulation_names());
    } else if (k == "integrator") {
      o.integrator.method = value.cast<std::string>();
    } else if (k == "duration") {
      o.integrator.duration = value.cast<double>();
    } else if (k == "dt") {
      o.integrator.dt = value.cast<double>();
    } else if (k == "rtol") {
      o.integrator.rtol = value.cast<double>();
    } else if (k == "atol") {
      o.integrator.atol = value.cast<double>();
    } else if (k == "every") {
      o.every = value.cast<int>();
    } else if (k == "stabilization") {
      o.stabilization = stabilization_of(value);
    } else {
      throw std::invalid_argument("unknown option '" + k +
                                  "'; expected formulation, integrator, duration, dt, rtol, "
                                  "atol, every or stabilization");
    }
  }
  return o;
}

void add_run_summary(py::dict& d, const RunSummary& s) {
  d["energy_initial"] = s.energy_initial;
  d["energy_final"] = s.energy_final;
  d["max_abs_energy_drift"] = s.max_abs_energy_drift;
  d["violation_position_max"] = s.violation_position_max;
  d["violation_velocity_max"] = s.violation_velocity_max;
}

namespace {

py::dict info_of(const SimulationResult& r, const RunSummary& s, const Simulation& sim) {
  py::dict i;
  i["status"] = simulation_status_name(r.status);
  i["message"] = r.message;
  i["t"] = r.t;
  i["steps"] = r.steps;
  i["rejected_steps"] = r.rejected_steps;
  i["rhs_evaluations"] = r.rhs_evaluations;
  i["samples"] = r.samples;
  i["initial_velocity_correction"] = r.initial_velocity_correction;
  i["wall_seconds"] = r.wall_seconds;
  if (find_integrator(sim.method())->unilateral) {  // the summary's contact figures
    i["impacts"] = r.impacts;
    i["max_penetration"] = r.max_penetration;
    i["contact_iterations"] = r.contact_iterations;
    i["contact_residual"] = r.contact_residual;
  }
  i["formulation"] = formulation_name(sim.state_space().formulation());
  add_run_summary(i, s);
  return i;
}

// what a Python observer sees at one output instant
py::dict sample_of(const Model& m, const Sample& s) {
  py::dict d = body_arrays(s.data.body.data(), m.nbody(), s.t);
  d["index"] = s.index;
  d["energy"] = s.energy;
  d["kinetic_energy"] = s.kinetic_energy;
  d["potential_energy"] = s.potential_energy;
  d["violation_position"] = s.violation_position;
  d["violation_velocity"] = s.violation_velocity;
  d["udot"] = s.data.udot;
  d["multipliers"] = s.data.lambda;
  return d;
}

py::tuple simulate(const std::shared_ptr<PyModel>& pm, const std::optional<State>& state,
                   const py::object& observer, bool forces, const py::dict& kw) {
  const Model& m = model_of(pm);
  if (state) check_state(m, *state, "simulate()");
  SimulationOptions o = make_options(*pm, kw);
  // Ctrl-C: the GIL, briefly, about ten times a second
  using Clock = std::chrono::steady_clock;
  Clock::time_point last = Clock::now();
  o.progress = [&last](double) {
    if (Clock::now() - last < std::chrono::milliseconds(100)) return;
    last = Clock::now();
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  };
  Simulation sim(m, o);
  Trajectory tr(m, forces);
  RunSummary summary;
  ContactTable contacts;
  SimulationResult r;
  {
    py::gil_scoped_release release;
    r = sim.run(state ? *state : m.initial_state(), [&](const Sample& s) {
      tr.record(s);
      summary.record(s);
      contacts.record(s);
      if (observer.is_none()) return;
      py::gil_scoped_acquire gil;
      observer(sample_of(m, s));
    });
  }
  check_figures(summary, r);  // as `appell simulate` and sweeps judge a run
  py::dict info = info_of(r, summary, sim);
  info["traj_columns"] = tr.traj_columns();
  info["contacts"] = contacts.to_dict(m);
  return py::make_tuple(tr.columns(), as_array(tr.values(), tr.rows(), tr.cols()), info);
}

}  // namespace

void bind_simulate(py::module_& m) {
  m.def("simulate", &simulate, py::arg("model"), py::arg("state") = py::none(),
        py::arg("observer") = py::none(), py::arg("forces") = true, py::arg("options") = py::dict(),
        "simulate(model: Model, state: State | None, observer: Callable | None, forces: bool, "
        "options: dict) -> (list[str], ndarray, dict)\n\nOne simulation: (column names, "
        "samples x columns array, info dict); appell.simulate() wraps it in a Result.");
  m.def(
      "options",
      [](const std::shared_ptr<PyModel>& pm, const py::dict& kw) {
        model_of(pm);
        const SimulationOptions o = make_options(*pm, kw);
        py::dict d;
        d["formulation"] = formulation_name(o.formulation);
        d["integrator"] = o.integrator.method;
        d["duration"] = o.integrator.duration;
        d["dt"] = o.integrator.dt;
        d["rtol"] = o.integrator.rtol;
        d["atol"] = o.integrator.atol;
        d["every"] = o.every;
        return d;
      },
      py::arg("model"), py::arg("options") = py::dict(),
      "options(model: Model, options: dict = {}) -> dict\n\nThe run settings a simulation of "
      "this model would use with these options.");
}

}  // namespace appell::python
