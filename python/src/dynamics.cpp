// Joint-space dynamics in Python, in the joint coordinates of a State (q, u), as a
// Pinocchio or MuJoCo user expects them (appell/jacobians.hpp, appell/inverse_dynamics.hpp):
//
//   M = appell.mass_matrix(model, s)                 # (nu, nu), ½ uᵀ M u = kinetic energy
//   tau = appell.inverse_dynamics(model, s, udot)    # RNEA: M u̇ + C u − Q_applied
//   h = appell.bias_forces(model, s)                 # inverse_dynamics with u̇ = 0
//   J = appell.jacobian(model, s, "arm", point)      # (6, nu): (v_point; ω) = J u
//   udot = appell.forward_dynamics(model, s, tau)    # joint u̇ with joint forces added
//   UDOT, ok = appell.forward_batch(model, Q, U, TAU)   # many states, all cores, no GIL
#include <Eigen/QR>
#include <algorithm>
#include <thread>

#include "appell/inverse_dynamics.hpp"
#include "appell/jacobians.hpp"
#include "python/src/bindings.hpp"

namespace appell::python {

namespace {

using Vec = Eigen::VectorXd;

const Vec& sized(const Vec& v, long n, const char* caller, const char* what) {
  if (v.size() != n)
    throw std::invalid_argument(std::string(caller) + ": " + what + " has " +
                                std::to_string(v.size()) +
                                " entries, expected nu = " + std::to_string(n));
  return v;
}

int body_of(const Model& m, const py::object& ref) {
  if (py::isinstance<py::int_>(ref)) {
    const int i = ref.cast<int>();
    if (i < 0 || i >= m.nbody())
      throw std::invalid_argument("jacobian(): no body " + std::to_string(i) + " (there are " +
                                  std::to_string(m.nbody()) + ")");
    return i;
  }
  const std::string name = ref.cast<std::string>();
  for (int i = 0; i < m.nbody(); ++i)
    if (m.bodies()[i].name == name) return i;
  throw std::invalid_argument("jacobian(): no body named '" + name +
                              "'; bodies: " + name_list(body_names(m)));
}

Eigen::MatrixXd mass(const std::shared_ptr<PyModel>& pm, const State& s) {
  const Model& m = model_of(pm);
  check_state(m, s, "mass_matrix()");
  Data d(m);
  Eigen::MatrixXd M;
  py::gil_scoped_release release;  // a model's Python forces are not evaluated here
  mass_matrix(m, d, s, M);
  return M;
}

Vec inverse(const std::shared_ptr<PyModel>& pm, const State& s, const Vec& udot) {
  const Model& m = model_of(pm);
  check_state(m, s, "inverse_dynamics()");
  sized(udot, m.tree().nu, "inverse_dynamics()", "udot");
  Data d(m);
  Vec tau;
  py::gil_scoped_release release;  // Python forces take it back when they run
  inverse_dynamics(m, d, s, udot, tau);
  return tau;
}

Vec bias(const std::shared_ptr<PyModel>& pm, const State& s) {
  return inverse(pm, s, Vec::Zero(model_of(pm).tree().nu));
}

py::dict inverse_constrained(const std::shared_ptr<PyModel>& pm, const State& s, const Vec& udot,
                             const std::optional<std::vector<std::string>>& actuated) {
  const Model& m = model_of(pm);
  check_state(m, s, "inverse_dynamics_constrained()");
  sized(udot, m.tree().nu, "inverse_dynamics_constrained()", "udot");
  std::vector<int> idx;
  if (actuated)
    for (const std::string& name : *actuated) {
      const TreeModel& tree = m.tree();
      int found = -1;
      for (size_t j = 0; j < tree.joints.size(); ++j) {
        const int c = tree.joints[j].constraint;
        if (c >= 0 && m.constraints()[c]->name() == name) found = static_cast<int>(j);
      }
      if (found < 0)
        throw std::invalid_argument("inverse_dynamics_constrained(): no joint of the tree named '" +
                                    name + "'; joints: " + name_list(tree_joint_names(m)));
      idx.push_back(found);
    }
  Data d(m);
  ConstrainedInverse r;
  {
    py::gil_scoped_release release;
    r = inverse_dynamics_constrained(m, d, s, udot, idx);
  }
  py::dict out;
  out["tau"] = r.tau;
  out["tau_tree"] = r.tau_tree;
  out["multipliers"] = r.lambda;
  out["A"] = r.A;
  out["b"] = r.b;
  out["constraint_residual"] = r.constraint_residual;
  out["force_residual"] = r.force_residual;
  return out;
}

Eigen::MatrixXd jacobian(const std::shared_ptr<PyModel>& pm, const State& s, const py::object& body,
                         const std::optional<Vec3>& point) {
  const Model& m = model_of(pm);
  check_state(m, s, "jacobian()");
  const int b = body_of(m, body);
  Data d(m);
  Eigen::MatrixXd J;
  py::gil_scoped_release release;
  Vec3 p;
  if (point) {
    p = *point;
  } else {  // the centre of mass at s
    set_state(m, d, s);
    p = d.body[b].x;
  }
  body_jacobian(m, d, s, b, p, J);
  return J;
}

const char* status_name(SolveStatus s) {
  return s == SolveStatus::Ok             ? "ok"
         : s == SolveStatus::Inconsistent ? "inconsistent"
                                          : "not finite";
}

py::tuple forward_one(const std::shared_ptr<PyModel>& pm, const State& s,
                      const std::optional<Vec>& tau) {
  const Model& m = model_of(pm);
  check_state(m, s, "forward_dynamics()");
  if (tau) sized(*tau, m.tree().nu, "forward_dynamics()", "tau");
  JointForward fd(m);
  Vec udot;
  SolveStatus st;
  {
    py::gil_scoped_release release;
    st = fd(s, tau ? *tau : Vec(), udot);
  }
  return py::make_tuple(udot, status_name(st));
}

// the extra rows (the constraints beyond the spanning tree: loops, rolling, prescribed
// motion) by name, in the order of A's rows: "name" for a one-row constraint, else
// "name[i]"
std::vector<std::string> extra_row_names(const Model& m) {
  std::vector<std::string> names;
  for (int c : m.tree().extra) {
    const Constraint& k = *m.constraints()[c];
    for (int i = 0; i < k.rows(); ++i)
      names.push_back(k.rows() == 1 ? k.name() : k.name() + "[" + std::to_string(i) + "]");
  }
  return names;
}

py::tuple constraint_jacobian(const std::shared_ptr<PyModel>& pm, const State& s) {
  const Model& m = model_of(pm);
  check_state(m, s, "constraint_jacobian()");
  Data d(m);
  ConstrainedInverse r;
  {
    py::gil_scoped_release release;  // Python forces take it back when they run
    r = inverse_dynamics_constrained(m, d, s, Vec::Zero(m.tree().nu));
  }
  return py::make_tuple(r.A, extra_row_names(m));
}

// The constraint forces at a state: the motion u̇ of forward_dynamics, then the
// multipliers λ of the extra rows from the constrained equation of motion
//   M u̇ + b(q, u) − τ = A_Tᵀ λ      (appell/inverse_dynamics.hpp N6, τ the joint forces
// added), solved in the least-squares, minimum-norm sense (redundant rows share the force;
// A_Tᵀ λ is unique).
py::dict constraint_forces(const std::shared_ptr<PyModel>& pm, const State& s,
                           const std::optional<Vec>& tau) {
  const Model& m = model_of(pm);
  check_state(m, s, "constraint_forces()");
  const long nu = m.tree().nu;
  if (tau) sized(*tau, nu, "constraint_forces()", "tau");
  JointForward fd(m);
  Data d(m);
  Vec udot, rhs, lambda;
  SolveStatus st;
  ConstrainedInverse r;
  {
    py::gil_scoped_release release;
    st = fd(s, tau ? *tau : Vec(), udot);
    r = inverse_dynamics_constrained(m, d, s, udot);
    rhs = tau ? Vec(r.tau_tree - *tau) : r.tau_tree;
    lambda = r.A.rows() ? Vec(r.A.transpose().completeOrthogonalDecomposition().solve(rhs)) : Vec();
  }
  const Vec force = r.A.rows() ? Vec(r.A.transpose() * lambda) : Vec(Vec::Zero(nu));
  py::dict out;
  out["udot"] = udot;
  out["status"] = status_name(st);
  out["rows"] = extra_row_names(m);
  out["multipliers"] = lambda;
  out["force"] = force;
  out["J"] = r.A;
  out["rhs"] = r.b;
  out["residual"] = nu ? (force - rhs).cwiseAbs().maxCoeff() : 0.0;
  return out;
}

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

Array rows_of(const py::object& a, long rows, long cols, const char* what) {
  Array arr = Array::ensure(a);
  if (!arr || arr.ndim() != 2 || arr.shape(0) != rows || arr.shape(1) != cols)
    throw std::invalid_argument("forward_batch(): " + std::string(what) +
                                " must be an array of shape (" + std::to_string(rows) + ", " +
                                std::to_string(cols) + ")");
  return arr;
}

py::tuple forward_batch(const std::shared_ptr<PyModel>& pm, const py::object& Qo,
                        const py::object& Uo, const py::object& TAUo, const py::object& To,
                        int threads) {
  const Model& m = model_of(pm);
  const long nq = m.tree().nq, nu = m.tree().nu;
  Array Q0 = Array::ensure(Qo);
  if (!Q0 || Q0.ndim() != 2)
    throw std::invalid_argument(
        "forward_batch(): Q must be an array of shape (N, nq = " + std::to_string(nq) + ")");
  const long n = Q0.shape(0);
  const Array Q = rows_of(Qo, n, nq, "Q");
  const Array U = rows_of(Uo, n, nu, "U");
  const bool with_tau = !TAUo.is_none();
  const Array TAU = with_tau ? rows_of(TAUo, n, nu, "TAU") : Array();
  std::vector<double> times(n, 0.0);
  if (!To.is_none()) {
    if (py::isinstance<py::float_>(To) || py::isinstance<py::int_>(To)) {
      std::fill(times.begin(), times.end(), To.cast<double>());
    } else {
      const Array T = Array::ensure(To);
      if (!T || T.ndim() != 1 || T.shape(0) != n)
        throw std::invalid_argument("forward_batch(): t must be a number or an array of N = " +
                                    std::to_string(n) + " times");
      std::copy(T.data(), T.data() + n, times.begin());
    }
  }
  if (threads < 0) throw std::invalid_argument("forward_batch(): threads must be >= 0");
  // every state is checked first (with the GIL), so no worker throws on bad input
  std::vector<State> states(n);
  for (long i = 0; i < n; ++i) {
    states[i].t = times[i];
    states[i].q = Eigen::Map<const Vec>(Q.data(i, 0), nq);
    states[i].u = Eigen::Map<const Vec>(U.data(i, 0), nu);
    check_state(m, states[i], "forward_batch()");
  }
  py::array_t<double> UDOT({n, nu});
  py::array_t<bool> OK(n);
  double* out = UDOT.mutable_data();
  bool* ok = OK.mutable_data();
  const double* tau = with_tau ? TAU.data() : nullptr;
  int workers = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  // a model with Python callables runs them under the GIL: one thread does as well
  if (pm->callables) workers = 1;
  workers = static_cast<int>(std::max(1L, std::min<long>(std::max(workers, 1), n)));
  std::vector<std::exception_ptr> errors(workers);
  auto work = [&](int w) {
    try {
      JointForward fd(m);
      Vec udot, t;
      for (long i = w; i < n; i += workers) {  // interleaved: neighbours cost alike
        if (tau) t = Eigen::Map<const Vec>(tau + i * nu, nu);
        const SolveStatus st = fd(states[i], tau ? t : Vec(), udot);
        std::copy(udot.data(), udot.data() + nu, out + i * nu);
        ok[i] = st == SolveStatus::Ok;
      }
    } catch (...) {
      errors[w] = std::current_exception();
    }
  };
  {
    py::gil_scoped_release release;
    std::vector<std::thread> pool;
    for (int w = 1; w < workers; ++w) {
      try {
        pool.emplace_back(work, w);
      } catch (const std::system_error&) {
        // a thread that cannot start: its share runs here
        work(w);
      }
    }
    work(0);
    for (std::thread& th : pool) th.join();
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return py::make_tuple(UDOT, OK);
}

}  // namespace

void bind_dynamics(py::module_& m) {
  m.def("mass_matrix", &mass, py::arg("model"), py::arg("state"),
        "mass_matrix(model: Model, state: State) -> ndarray (nu, nu)\n\n"
        "The joint-space mass matrix M(q) at the state's q (u is not read), in the joint "
        "coordinates of the model's spanning tree: symmetric, 0.5 * u @ M @ u is the kinetic "
        "energy.  Pinocchio's crba, MuJoCo's mj_fullM.");
  m.def("inverse_dynamics", &inverse, py::arg("model"), py::arg("state"), py::arg("udot"),
        "inverse_dynamics(model: Model, state: State, udot: array (nu,)) -> ndarray (nu,)\n\n"
        "Recursive Newton-Euler: tau = M(q) udot + C(q, u) u - Q_applied(q, u, t), the joint "
        "forces that, added to the model's own forces (gravity, springs, actuators, Python "
        "forces), produce the joint accelerations udot.  Constraints beyond the tree (loops) "
        "are ignored: see inverse_dynamics_constrained.  Pinocchio's rnea, MuJoCo's "
        "mj_inverse (qfrc_inverse).");
  m.def("bias_forces", &bias, py::arg("model"), py::arg("state"),
        "bias_forces(model: Model, state: State) -> ndarray (nu,)\n\n"
        "inverse_dynamics(model, state, 0): C(q, u) u - Q_applied, the Coriolis, centrifugal "
        "and gyroscopic terms less every applied force (gravity included).  Pinocchio's "
        "nonLinearEffects when gravity is the only force; MuJoCo's qfrc_bias when there are "
        "no other forces.");
  m.def("inverse_dynamics_constrained", &inverse_constrained, py::arg("model"), py::arg("state"),
        py::arg("udot"), py::arg("actuated") = py::none(),
        "inverse_dynamics_constrained(model: Model, state: State, udot: array (nu,), "
        "actuated: list[str] | None = None) -> dict\n\n"
        "The joint forces producing udot with the constraints beyond the tree (loops, "
        "prescribed motion) holding: tau (nu; the minimum-norm one when actuated is None, "
        "else nonzero only at the named joints), tau_tree (M udot + C u - Q_applied), "
        "multipliers (the extra rows' lambda), A and b (the extra rows A udot = b in joint "
        "coordinates), constraint_residual (max |A udot - b|) and force_residual (nonzero "
        "when the actuated joints cannot produce the motion).");
  m.def("jacobian", &jacobian, py::arg("model"), py::arg("state"), py::arg("body"),
        py::arg("point") = py::none(),
        "jacobian(model: Model, state: State, body: str | int, point: array (3,) | None = None)"
        " -> ndarray (6, nu)\n\n"
        "The body Jacobian at the state's q: rows 0-2 map the joint velocities u to the "
        "world-frame velocity of the world point `point` moving with the body (default its "
        "centre of mass), rows 3-5 to the body's angular velocity (world frame; zero for a "
        "particle).  MuJoCo's mj_jac (jacp; jacr); Pinocchio's getFrameJacobian with "
        "LOCAL_WORLD_ALIGNED (linear rows first).");
  m.def("forward_dynamics", &forward_one, py::arg("model"), py::arg("state"),
        py::arg("tau") = py::none(),
        "forward_dynamics(model: Model, state: State, tau: array (nu,) | None = None) -> "
        "(udot: ndarray (nu,), status: str)\n\n"
        "The joint accelerations at the state (the recursive formulation; the constraints "
        "beyond the tree hold), with the joint forces tau added to the model's own forces.  "
        "status: 'ok', 'inconsistent' or 'not finite'.  Pinocchio's aba, MuJoCo's mj_forward "
        "(qacc).");
  m.def("constraint_jacobian", &constraint_jacobian, py::arg("model"), py::arg("state"),
        "constraint_jacobian(model: Model, state: State) -> (J: ndarray (rows, nu), rows: "
        "list[str])\n\n"
        "The Jacobian of the constraints beyond the spanning tree (loop closures, rolling and "
        "other nonholonomic rows, prescribed motion) in joint coordinates at the state's q: "
        "the rows read J @ udot = rhs (constraint_forces gives rhs), and J @ u = 0 on the "
        "manifold for constraints that do not depend on time.  rows names each row: the "
        "constraint's name, with [i] for a constraint of several rows.  A tree has no rows "
        "(shape (0, nu)).  Pinocchio's getConstraintsJacobian; MuJoCo's efc_J (in joint "
        "coordinates, equality rows).");
  m.def("constraint_forces", &constraint_forces, py::arg("model"), py::arg("state"),
        py::arg("tau") = py::none(),
        "constraint_forces(model: Model, state: State, tau: array (nu,) | None = None) -> dict"
        "\n\nThe constraint forces at the state with the joint forces tau added: udot and "
        "status (forward_dynamics), J, rows and rhs (constraint_jacobian, J @ udot = rhs), "
        "multipliers (lambda, one per row) and force = J.T @ lambda (nu), the generalized "
        "constraint force, with M @ udot + bias_forces - tau = J.T @ lambda; residual is "
        "max |J.T @ lambda - (M udot + bias - tau)| (0 up to rounding for ideal constraints). "
        "Redundant rows (a planar loop) share the force: lambda is the minimum-norm one, "
        "force is unique.  Constraints of the tree (its joints) are not among the rows.");
  m.def("forward_batch", &forward_batch, py::arg("model"), py::arg("Q"), py::arg("U"),
        py::arg("TAU") = py::none(), py::arg("t") = py::none(), py::arg("threads") = 0,
        "forward_batch(model: Model, Q: array (N, nq), U: array (N, nu), TAU: array (N, nu) | "
        "None = None, t: float | array (N,) | None = None, threads: int = 0) -> "
        "(UDOT: ndarray (N, nu), ok: ndarray (N,) bool)\n\n"
        "forward_dynamics for N states at once on `threads` threads (0: every core) with the "
        "GIL released; row i equals forward_dynamics(model, State(t[i], Q[i], U[i]), TAU[i]) "
        "bit for bit.  A model with Python callables runs on one thread.");
}

}  // namespace appell::python
