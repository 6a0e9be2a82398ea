// Exact derivatives of the joint-space dynamics and the linear model about a state, in
// Python (appell/derivatives.hpp, docs/derivatives.md):
//
//   dtau_dq, dtau_du, M = appell.inverse_dynamics_derivatives(model, s, udot)
//   dudot_dq, dudot_du, Minv = appell.forward_dynamics_derivatives(model, s, tau)
//   c = appell.constrained_dynamics_derivatives(model, s, tau)  # dict: udot, lambda, ...
//   lin = appell.linearize(model, s, inputs=["rail"])   # dict: A, B, eigenvalues, ...
//
// Derivatives in q are along the tangent space (nu columns), as Pinocchio's.  The GIL is
// kept: the forces these functions evaluate may be Python callables.
#include "appell/derivatives.hpp"

#include <pybind11/complex.h>

#include <Eigen/Eigenvalues>

#include "python/src/bindings.hpp"

namespace appell::python {

namespace {

using Vec = Eigen::VectorXd;

std::string tree_joint_name(const Model& m, const TreeJoint& t) {
  return t.constraint >= 0 ? m.constraints()[t.constraint]->name() : m.bodies()[t.body].name;
}

py::tuple inverse_derivatives(const std::shared_ptr<PyModel>& pm, const State& s, const Vec& udot) {
  const Model& m = model_of(pm);
  check_state(m, s, "inverse_dynamics_derivatives()");
  if (udot.size() != m.tree().nu)
    throw std::invalid_argument("inverse_dynamics_derivatives(): udot has " +
                                std::to_string(udot.size()) +
                                " entries, expected nu = " + std::to_string(m.tree().nu));
  Data d(m);
  InverseDerivatives r;
  inverse_dynamics_derivatives(m, d, s, udot, r);
  return py::make_tuple(r.dtau_dq, r.dtau_du, r.M);
}

py::tuple forward_derivatives(const std::shared_ptr<PyModel>& pm, const State& s,
                              const std::optional<Vec>& tau) {
  const Model& m = model_of(pm);
  check_state(m, s, "forward_dynamics_derivatives()");
  if (tau && tau->size() != m.tree().nu)
    throw std::invalid_argument("forward_dynamics_derivatives(): tau has " +
                                std::to_string(tau->size()) +
                                " entries, expected nu = " + std::to_string(m.tree().nu));
  Data d(m);
  ForwardDerivatives r;
  forward_dynamics_derivatives(m, d, s, tau ? *tau : Vec(), r);
  return py::make_tuple(r.dudot_dq, r.dudot_du, r.dudot_dtau);
}

py::dict constrained_derivatives(const std::shared_ptr<PyModel>& pm, const State& s,
                                 const std::optional<Vec>& tau) {
  const Model& m = model_of(pm);
  check_state(m, s, "constrained_dynamics_derivatives()");
  if (tau && tau->size() != m.tree().nu)
    throw std::invalid_argument("constrained_dynamics_derivatives(): tau has " +
                                std::to_string(tau->size()) +
                                " entries, expected nu = " + std::to_string(m.tree().nu));
  Data d(m);
  ForwardDerivatives r;
  forward_dynamics_derivatives(m, d, s, tau ? *tau : Vec(), r);
  py::dict out;
  out["udot"] = r.udot;
  out["dudot_dq"] = r.dudot_dq;
  out["dudot_du"] = r.dudot_du;
  out["dudot_dtau"] = r.dudot_dtau;
  out["A"] = r.A;
  out["lambda"] = r.lambda;
  out["dlambda_dq"] = r.dlambda_dq;
  out["dlambda_du"] = r.dlambda_du;
  out["dlambda_dtau"] = r.dlambda_dtau;
  out["dpi_dq"] = r.dpi_dq;
  return out;
}

py::dict linear_model(const std::shared_ptr<PyModel>& pm, const std::optional<State>& state,
                      const std::optional<std::vector<std::string>>& inputs) {
  const Model& m = model_of(pm);
  State s = state ? *state : m.initial_state();
  check_state(m, s, "linearize()");
  // The constraint manifold, as `appell linearize` checks it (cli/linearize.cpp): the
  // holonomic rows must hold at s (initial_conditions(), tolerance 1e-6), else ValueError
  // with its message.  The model's own initial state is taken as a run starts from it
  // (velocities projected); a given state's velocities are linearize()'s to check.  A
  // model where nothing moves (nu = 0) has neither.
  if (m.tree().nu > 0) {
    Data d0(m);
    InitialConditions start;
    if (initial_conditions(m, d0, s, SolverOptions{}, &start) == SolveStatus::Inconsistent &&
        !start.projected)
      throw std::invalid_argument("linearize(): " + d0.diagnostics.message);
    if (!state && start.projected) s = start.state;
  }
  const TreeModel& tree = m.tree();
  std::vector<std::string> names(tree.nu);
  for (const TreeJoint& t : tree.joints)
    for (int k = 0; k < t.nu; ++k)
      names[t.u_offset + k] =
          tree_joint_name(m, t) + (t.nu > 1 ? "[" + std::to_string(k) + "]" : "");
  std::vector<int> columns;
  std::vector<std::string> input_names;
  if (inputs) {
    for (const std::string& name : *inputs) {
      int found = -1;
      for (size_t j = 0; j < tree.joints.size(); ++j)
        if (tree_joint_name(m, tree.joints[j]) == name) found = static_cast<int>(j);
      if (found < 0)
        throw std::invalid_argument("linearize(): no joint of the tree named '" + name +
                                    "'; joints: " + name_list(tree_joint_names(m)));
      const TreeJoint& t = tree.joints[found];
      for (int k = 0; k < t.nu; ++k) {
        columns.push_back(t.u_offset + k);
        input_names.push_back(names[t.u_offset + k]);
      }
    }
  } else {
    for (int k = 0; k < tree.nu; ++k) columns.push_back(k), input_names.push_back(names[k]);
  }
  const LinearModel lm = linearize(m, s, columns);
  Eigen::VectorXcd lam;
  if (lm.A.size() > 0) lam = modes(lm).values;
  py::dict out;
  out["A"] = lm.A;
  out["B"] = lm.B;
  out["eigenvalues"] = lam;
  out["coordinates"] = names;
  std::vector<std::string> ci, vi;
  for (int k : lm.coordinates) ci.push_back(names[k]);
  for (int k : lm.velocities) vi.push_back(names[k]);
  out["independent_coordinates"] = ci;
  out["independent_velocities"] = vi;
  out["inputs"] = input_names;
  out["exact"] = lm.exact;
  out["note"] = lm.note;
  out["turn_rate"] = lm.turn_rate;
  return out;
}

}  // namespace

void bind_derivatives(py::module_& m) {
  m.def("inverse_dynamics_derivatives", &inverse_derivatives, py::arg("model"), py::arg("state"),
        py::arg("udot"),
        "inverse_dynamics_derivatives(model: Model, state: State, udot: array (nu,)) -> "
        "(dtau_dq: ndarray (nu, nu), dtau_du: ndarray (nu, nu), M: ndarray (nu, nu))\n\n"
        "Exact derivatives of inverse_dynamics (forward-mode automatic differentiation "
        "through the recursion): dtau_dq along the tangent space (one column per "
        "quasi-velocity, as Pinocchio's computeRNEADerivatives), dtau_du, and dtau/dudot = M. "
        "Covers gravity and joint forces (actuators, PD servos, joint springs and damping); "
        "other forces raise ValueError.");
  m.def("forward_dynamics_derivatives", &forward_derivatives, py::arg("model"), py::arg("state"),
        py::arg("tau") = py::none(),
        "forward_dynamics_derivatives(model: Model, state: State, tau: array (nu,) | None = "
        "None) -> (dudot_dq: ndarray (nu, nu), dudot_du: ndarray (nu, nu), Minv: ndarray "
        "(nu, nu))\n\n"
        "Exact derivatives of forward_dynamics: dudot_dq (tangent space), dudot_du "
        "and dudot/dtau (M^-1 on a tree; Pinocchio's computeABADerivatives).  With "
        "constraint rows beyond the tree, the constrained accelerations' (see "
        "constrained_dynamics_derivatives).  ValueError for forces or rows the derivatives do "
        "not cover.");
  m.def("constrained_dynamics_derivatives", &constrained_derivatives, py::arg("model"),
        py::arg("state"), py::arg("tau") = py::none(),
        "constrained_dynamics_derivatives(model: Model, state: State, tau: array (nu,) | None "
        "= None) -> dict\n\n"
        "The constrained accelerations udot of M udot + h - tau = A^T lambda, A udot = b (the "
        "m rows beyond the tree, in joint space) and their exact derivatives: udot, "
        "dudot_dq, dudot_du, dudot_dtau, A (m, nu), lambda (m), dlambda_dq, dlambda_du, "
        "dlambda_dtau (m, nu) and dpi_dq (m, nu: the rows' velocity residual A u along the "
        "tangent).  On a tree m = 0.  ValueError for forces or rows the derivatives do not "
        "cover (expressions, callables, prescribed motion).");
  m.def("linearize", &linear_model, py::arg("model"), py::arg("state") = py::none(),
        py::arg("inputs") = py::none(),
        "linearize(model: Model, state: State | None = None, inputs: list[str] | None = "
        "None) -> dict\n\n"
        "The linear model xdot = A x + B w about the state (default the model's initial "
        "state, or the steady motion it starts), x = (dq in tangent coordinates about the "
        "reference motion, u - u_ref) (the independent ones with constraints), w the "
        "generalized forces on the input "
        "joints' quasi-velocities (default every tree joint): A (2nu, 2nu), B (2nu, inputs), "
        "eigenvalues of A (complex), coordinates, inputs, exact (False when a force is "
        "differentiated numerically; note says why), independent_coordinates and "
        "independent_velocities (x's coordinates; all of them on a tree, the ones chosen by "
        "coordinate partitioning when the model has constraint rows), turn_rate (the rate of "
        "the steady turn x is taken in, rad/s, 0 if none; docs/derivatives.md).");
}

}  // namespace appell::python
