// Custom forces and constraint rows as Python callables.
//
// The callable receives the bodies' states as numpy arrays (a dict: t, x (n × 3),
// Q (n × 3 × 3), v (n × 3), w (n × 3), n = the bodies added before it) and returns
//   a force:       an (n × 6) array of [force, moment about the centre of mass] per body,
//                  world frame (or None for nothing), and optionally its potential
//                  energy from a second callable, potential(states) -> float;
//   a constraint:  (lin, ang, b, velocity, position): lin, ang (rows × k × 3) the
//                  canonical-row coefficients ∂π/∂v̄, ∂π/∂ω of its k bodies
//                  (appell/constraint.hpp, C2), b the acceleration right side, velocity π
//                  and position g (holonomic rows, else zeros), each (rows).
//
// Cost: every evaluation of the equations of motion takes the GIL, builds the arrays and
// calls the interpreter: some 10 µs per call against well under 1 µs for a built-in force,
// and a model holding one runs one thread at a time (the GIL) and cannot go to Dask.
#include "python/src/bindings.hpp"

namespace appell::python {

py::array_t<double> body_positions(const BodyState* bodies, int n) {
  py::array_t<double> x({n, 3});
  auto a = x.mutable_unchecked<2>();
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) a(i, k) = bodies[i].x(k);
  return x;
}

py::dict body_arrays(const BodyState* bodies, int n, double t) {
  py::array_t<double> Q({n, 3, 3}), v({n, 3}), w({n, 3});
  auto q = Q.mutable_unchecked<3>();
  auto vv = v.mutable_unchecked<2>();
  auto ww = w.mutable_unchecked<2>();
  for (int i = 0; i < n; ++i)
    for (int r = 0; r < 3; ++r) {
      vv(i, r) = bodies[i].v(r);
      ww(i, r) = bodies[i].w(r);
      for (int c = 0; c < 3; ++c) q(i, r, c) = bodies[i].Q(r, c);
    }
  py::dict d;
  d["t"] = t;
  d["x"] = body_positions(bodies, n);
  d["Q"] = Q;
  d["v"] = v;
  d["w"] = w;
  return d;
}

namespace {

void python_force(const py::function& fn, int n, const StateView& s, SpatialForce* out) {
  py::gil_scoped_acquire gil;
  const py::object r = fn(body_arrays(s.bodies, n, s.t));
  if (r.is_none()) return;
  const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(r);
  if (!a || a.ndim() != 2 || a.shape(0) != n || a.shape(1) != 6)
    throw std::invalid_argument("a Python force must return an array of shape (" +
                                std::to_string(n) + ", 6) or None");
  const auto f = a.unchecked<2>();
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      out[i].force(k) += f(i, k);
      out[i].moment(k) += f(i, k + 3);
    }
}

// a Python force's potential energy: potential(states) -> a finite float
double python_potential(const py::function& fn, int n, const StateView& s) {
  py::gil_scoped_acquire gil;
  const py::object r = fn(body_arrays(s.bodies, n, s.t));
  if (!py::isinstance<py::float_>(r) && !py::isinstance<py::int_>(r) &&
      !py::hasattr(r, "__float__"))
    throw std::invalid_argument("a Python force's potential must return a number");
  return r.cast<double>();
}

// one (rows × k × 3) array, or one (rows) array, of a constraint callable's result
template <int D>
py::detail::unchecked_reference<double, D> part(const py::tuple& r, int i, const char* what,
                                                std::vector<py::array_t<double>>& keep,
                                                std::initializer_list<py::ssize_t> shape) {
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(r[i]);
  bool ok = a && a.ndim() == D;
  size_t k = 0;
  for (py::ssize_t s : shape) ok = ok && a.shape(k++) == s;
  if (!ok) throw std::invalid_argument(std::string("a Python constraint returned a bad ") + what);
  keep.push_back(a);
  return keep.back().template unchecked<D>();
}

