// Scenes, ModelBuilder, Model and State in Python.
//
//   model = appell.load_model("pendulum.json", overrides={"/bodies/0/mass": 2.0})
//   b = appell.ModelBuilder(); b.gravity = (0, 0, -9.81)
//   bob = b.add_body("bob", mass=1, type="particle", position=(0, 0, -1))
//   b.add_distance("world", "bob", (0, 0, 0), (0, 0, -1)); model = b.compile()
//   s = model.initial_state(); s.u = 2 * s.u
// (ModelBuilder's methods: builder.cpp)
#include <Eigen/Geometry>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "appell/scene_rules.hpp"
#include "appell/tree.hpp"
#include "python/src/bindings.hpp"

namespace appell::python {

int body_ref(const ModelBuilder& b, const py::object& ref) {
  if (py::isinstance<py::int_>(ref)) {
    const int i = ref.cast<int>();
    if (i < kWorld || i >= b.nbody())
      throw std::invalid_argument("no body " + std::to_string(i) + " (there are " +
                                  std::to_string(b.nbody()) + "; -1 is the world)");
    return i;
  }
  const std::string name = ref.cast<std::string>();
  const int i = b.body_index(name);
  if (i < kWorld) throw std::invalid_argument("no body named '" + name + "'");
  return i;
}

const std::string& checked_name(const std::string& name, const char* function, const char* what) {
  const std::string why = name_problem(name, what);
  if (!why.empty()) throw std::invalid_argument(std::string(function) + ": " + why);
  return name;
}

Eigen::VectorXd real_vector(const py::handle& value, const std::string& what) {
  const auto complex_error = [&] {
    return py::type_error(what +
                          ": complex numbers are not accepted (the imaginary part would be "
                          "lost); pass real numbers");
  };
  if (PyComplex_Check(value.ptr())) throw complex_error();
  const py::array a = py::array::ensure(value);  // numpy.asarray(value)
  if (!a) {
    PyErr_Clear();
    throw py::type_error(what + ": expected a number or an array of numbers, got " +
                         std::string(py::str(py::type::handle_of(value).attr("__name__"))));
  }
  const char kind = a.dtype().kind();
  if (kind == 'c') throw complex_error();
  if (kind != 'f' && kind != 'i' && kind != 'u')
    throw py::type_error(what + ": expected real numbers, got an array of dtype " +
                         std::string(py::str(a.dtype())));
  if (a.ndim() > 1)
    throw std::invalid_argument(what + ": expected a number or a 1-D array, got " +
                                std::to_string(a.ndim()) + " dimensions");
  const auto d = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!d) throw py::error_already_set();
  return Eigen::Map<const Eigen::VectorXd>(d.data(), d.size());
}

