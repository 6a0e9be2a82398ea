// Sweeps in Python: many runs on the C++ thread pool (appell/sweep.hpp), the GIL released
// while they run; `progress(done, total)` is called on the calling thread, with the GIL,
// about ten times a second (appell/__init__.py draws a bar with it), and Ctrl-C cancels
// the runs not yet started.  When worker threads cannot start the runs go on on those that
// did (or on the calling thread) with a RuntimeWarning; the interpreter never aborts.
#include <limits>
#include <thread>

#include "python/src/bindings.hpp"

namespace appell::python {

namespace {

// one outcome as plain Python objects: what a Dask worker returns, too
py::dict outcome_of(const Model& m, const SweepOutcome& o) {
  py::dict d;
  const SimulationResult& r = o.result;
  const RunSummary& s = o.summary;
  d["ran"] = o.ran;
  d["status"] = o.ran ? simulation_status_name(r.status) : "cancelled";
  d["message"] = r.message;
  d["t"] = r.t;
  d["steps"] = r.steps;
  d["rhs_evaluations"] = r.rhs_evaluations;
  add_run_summary(d, s);
  // x y z vx vy vz per body at the last sample (NaN when the run stopped before one)
  std::vector<double> fin(6 * m.nbody(), std::numeric_limits<double>::quiet_NaN());
  for (size_t b = 0; b < s.final_bodies.size(); ++b)
    for (int k = 0; k < 6; ++k)
      fin[6 * b + k] = k < 3 ? s.final_bodies[b].x(k) : s.final_bodies[b].v(k - 3);
  d["final"] = as_array(fin, m.nbody(), 6);
  if (o.trajectory) {
    const Trajectory& t = *o.trajectory;
    d["columns"] = t.columns();
    d["traj_columns"] = t.traj_columns();
    d["values"] = as_array(t.values(), t.rows(), t.cols());
  }
  return d;
}

py::list run_sweep(const std::vector<std::shared_ptr<PyModel>>& models,
                   const std::vector<std::optional<State>>& states, const py::list& options,
                   int threads, bool record, bool forces, const py::object& progress) {
  if (models.size() != states.size() || models.size() != options.size())
    throw std::invalid_argument("sweep(): models, states and options differ in length");
  std::vector<SweepRun> runs;
  runs.reserve(models.size());
  for (size_t i = 0; i < models.size(); ++i) {
    const Model& model = model_of(models[i]);
    if (states[i]) check_state(model, *states[i], "sweep()");
    runs.push_back({models[i]->model, states[i], make_options(*models[i], options[i])});
  }
  SweepOptions so;
  so.threads = threads;
  so.record = record;
  so.forces = forces;
  so.progress = [&progress](size_t done, size_t total) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!progress.is_none()) progress(done, total);
    return true;
  };
  // threads that cannot start (a process or memory limit): the runs go on on the others,
  // with a RuntimeWarning
  so.fewer_threads = [](int started, int wanted, const std::string& why) {
    py::gil_scoped_acquire gil;
    const std::string note = "sweep(): " + std::to_string(started) + " of " +
                             std::to_string(wanted) + " worker threads could start (" + why +
                             "); the runs go on " +
                             (started > 0 ? "on those" : "on the calling thread");
    if (PyErr_WarnEx(PyExc_RuntimeWarning, note.c_str(), 1) != 0) throw py::error_already_set();
  };
  // A model with Python callables takes the GIL at every evaluation from a worker thread.
  // pybind11 gives a thread without a Python thread state a new one at each acquisition
  // and deletes it at each release, which made 2 threads slower than 1; each worker keeps
  // one thread state for its life instead (the callbacks then only take and drop the GIL).
  bool callables = false;
  for (const auto& pm : models) callables |= pm->callables;
  if (callables)
    so.start_thread = [](std::function<void()> job) {
      return std::thread([job = std::move(job)] {
        {
          py::gil_scoped_acquire gil;
          gil.inc_ref();  // kept past this scope: the GIL is dropped, the thread state stays
        }
        job();
        py::gil_scoped_acquire gil;
        gil.dec_ref();  // with the destructor's: the thread state is deleted
      });
    };
  std::vector<SweepOutcome> out;
  {
    py::gil_scoped_release release;
    out = sweep(runs, so);
  }
  py::list result;
  for (size_t i = 0; i < out.size(); ++i) result.append(outcome_of(*runs[i].model, out[i]));
  return result;
}

}  // namespace

void bind_sweep(py::module_& m) {
  m.def("sweep", &run_sweep, py::arg("models"), py::arg("states"), py::arg("options"),
        py::arg("threads") = 0, py::arg("record") = false, py::arg("forces") = true,
        py::arg("progress") = py::none(),
        "sweep(models: list[Model], states: list[State | None], options: list[dict], threads: "
        "int = 0, record: bool = False, forces: bool = True, progress: Callable | None = None) "
        "-> list[dict]\n\nRuns models[i] from states[i] (None: its initial state) with options[i] "
        "(a dict of "
        "keyword options) on a pool of threads; a list of per-run dicts.");
  m.def(
      "hardware_threads", [] { return static_cast<int>(std::thread::hardware_concurrency()); },
      "hardware_threads() -> int: the number of threads sweep(threads=0) uses");
}

}  // namespace appell::python
