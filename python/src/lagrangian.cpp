// Lagrangian systems in the user's quasi-velocities (appell/lagrangian.hpp,
// docs/lagrangian.md): load one, evaluate both forms at a state, integrate (q, ν).
#include <cmath>

#include "appell/lagrangian_run.hpp"
#include "appell/lagrangian_scene.hpp"
#include "python/src/bindings.hpp"

namespace appell::python {

namespace {

struct PyLagrangian {
  LagrangianScene scene;
};

std::vector<std::string> row_names(const std::vector<LagrangianRow>& rows) {
  std::vector<std::string> out;
  for (const LagrangianRow& r : rows) out.push_back(r.name);
  return out;
}

// (q, q̇) of the call, else the scene's; sizes checked
LagrangianState state_of(const PyLagrangian& p, const py::object& q, const py::object& qd,
                         double t) {
  LagrangianState x = p.scene.initial;
  x.t = t;
  const int n = p.scene.system.n();
  auto take = [&](const py::object& o, Eigen::VectorXd& v, const char* name) {
    if (o.is_none()) return;
    v = o.cast<Eigen::VectorXd>();
    if (v.size() != n)
      throw std::invalid_argument(std::string("lagrangian_eval(): ") + name + " has " +
                                  std::to_string(v.size()) +
                                  " entries, expected n = " + std::to_string(n));
    if (!v.allFinite())
      throw std::invalid_argument(std::string("lagrangian_eval(): ") + name + " is not finite");
  };
  take(q, x.q, "q");
  take(qd, x.qd, "qd");
  if (!std::isfinite(t)) throw std::invalid_argument("lagrangian_eval(): t is not finite");
  return x;
}

py::dict evaluate(const PyLagrangian& p, const py::object& q, const py::object& qd, double t) {
  const LagrangianSystem& s = p.scene.system;
  const LagrangianState x = state_of(p, q, qd, t);
  LagrangianData d(s);
  LagrangianStatus st;
  {
    py::gil_scoped_release release;
    st = evaluate_lagrangian(s, x, d);
  }
  if (st != LagrangianStatus::Ok)
    throw std::invalid_argument("lagrangian_eval(): at t = " + std::to_string(t) + ": " +
                                d.message);
  // the rows at the state: a state off the constraint set is refused
  const double scale = 1.0 + x.qd.cwiseAbs().maxCoeff();
  if (s.m() > 0 && d.r.cwiseAbs().maxCoeff() > 1e-9 * scale)
    throw std::invalid_argument(
        "lagrangian_eval(): the rates do not satisfy the constraints (largest residual " +
        std::to_string(d.r.cwiseAbs().maxCoeff()) + ")");
  py::dict out;
  out["t"] = t;
  out["q"] = x.q;
  out["qd"] = x.qd;
  out["qdd"] = d.qdd;
  out["nu"] = d.nu;
  out["nudot"] = d.nudot;
  out["hessian"] = d.H;
  out["F_nu"] = d.F_nu;
  out["Y"] = d.Y;
  out["y"] = d.y;
  out["mass_matrix"] = d.M;
  out["f"] = d.f;
  out["multipliers"] = d.lambda;
  out["constraint_forces"] = d.Qc;
  out["qdd_gauss"] = d.qdd_gauss;
  out["nudot_gauss"] = d.nudot_gauss;
  out["lagrangian"] = d.L;
  out["energy"] = d.energy;
  return out;
}

py::dict run(const PyLagrangian& p, const py::object& duration, const py::object& dt,
             const py::object& method) {
  LagrangianRun r = p.scene.run;
  if (!duration.is_none()) r.duration = duration.cast<double>();
  if (!dt.is_none()) r.dt = dt.cast<double>();
  if (!method.is_none()) r.method = method.cast<std::string>();
  if (!(r.duration >= 0) || !std::isfinite(r.duration))
    throw std::invalid_argument("lagrangian_simulate(): duration must be finite and >= 0");
  if (!(r.dt > 0) || !std::isfinite(r.dt))
    throw std::invalid_argument("lagrangian_simulate(): dt must be finite and > 0");
  if (r.method != "rk4" && r.method != "dopri5")
    throw std::invalid_argument("lagrangian_simulate(): method must be rk4 or dopri5, got '" +
                                r.method + "'");
  if (r.duration / r.dt > 1e7)
    throw std::invalid_argument("lagrangian_simulate(): duration / dt is over 1e7 steps");
  const LagrangianSystem& s = p.scene.system;
  std::vector<double> t, energy, vp, vv;
  std::vector<Eigen::VectorXd> q, qd, nu;
  LagrangianRunResult res;
  {
    py::gil_scoped_release release;
    res = integrate_lagrangian(s, p.scene.initial, r, [&](const LagrangianSample& x) {
      t.push_back(x.t);
      q.push_back(x.q);
      qd.push_back(x.qd);
      nu.push_back(x.nu);
      energy.push_back(x.energy);
      vp.push_back(x.violation_position);
      vv.push_back(x.violation_velocity);
    });
  }
  auto column = [](const std::vector<double>& v) {  // a copy: pybind11 returns no Map
    return Eigen::VectorXd(
        Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size())));
  };
  auto stack = [](const std::vector<Eigen::VectorXd>& rows, int cols) {
    Eigen::MatrixXd m(static_cast<Eigen::Index>(rows.size()), cols);
    for (size_t i = 0; i < rows.size(); ++i) m.row(static_cast<Eigen::Index>(i)) = rows[i];
    return m;
  };
  py::dict out;
  out["t"] = column(t);
  out["q"] = stack(q, s.n());
  out["qd"] = stack(qd, s.n());
  out["nu"] = stack(nu, s.dof());
  out["energy"] = column(energy);
  out["violation_position"] = column(vp);
  out["violation_velocity"] = column(vv);
  out["ok"] = res.ok;
  out["message"] = res.message;
  out["failed_at"] = res.ok ? py::object(py::none()) : py::object(py::float_(res.failed_at));
  out["steps"] = res.steps;
  out["rhs_evaluations"] = res.rhs_evaluations;
  return out;
}

}  // namespace

