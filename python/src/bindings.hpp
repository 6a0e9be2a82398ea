// The Python module appell._appell (pybind11): what its files share.
//
// A Python Model is a PyModel: the constant C++ Model (shared, so that sweeps on worker
// threads and Python objects hold the same one), the run settings its scene gave, and,
// when it came from a scene, the scene's text and overrides, from which a Dask worker
// rebuilds it (and a pickled Model is rebuilt: appell/__init__.py).
#pragma once

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "appell/appell.hpp"
#include "appell/overrides.hpp"
#include "appell/state_space.hpp"
#include "appell/trajectory.hpp"
#include "appell/tree.hpp"

namespace appell::python {

namespace py = pybind11;

struct PyModel {
  std::shared_ptr<const Model> model;
  Settings settings;
  std::string text, file;           // the scene it came from; empty when built in code
  std::vector<Override> overrides;  // applied to that scene
  bool callables = false;           // holds Python callables (cannot go to Dask)
};

// One per file: model.cpp, callables.cpp, forward.cpp, simulate.cpp, sweep.cpp.
void bind_model(py::module_& m);
void bind_callables(py::module_& m);
void bind_forward(py::module_& m);
void bind_simulate(py::module_& m);
void bind_sweep(py::module_& m);
void bind_stepping(py::module_& m);  // stepping.cpp: Simulator, _describe, _set_values
void bind_dynamics(py::module_& m);  // dynamics.cpp: mass matrix, RNEA, Jacobians, batches
// derivatives.cpp: exact derivatives of the dynamics, linearize
void bind_derivatives(py::module_& m);

// the model's SimulationOptions (its scene's settings) changed by keyword arguments:
// formulation, integrator, duration, dt, rtol, atol, every, stabilization; throws
// std::invalid_argument naming an unknown keyword or a bad value
SimulationOptions make_options(const PyModel& m, const py::dict& kwargs);
// The argument checks every function taking a Model and a State shares: the Model (not
// None), and a State it can start from: the model's nq and nu, q and u finite, no
// quaternion zero; else std::invalid_argument naming `caller` and the joint.
const Model& model_of(const std::shared_ptr<PyModel>& pm);
void check_state(const Model& m, const State& s, const char* caller = "State");
// `name` when a scene could use it for a `what` (body, constraint): the scene loader's
// rule (scenes/reader.hpp name_problem()); else throws std::invalid_argument
const std::string& checked_name(const std::string& name, const char* function, const char* what);
// a body of the model by name or index ("world" or −1 for the ground)
int body_ref(const ModelBuilder& b, const py::object& ref);
// a (rows × 3) array of Vec3s, and body states as numpy arrays (nbody × 3, nbody × 3 × 3)
py::array_t<double> body_positions(const BodyState* bodies, int n);
py::dict body_arrays(const BodyState* bodies, int n, double t);
// a run's energy and violation figures (appell/trajectory.hpp RunSummary) into d
void add_run_summary(py::dict& d, const RunSummary& s);
// a numpy copy of a std::vector<double> shaped rows × cols
py::array_t<double> as_array(const std::vector<double>& v, size_t rows, size_t cols);

}  // namespace appell::python
