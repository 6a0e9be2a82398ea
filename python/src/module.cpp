// appell._appell: the compiled half of the Python package `appell` (python/appell/).
//
// Errors: appell::SceneError becomes appell.SceneError (a ValueError) with the same
// located message and its parts as attributes (file, pointer, message);
// std::invalid_argument becomes ValueError (pybind11's translation).
#include "python/src/bindings.hpp"

namespace appell::python {

namespace {

void register_scene_error(py::module_& m) {
  static py::handle type = PyErr_NewExceptionWithDoc(
      "appell.SceneError",
      "A scene that cannot be loaded: str() is 'FILE: /json/pointer: what is wrong'; the "
      "attributes file, pointer and message give the parts.",
      PyExc_ValueError, nullptr);
  m.attr("SceneError") = type;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const SceneError& e) {
      py::object err = py::reinterpret_borrow<py::object>(type)(e.what());
      err.attr("file") = e.file();
      err.attr("pointer") = e.pointer();
      err.attr("message") = e.message();
      PyErr_SetObject(type.ptr(), err.ptr());
    }
  });
}

}  // namespace

}  // namespace appell::python

PYBIND11_MODULE(_appell, m) {
  using namespace appell::python;
  m.doc() = "appell: constrained multibody dynamics from Gauss's principle (C++ core)";
  // help() shows the signatures the docstrings write (types in words: "array (nu,)"), not
  // pybind11's generated ones ("numpy.ndarray[numpy.float64[m, 1]]")
  py::options options;
  options.disable_function_signatures();
  register_scene_error(m);
  bind_model(m);
  bind_callables(m);
  bind_forward(m);
  bind_simulate(m);
  bind_sweep(m);
  bind_stepping(m);
  bind_dynamics(m);
  bind_derivatives(m);
  bind_lagrangian(m);
}