void bind_lagrangian(py::module_& m) {
  py::class_<PyLagrangian, std::shared_ptr<PyLagrangian>>(
      m, "LagrangianSystem",
      "A system given by its Lagrangian, in the quasi-velocities its scene chooses "
      "(docs/lagrangian.md); from load_lagrangian() or load_lagrangian_from_string().")
      .def_property_readonly(
          "coordinates", [](const PyLagrangian& p) { return p.scene.system.coordinates; },
          "coordinates -> list[str]: the names of q, in order")
      .def_property_readonly(
          "quasi_velocities",
          [](const PyLagrangian& p) { return row_names(p.scene.system.quasi_velocities); },
          "quasi_velocities -> list[str]: the names of ν, in order")
      .def_property_readonly(
          "constraints",
          [](const PyLagrangian& p) { return row_names(p.scene.system.constraints); },
          "constraints -> list[str]: the names of the constraint rows")
      .def_property_readonly(
          "q0", [](const PyLagrangian& p) { return p.scene.initial.q; },
          "q0 -> array (n,): the scene's initial coordinates")
      .def_property_readonly(
          "qd0", [](const PyLagrangian& p) { return p.scene.initial.qd; },
          "qd0 -> array (n,): the scene's initial rates");
  m.def(
      "load_lagrangian",
      [](const std::string& path) {
        return std::make_shared<PyLagrangian>(PyLagrangian{load_lagrangian_scene(path)});
      },
      py::arg("path"),
      "load_lagrangian(path: str) -> LagrangianSystem\n\nA scene file with a top-level "
      "\"lagrangian\" (raises SceneError with the located message).");
  m.def(
      "load_lagrangian_from_string",
      [](const std::string& text, const std::string& file) {
        return std::make_shared<PyLagrangian>(
            PyLagrangian{load_lagrangian_scene_from_string(text, file)});
      },
      py::arg("text"), py::arg("file") = "<scene>",
      "load_lagrangian_from_string(text: str, file: str = '<scene>') -> LagrangianSystem\n\n"
      "The same from the scene's JSON text.");
  m.def("lagrangian_eval", &evaluate, py::arg("system"), py::arg("q") = py::none(),
        py::arg("qd") = py::none(), py::arg("t") = 0.0,
        "lagrangian_eval(system: LagrangianSystem, q: array | None, qd: array | None, t: float "
        "= 0) -> dict\n\nBoth forms at (t, q, qd) (the scene's state by default; qd must "
        "satisfy the constraints): nu, nudot, hessian (Yᵀ M Y), F_nu, Y, y (qd = Y nu + y), "
        "mass_matrix, f, qdd, multipliers, constraint_forces, qdd_gauss, nudot_gauss, "
        "lagrangian, energy.");
  m.def("lagrangian_simulate", &run, py::arg("system"), py::arg("duration") = py::none(),
        py::arg("dt") = py::none(), py::arg("method") = py::none(),
        "lagrangian_simulate(system: LagrangianSystem, duration: float | None, dt: float | "
        "None, method: str | None) -> dict\n\nIntegrates (q, nu) from the scene's state (its "
        "integrator settings unless given): t, q, qd, nu (one row a sample), energy, "
        "violation_position, violation_velocity, ok, message, failed_at, steps, "
        "rhs_evaluations.  A numerical failure ends the run with ok False and the samples "
        "before it.");
}

}  // namespace appell::python
