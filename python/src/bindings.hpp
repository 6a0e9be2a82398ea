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

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "appell/appell.hpp"
#include "appell/integrators.hpp"
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
  std::string origin;               // `file` made absolute when loaded: what a pickle names
  std::vector<Override> overrides;  // applied to that scene
  bool callables = false;           // holds Python callables (cannot go to Dask)
};

// One Python object's methods one at a time, for objects whose methods change them with
// the GIL released (a Simulator's steps) or while Python forces of the model run (they
// give the GIL up, so other Python threads run meanwhile): without it two Python threads
// could step one Simulator at once and corrupt it.  hold() waits for the lock without the
// GIL (its holder may need the GIL back, for a Python force), then takes the GIL again; a
// call that would wait for its own thread (a Python force of the run calling back into the
// object that runs it) raises RuntimeError instead of deadlocking.  Call it with the GIL.
class ObjectLock {
 public:
  class Held {
   public:
    explicit Held(ObjectLock* l) : l_(l) {}
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;
    ~Held() {
      l_->owner_.store(std::thread::id());
      l_->mutex_.unlock();
    }

   private:
    ObjectLock* l_;
  };
  // the lock until the returned Held goes; `what` names the method in the RuntimeError
  Held hold(const char* what) {
    if (owner_.load() == std::this_thread::get_id())
      throw std::runtime_error(std::string(what) +
                               ": called from inside this object's own run (a Python force or "
                               "constraint of the model calling back into it)");
    if (!mutex_.try_lock()) {
      py::gil_scoped_release release;
      mutex_.lock();
    }
    owner_.store(std::this_thread::get_id());
    return Held(this);
  }

 private:
  std::mutex mutex_;
  std::atomic<std::thread::id> owner_{};
};

// `value` as float64 numbers: a Python or numpy real number (any integer or floating dtype;
// a 0-d array is one number) or a 1-D array or sequence of them.  Complex values raise
// TypeError (their imaginary part would be lost), as do booleans, strings and objects;
// `what` names the argument ("set_input(): value").  More than one dimension: ValueError.
Eigen::VectorXd real_vector(const py::handle& value, const std::string& what);

// "'a', 'b', 'c'" for an error that lists what a name could have been (the first 40, then
// how many in all); "none" when there are none
std::string name_list(const std::vector<std::string>& names);
// the names of the model's bodies; of its spanning tree's joints (a floating body's free
// joint by the body's name, as describe() and linearize() name it)
std::vector<std::string> body_names(const Model& m);
std::vector<std::string> tree_joint_names(const Model& m);

// One per file: model.cpp, callables.cpp, forward.cpp, simulate.cpp, sweep.cpp.
void bind_model(py::module_& m);
void bind_builder(py::module_& m);  // builder.cpp: ModelBuilder (bind_model calls it)
// describe.cpp: the model as lists of dicts (bodies, joints, constraints, forces)
py::dict describe_model(const PyModel& pm);
void bind_callables(py::module_& m);
void bind_forward(py::module_& m);
void bind_simulate(py::module_& m);
void bind_sweep(py::module_& m);
void bind_stepping(py::module_& m);  // stepping.cpp: Simulator, _describe, _set_values
void bind_dynamics(py::module_& m);  // dynamics.cpp: mass matrix, RNEA, Jacobians, batches
// derivatives.cpp: exact derivatives of the dynamics, linearize
void bind_derivatives(py::module_& m);
void bind_lagrangian(py::module_& m);  // lagrangian.cpp: Lagrangian systems in quasi-velocities

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
