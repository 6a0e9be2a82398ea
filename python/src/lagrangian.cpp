// Lagrangian systems in the user's quasi-velocities (appell/lagrangian.hpp,
// docs/lagrangian.md): load one, evaluate both forms at a state, integrate (q, ν).
#include <cmath>
#include <functional>

#include "appell/integrators.hpp"
#include "appell/lagrangian_run.hpp"
#include "appell/lagrangian_scene.hpp"
#include "appell/rigid_quasi_velocities.hpp"
#include "python/src/bindings.hpp"

namespace appell::python {

namespace {

struct PyLagrangian {
  LagrangianScene scene;
};

struct PyRigidNu {
  RigidNuScene scene;
};

// what both kinds of system report after an evaluation (appell/lagrangian.hpp)
py::dict nu_dict(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                 const LagrangianData& d) {
  py::dict out;
  out["t"] = t;
  out["q"] = q;
  out["qd"] = qd;
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
  return out;
}

// the run's settings with the call's, checked
LagrangianRun run_settings(LagrangianRun r, const py::object& duration, const py::object& dt,
                           const py::object& method, const std::string& caller) {
  if (!duration.is_none()) r.duration = duration.cast<double>();
  if (!dt.is_none()) r.dt = dt.cast<double>();
  if (!method.is_none()) r.method = method.cast<std::string>();
  if (!(r.duration >= 0) || !std::isfinite(r.duration))
    throw std::invalid_argument(caller + "(): duration must be finite and >= 0");
  if (!(r.dt > 0) || !std::isfinite(r.dt))
    throw std::invalid_argument(caller + "(): dt must be finite and > 0");
  const IntegratorInfo* in = find_integrator(r.method);
  if (!in || !in->quasi_velocities)
    throw std::invalid_argument(caller + "(): method must be " + integrator_names(true) +
                                ", got '" + r.method + "'");
  if (r.duration / r.dt > 1e7)
    throw std::invalid_argument(caller + "(): duration / dt is over 1e7 steps");
  return r;
}

// a run's samples as arrays (one row a sample)
py::dict run_dict(
    const std::function<LagrangianRunResult(const std::function<void(const LagrangianSample&)>&)>&
        integrate,
    int nq, int n, int k) {
  std::vector<double> t, energy, vp, vv;
  std::vector<Eigen::VectorXd> q, qd, nu;
  LagrangianRunResult res;
  {
    py::gil_scoped_release release;
    res = integrate([&](const LagrangianSample& x) {
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
  out["q"] = stack(q, nq);
  out["qd"] = stack(qd, n);
  out["nu"] = stack(nu, k);
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
  py::dict out = nu_dict(t, x.q, x.qd, d);
  out["lagrangian"] = d.L;
  out["energy"] = d.energy;
  return out;
}

py::dict run(const PyLagrangian& p, const py::object& duration, const py::object& dt,
             const py::object& method) {
  const LagrangianRun r = run_settings(p.scene.run, duration, dt, method, "lagrangian_simulate");
  const LagrangianSystem& s = p.scene.system;
  return run_dict(
      [&](const auto& sample) { return integrate_lagrangian(s, p.scene.initial, r, sample); },
      s.n(), s.n(), s.dof());
}

// (q, u) of the call, else the scene's; sizes checked
State rigid_state_of(const PyRigidNu& p, const py::object& q, const py::object& u, double t) {
  State x = p.scene.initial;
  x.t = t;
  auto take = [&](const py::object& o, Eigen::VectorXd& v, const char* name, Eigen::Index n) {
    if (o.is_none()) return;
    v = o.cast<Eigen::VectorXd>();
    if (v.size() != n)
      throw std::invalid_argument(std::string("rigid_nu_eval(): ") + name + " has " +
                                  std::to_string(v.size()) + " entries, expected " +
                                  std::to_string(n));
    if (!v.allFinite())
      throw std::invalid_argument(std::string("rigid_nu_eval(): ") + name + " is not finite");
  };
  take(q, x.q, "q", p.scene.system.nq());
  take(u, x.u, "u", p.scene.system.n());
  if (!std::isfinite(t)) throw std::invalid_argument("rigid_nu_eval(): t is not finite");
  return x;
}

py::dict rigid_evaluate(const PyRigidNu& p, const py::object& q, const py::object& u, double t) {
  const RigidNuSystem& s = p.scene.system;
  const State x = rigid_state_of(p, q, u, t);
  RigidNuData d(s);
  LagrangianStatus st;
  {
    py::gil_scoped_release release;
    st = evaluate_rigid_nu(s, x, d);
  }
  if (st != LagrangianStatus::Ok)
    throw std::invalid_argument("rigid_nu_eval(): at t = " + std::to_string(t) + ": " +
                                d.r.message);
  const double scale = 1.0 + x.u.cwiseAbs().maxCoeff();
  if (s.m() > 0 && d.r.r.cwiseAbs().maxCoeff() > 1e-9 * scale)
    throw std::invalid_argument(
        "rigid_nu_eval(): the velocities do not satisfy the constraints (largest residual " +
        std::to_string(d.r.r.cwiseAbs().maxCoeff()) + ")");
  py::dict out = nu_dict(t, x.q, x.u, d.r);
  out["energy"] = d.energy;
  return out;
}

py::dict rigid_run(const PyRigidNu& p, const py::object& duration, const py::object& dt,
                   const py::object& method) {
  const LagrangianRun r = run_settings(p.scene.run, duration, dt, method, "rigid_nu_simulate");
  const RigidNuSystem& s = p.scene.system;
  return run_dict(
      [&](const auto& sample) { return integrate_rigid_nu(s, p.scene.initial, r, sample); }, s.nq(),
      s.n(), s.dof());
}

// LagrangianSystem and its functions
void bind_lagrangian_systems(py::module_& m) {
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

// scenes of bodies with "quasi_velocities" (appell/rigid_quasi_velocities.hpp)
void bind_rigid_nu_systems(py::module_& m) {
  py::class_<PyRigidNu, std::shared_ptr<PyRigidNu>>(
      m, "RigidNuSystem",
      "A scene of bodies in the quasi-velocities it chooses (docs/lagrangian.md, \"Rigid-body "
      "scenes in your quasi-velocities\"); from load_rigid_nu() or load_rigid_nu_from_string().")
      .def_property_readonly(
          "coordinates", [](const PyRigidNu& p) { return p.scene.system.q_names; },
          "coordinates -> list[str]: the names of the tree's joint coordinates q")
      .def_property_readonly(
          "velocities", [](const PyRigidNu& p) { return p.scene.system.u_names; },
          "velocities -> list[str]: the names of the tree's joint velocities u")
      .def_property_readonly(
          "quasi_velocities",
          [](const PyRigidNu& p) {
            std::vector<std::string> out;
            for (const SceneQuasiVelocity& q : p.scene.system.quasi_velocities)
              out.push_back(q.name);
            return out;
          },
          "quasi_velocities -> list[str]: the names of ν, in order")
      .def_property_readonly(
          "constraints", [](const PyRigidNu& p) { return p.scene.system.row_names; },
          "constraints -> list[str]: the names of the constraint rows kept")
      .def_property_readonly(
          "q0", [](const PyRigidNu& p) { return p.scene.initial.q; },
          "q0 -> array (nq,): the initial joint coordinates")
      .def_property_readonly(
          "u0", [](const PyRigidNu& p) { return p.scene.initial.u; },
          "u0 -> array (nu,): the initial joint velocities (projected onto the rows)");
  m.def(
      "load_rigid_nu",
      [](const std::string& path) {
        return std::make_shared<PyRigidNu>(PyRigidNu{load_rigid_nu_scene(path)});
      },
      py::arg("path"),
      "load_rigid_nu(path: str) -> RigidNuSystem\n\nA scene of bodies with a top-level "
      "\"quasi_velocities\" (raises SceneError with the located message).");
  m.def(
      "load_rigid_nu_from_string",
      [](const std::string& text, const std::string& file) {
        return std::make_shared<PyRigidNu>(PyRigidNu{load_rigid_nu_scene_from_string(text, file)});
      },
      py::arg("text"), py::arg("file") = "<scene>",
      "load_rigid_nu_from_string(text: str, file: str = '<scene>') -> RigidNuSystem");
  m.def("rigid_nu_eval", &rigid_evaluate, py::arg("system"), py::arg("q") = py::none(),
        py::arg("u") = py::none(), py::arg("t") = 0.0,
        "rigid_nu_eval(system: RigidNuSystem, q: array | None, u: array | None, t: float = 0) "
        "-> dict\n\nBoth forms at (t, q, u) (the scene's state by default; u must satisfy the "
        "constraints), as lagrangian_eval: nu, nudot, hessian (Yᵀ M Y), F_nu, Y, y (u = Y nu + "
        "y), mass_matrix, f, qdd (u̇), multipliers, constraint_forces, qdd_gauss, nudot_gauss, "
        "energy.");
  m.def("rigid_nu_simulate", &rigid_run, py::arg("system"), py::arg("duration") = py::none(),
        py::arg("dt") = py::none(), py::arg("method") = py::none(),
        "rigid_nu_simulate(system: RigidNuSystem, duration: float | None, dt: float | None, "
        "method: str | None) -> dict\n\nIntegrates (q, nu) as lagrangian_simulate does (qd: "
        "the joint velocities u).");
}

}  // namespace

void bind_lagrangian(py::module_& m) {
  bind_lagrangian_systems(m);
  bind_rigid_nu_systems(m);
}

}  // namespace appell::python