std::string name_list(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::string out;
  for (size_t i = 0; i < names.size() && i < 40; ++i) out += (i ? ", '" : "'") + names[i] + "'";
  if (names.size() > 40) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

std::vector<std::string> body_names(const Model& m) {
  std::vector<std::string> out;
  for (const Body& b : m.bodies()) out.push_back(b.name);
  return out;
}

std::vector<std::string> tree_joint_names(const Model& m) {
  std::vector<std::string> out;
  for (const TreeJoint& j : m.tree().joints)
    out.push_back(j.constraint >= 0 ? m.constraints()[j.constraint]->name()
                                    : m.bodies()[j.body].name);
  return out;
}

const Model& model_of(const std::shared_ptr<PyModel>& pm) {
  if (!pm) throw std::invalid_argument("a Model is required, got None");
  return *pm->model;
}

void check_state(const Model& m, const State& s, const char* caller) {
  const TreeModel& tree = m.tree();
  if (s.q.size() != tree.nq || s.u.size() != tree.nu)
    throw std::invalid_argument(std::string(caller) +
                                ": the State has nq = " + std::to_string(s.q.size()) +
                                ", nu = " + std::to_string(s.u.size()) +
                                ", expected the model's nq = " + std::to_string(tree.nq) +
                                ", nu = " + std::to_string(tree.nu));
  for (const TreeJoint& j : tree.joints) {
    const std::string who = j.constraint >= 0
                                ? "joint '" + m.constraints()[j.constraint]->name() + "'"
                                : "the free joint of body '" + m.bodies()[j.body].name + "'";
    if (!s.q.segment(j.q_offset, j.nq).allFinite() || !s.u.segment(j.u_offset, j.nu).allFinite())
      throw std::invalid_argument("State: the coordinates of " + who + " are not finite");
    // the quaternion normalize() rescales must not be zero
    const int qo = j.type->quaternion();
    if (qo >= 0 && s.q.segment(j.q_offset + qo, 4).isZero(0.0))
      throw std::invalid_argument("State: the quaternion of " + who +
                                  " is zero; expected a nonzero [w x y z]");
  }
}

namespace {

const char* friction_rule_name(FrictionRule r) {
  return r == FrictionRule::Max ? "max" : "geometric";
}

std::shared_ptr<PyModel> compile_builder(const ModelBuilder& b) {
  auto pm = std::make_shared<PyModel>();
  pm->model = std::make_shared<const Model>(compile(b));
  for (const ForcePtr& f : b.forces()) pm->callables |= f->type() == "callable";
  for (const ConstraintPtr& c : b.constraints()) pm->callables |= c->type() == "callable";
  return pm;
}

// `file` made absolute against the working directory (a scene given as text, "<scene>",
// becomes "<cwd>/<scene>": its includes and meshes resolve in the folder they resolved in)
std::string absolute_path(const std::string& file) {
  if (file.empty() || file[0] == '/') return file;
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::absolute(file, ec);
  return ec ? file : p.lexically_normal().string();
}

// A model from scene text.  `file` names the scene: includes and meshes resolve next to
// it, errors name it, and so does the model when the scene has no "name".  `label`, when
// not empty, is the name the scene was first loaded under: a pickled Model is rebuilt
// from its absolute path (`origin`, so that it loads in any working directory) and
// keeps the name and file it had.
std::shared_ptr<PyModel> from_text(const std::string& text, const std::string& file,
                                   const std::vector<std::pair<std::string, std::string>>& ov,
                                   const std::string& label) {
  auto pm = std::make_shared<PyModel>();
  for (const auto& [pointer, value] : ov) pm->overrides.push_back({pointer, value});
  // A URDF or an MJCF (XML) loads as `appell` loads it.  Overrides are JSON Pointers into
  // a JSON scene: for XML, into the scene that includes the file, {"include": {"urdf" or
  // "mjcf": FILE}}, so that /gravity, /integrator/dt, /include/q/JOINT or /include/base
  // can be overridden (the include resolves FILE next to itself: the same file).
  std::string scene_text = text;
  const bool mjcf = is_mjcf_text(text);
  if (!ov.empty() && (mjcf || is_urdf_text(text, file))) {
    const std::string name = file.substr(file.find_last_of('/') + 1);
    if (name.empty() || name == "<scene>")
      throw SceneError(file, "",
                       "overrides of an XML model need its file (appell.load_model(path, "
                       "overrides)): the scene that includes it names the file");
    nlohmann::json include;
    include[mjcf ? "mjcf" : "urdf"] = name;
    scene_text = nlohmann::json{{"include", include}}.dump();
  }
  Scene scene;
  try {
    scene = ov.empty() ? load_scene_from_string(scene_text, file)
                       : load_scene_with_overrides(scene_text, file, pm->overrides);
  } catch (const SceneError& e) {
    // a rebuild's error (a sweep's bad override) names the scene as the user named it
    if (label.empty() || e.file() != file) throw;
    throw SceneError(label, e.pointer(), e.message());
  }
  if (!label.empty() && scene.model.name == file) scene.model.name = label;
  pm->model = std::make_shared<const Model>(compile(scene));
  pm->settings = scene.settings;
  pm->text = scene_text;
  pm->file = label.empty() ? file : label;
  pm->origin = absolute_path(file);
  return pm;
}

py::array_t<double> read_only(const Eigen::VectorXd& v) {
  py::array_t<double> a(v.size());
  std::copy(v.data(), v.data() + v.size(), a.mutable_data());
  a.attr("setflags")(py::arg("write") = false);
  return a;
}

void bind_state(py::module_& m) {
  py::class_<State>(m, "State",
                    "A state in the joint coordinates of a model's spanning tree: t, q (nq), "
                    "u (nu), as numpy arrays.  Reading q or u gives a read-only copy (it never "
                    "changes or dangles when the State changes); assign whole arrays.")
      .def(py::init([](double t, const py::object& q, const py::object& u) {
             return State{t, real_vector(q, "State: q"), real_vector(u, "State: u")};
           }),
           py::arg("t"), py::arg("q"), py::arg("u"),
           "State(t: float, q: array (nq,), u: array (nu,)): copies q and u")
      .def_readwrite("t", &State::t, "t: float, the time")
      // copies, read-only so that s.q[0] = 1 (which would change only the copy) raises
      .def_property(
          "q", [](const State& s) { return read_only(s.q); },
          [](State& s, const py::object& q) { s.q = real_vector(q, "State.q"); },
          "q: ndarray (nq,), the joint coordinates (a read-only copy; assign a whole array)")
      .def_property(
          "u", [](const State& s) { return read_only(s.u); },
          [](State& s, const py::object& u) { s.u = real_vector(u, "State.u"); },
          "u: ndarray (nu,), the joint quasi-velocities (a read-only copy; assign a whole "
          "array)")
      .def(
          "copy", [](const State& s) { return s; }, "copy() -> State: an independent copy")
      .def("__repr__", [](const State& s) {
        return "<appell.State t=" + std::to_string(s.t) + " nq=" + std::to_string(s.q.size()) +
               " nu=" + std::to_string(s.u.size()) + ">";
      });
}

std::vector<std::string> names_of_constraints(const Model& m) {
  std::vector<std::string> out;
  for (const ConstraintPtr& c : m.constraints()) out.push_back(c->name());
  return out;
}

void bind_model_class(py::module_& m) {
  py::class_<PyModel, std::shared_ptr<PyModel>>(
      m, "Model", "A compiled, constant model: shared by any number of states and threads.")
      .def_property_readonly(
          "name", [](const PyModel& p) { return p.model->name(); }, "name: str")
      .def_property_readonly(
          "nbody", [](const PyModel& p) { return p.model->nbody(); }, "nbody: int, the bodies")
      .def_property_readonly(
          "nq", [](const PyModel& p) { return p.model->tree().nq; },
          "nq: int, the joint coordinates of a State (the spanning tree's)")
      .def_property_readonly(
          "nu", [](const PyModel& p) { return p.model->tree().nu; },
          "nu: int, the joint quasi-velocities of a State")
      .def_property_readonly(
          "nrows", [](const PyModel& p) { return p.model->nrows(); },
          "nrows: int, the constraint rows (all constraints, joints included)")
      .def_property_readonly(
          "bodies", [](const PyModel& p) { return body_names(*p.model); },
          "bodies: list[str], the body names in model order")
      .def_property_readonly(
          "constraints", [](const PyModel& p) { return names_of_constraints(*p.model); },
          "constraints: list[str], the constraint names (joints included)")
      .def_property_readonly(
          "gravity", [](const PyModel& p) { return p.model->gravity(); },
          "gravity: ndarray (3,), world frame")
      .def_property_readonly(
          "friction_rule",
          [](const PyModel& p) { return friction_rule_name(p.model->friction_rule()); },
          "friction_rule: str, how a contact pair's mu combines its shapes': 'geometric' "
          "(sqrt(mu_a mu_b)) or 'max' (MuJoCo's; the scene's contact.friction)")
      .def(
          "initial_state", [](const PyModel& p) { return p.model->initial_state(); },
          "initial_state() -> State: the scene's t = 0 state in joint coordinates")
      .def_property_readonly(
          "source",
          [](const PyModel& p) -> py::object {
            if (p.text.empty()) return py::none();
            std::vector<std::pair<std::string, std::string>> ov;
            for (const Override& o : p.overrides) ov.emplace_back(o.pointer, o.value);
            return py::make_tuple(p.text, p.origin, ov, p.file);
          },
          "(scene text, absolute file path, [(pointer, JSON value)], file name as given) "
          "when the model came from a scene, else None: what a pickle and a Dask worker "
          "rebuild it from, in any working directory")
      .def_property_readonly(
          "has_callables", [](const PyModel& p) { return p.callables; },
          "has_callables: bool, True when it holds Python forces or constraints")
      .def("__repr__", [](const PyModel& p) {
        return "<appell.Model '" + p.model->name() + "': " + std::to_string(p.model->nbody()) +
               " bodies, " + std::to_string(p.model->constraints().size()) + " constraints>";
      });
}

}  // namespace

void bind_model(py::module_& m) {
  bind_builder(m);
  bind_state(m);
  bind_model_class(m);
  m.def("_compile", &compile_builder, py::arg("builder"),
        "_compile(builder: ModelBuilder) -> Model (appell.compile() wraps it)");
  m.def("_load_model_text", &from_text, py::arg("text"), py::arg("file"),
        py::arg("overrides") = std::vector<std::pair<std::string, std::string>>{},
        py::arg("label") = std::string(),
        "_load_model_text(text: str, file: str, overrides: list[tuple[str, str]] = [], label: "
        "str = '') -> Model\n\nA model from scene text with overrides [(JSON Pointer, JSON "
        "value text)]; label: the file name it goes by when `file` is the absolute path of a "
        "Model's source (a pickle); raises SceneError");
  m.def("_read_scene_text", &read_scene_text, py::arg("path"),
        "_read_scene_text(path: str) -> str: a scene file's text; raises SceneError");
}

}  // namespace appell::python