void python_rows(const py::function& fn, int n, int rows, const StateView& s, const RowSpan& out) {
  py::gil_scoped_acquire gil;
  const py::object r = fn(body_arrays(s.bodies, n, s.t));
  if (!py::isinstance<py::tuple>(r) || py::len(r) != 5)
    throw std::invalid_argument(
        "a Python constraint must return (lin, ang, b, velocity, position)");
  const py::tuple t = r;
  const py::ssize_t k = out.nbodies;
  std::vector<py::array_t<double>> keep;
  keep.reserve(5);
  const auto lin = part<3>(t, 0, "lin (rows x bodies x 3)", keep, {rows, k, 3});
  const auto ang = part<3>(t, 1, "ang (rows x bodies x 3)", keep, {rows, k, 3});
  const auto b = part<1>(t, 2, "b (rows)", keep, {rows});
  const auto vel = part<1>(t, 3, "velocity (rows)", keep, {rows});
  const auto pos = part<1>(t, 4, "position (rows)", keep, {rows});
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < k; ++j)
      for (int c = 0; c < 3; ++c) {
        out.term(i, j).force(c) = lin(i, j, c);
        out.term(i, j).moment(c) = ang(i, j, c);
      }
    out.b[i] = b(i);
    out.velocity[i] = vel(i);
    out.position[i] = pos(i);
  }
}

}  // namespace

void bind_callables(py::module_& m) {
  auto builder = py::reinterpret_borrow<py::class_<ModelBuilder>>(m.attr("ModelBuilder"));
  builder.def(
      "add_callable_force",
      [](ModelBuilder& b, const py::function& fn, const std::optional<py::function>& potential) {
        const int n = b.nbody();
        CallableForce::PotentialFn V;
        if (potential)
          V = [pot = *potential, n](const StateView& s) { return python_potential(pot, n, s); };
        b.add_force(std::make_shared<CallableForce>(
            [fn, n](const StateView& s, SpatialForce* out) { python_force(fn, n, s, out); },
            std::move(V)));
      },
      py::arg("fn"), py::arg("potential") = py::none(),
      "add_callable_force(fn: Callable[[dict], ndarray | None], potential: Callable[[dict], "
      "float] | None = None) -> None\n\n"
      "A force computed by fn(states) -> an (n, 6) array of [force, moment about the centre "
      "of mass] per body, world frame (n: the bodies added so far), or None.  states is a "
      "dict of arrays: t, x (n, 3), Q (n, 3, 3), v (n, 3), w (n, 3).  potential(states) -> "
      "float, when given, is the force's potential energy V (the force must then be -grad V "
      "plus any dissipation): it is added to the reported energy.  Without it the force "
      "adds no potential energy, so the energy reported by simulate() changes by the work "
      "it does.  Costs the GIL and ~10 us per evaluation.");
  builder.def(
      "add_callable_constraint",
      [](ModelBuilder& b, const std::string& name, const std::vector<py::object>& bodies, int rows,
         bool holonomic, const py::function& fn) {
        std::vector<int> idx;
        for (const py::object& o : bodies) idx.push_back(body_ref(b, o));
        const int n = b.nbody();
        b.add_constraint(std::make_shared<CallableConstraint>(
            checked_name(name, "add_callable_constraint()", "constraint"), idx, rows, holonomic,
            [fn, n, rows](const StateView& s, const RowSpan& out) {
              python_rows(fn, n, rows, s, out);
            }));
      },
      py::arg("name"), py::arg("bodies"), py::arg("rows"), py::arg("holonomic"), py::arg("fn"),
      "add_callable_constraint(name: str, bodies: list[str | int], rows: int, holonomic: "
      "bool, fn: Callable[[dict], tuple]) -> None\n\n"
      "Constraint rows computed by fn(states) -> (lin, ang, b, velocity, position): lin and "
      "ang (rows, k, 3) the coefficients of each of the k bodies' v and w in the velocity "
      "rows, b (rows) the acceleration right side, velocity (rows) the velocity residual, "
      "position (rows) the position residual (zeros for nonholonomic rows); states as for "
      "add_callable_force.  The rows are ideal (workless), so they add no energy.  Costs "
      "the GIL and ~10 us per evaluation.");
}

}  // namespace appell::python
