// ModelBuilder in Python: a model described in code (python/src/model.cpp compiles it).
//
//   b = appell.ModelBuilder(); b.gravity = (0, 0, -9.81)
//   bob = b.add_body("bob", mass=1, type="particle", position=(0, 0, -1))
//   b.add_distance("world", "bob", (0, 0, 0), (0, 0, -1)); model = b.compile()
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "python/src/bindings.hpp"

namespace appell::python {

namespace {

using V = Vec3;

std::string default_name(const ModelBuilder& b, const std::optional<std::string>& name) {
  return name ? checked_name(*name, "add_constraint()", "constraint")
              : "constraint" + std::to_string(b.constraints().size());
}

Mat3 inertia_of(const py::object& inertia) {
  if (inertia.is_none()) return Mat3::Identity();
  const Eigen::MatrixXd J = inertia.cast<Eigen::MatrixXd>();
  if (J.size() == 3) return Vec3(J(0), J(1), J(2)).asDiagonal();  // principal moments
  if (J.rows() == 3 && J.cols() == 3) return J;
  throw std::invalid_argument("add_body(): inertia must be 3 principal moments or a 3x3 matrix");
}

int add_body(ModelBuilder& b, const std::string& name, double mass, const std::string& type,
             const py::object& inertia, const Vec3& position, const Eigen::Vector4d& orientation,
             const Vec3& velocity, const Vec3& angular_velocity) {
  if (type != "rigid" && type != "particle")
    throw std::invalid_argument("add_body(): type must be 'rigid' or 'particle', got '" + type +
                                "'");
  Body body;
  body.name = checked_name(name, "add_body()", "body");
  body.type = type == "rigid" ? BodyType::Rigid : BodyType::Particle;
  body.mass = mass;
  body.inertia = inertia_of(inertia);  // a particle's are dropped (ModelBuilder::add_body)
  body.position = position;
  if (!(orientation.norm() > 1e-12))
    throw std::invalid_argument("add_body(): orientation must be a nonzero quaternion [w x y z]");
  body.orientation =
      Quat(orientation(0), orientation(1), orientation(2), orientation(3)).normalized();
  body.velocity = velocity;
  body.angular_velocity = angular_velocity;
  return b.add_body(body);
}

void add_joint(ModelBuilder& b, const std::string& type, const py::object& parent,
               const py::object& child, const V& anchor, const V& axis, const V& axis2,
               const std::optional<std::string>& name, std::optional<double> parameter) {
  const int p = body_ref(b, parent), c = body_ref(b, child);
  const JointType& t = joint_type(type);
  if (t.syntax().parameter && !parameter)
    throw std::invalid_argument("add_joint(): a " + type + " joint needs parameter (its " +
                                t.syntax().parameter + ")");
  if (!t.syntax().parameter && parameter)
    throw std::invalid_argument("add_joint(): a " + type + " joint takes no parameter");
  std::shared_ptr<const JointType> inst(std::shared_ptr<void>(), &t);
  if (parameter) inst = t.with_parameter(*parameter);
  if (p == c)
    throw std::invalid_argument("add_joint(): the two bodies must differ (both are '" +
                                (p == kWorld ? std::string("world") : b.bodies()[p].name) + "')");
  b.add_constraint(std::make_shared<Joint>(default_name(b, name), inst, p, c, b.initial_state(p),
                                           b.initial_state(c), anchor, axis.normalized(),
                                           axis2.normalized()));
}

void add_distance(ModelBuilder& b, const py::object& a, const py::object& c, const V& pa,
                  const V& pc, std::optional<double> length,
                  const std::optional<std::string>& name) {
  const int i = body_ref(b, a), j = body_ref(b, c);
  b.add_constraint(std::make_shared<DistanceConstraint>(default_name(b, name), i, j,
                                                        b.initial_state(i), b.initial_state(j), pa,
                                                        pc, length ? *length : (pc - pa).norm()));
}

void add_point_on_plane(ModelBuilder& b, const py::object& body, const V& point, const V& normal,
                        const std::optional<std::string>& name) {
  const int i = body_ref(b, body);
  b.add_constraint(std::make_shared<PointOnPlaneConstraint>(
      default_name(b, name), i, b.initial_state(i), point, normal.normalized()));
}

void add_spring(ModelBuilder& b, const py::object& a, const py::object& c, const V& pa, const V& pc,
                double k, double l0, double damping) {
  const int i = body_ref(b, a), j = body_ref(b, c);
  b.add_force(std::make_shared<SpringForce>(i, j, b.initial_state(i), b.initial_state(j), pa, pc, k,
                                            l0, damping));
}

void add_point_force(ModelBuilder& b, const py::object& body, const V& vector,
                     const std::optional<V>& point) {
  const int i = body_ref(b, body);
  const BodyState s0 = b.initial_state(i);
  b.add_force(std::make_shared<PointForce>(i, s0, point ? *point : s0.x, vector));
}

void add_torque(ModelBuilder& b, const py::object& body, const V& vector) {
  b.add_force(std::make_shared<TorqueForce>(body_ref(b, body), vector));
}

void add_damping(ModelBuilder& b, const py::object& body, double linear, double angular) {
  b.add_force(std::make_shared<DampingForce>(body_ref(b, body), linear, angular));
}

using BuilderClass = py::class_<ModelBuilder>;

// name, gravity and the bodies
void bind_builder_bodies(BuilderClass& c) {
  c.def(py::init<>(), "ModelBuilder(): an empty model, no bodies, gravity (0, 0, 0).")
      .def_readwrite("name", &ModelBuilder::name, "name: str, the model's name")
      .def_readwrite("gravity", &ModelBuilder::gravity,
                     "gravity: array (3,), the acceleration of gravity, world frame (m/s^2)")
      .def_property_readonly("nbody", &ModelBuilder::nbody, "nbody: int, the bodies added so far")
      .def("add_body", &add_body, py::arg("name"), py::arg("mass") = 1.0, py::arg("type") = "rigid",
           py::arg("inertia") = py::none(), py::arg("position") = V(V::Zero()),
           py::arg("orientation") = Eigen::Vector4d(1, 0, 0, 0), py::arg("velocity") = V(V::Zero()),
           py::arg("angular_velocity") = V(V::Zero()),
           "add_body(name: str, mass: float = 1.0, type: str = 'rigid', inertia: array (3,) | "
           "array (3, 3) | None = None, position: array (3,) = 0, orientation: array (4,) = "
           "[1, 0, 0, 0], velocity: array (3,) = 0, angular_velocity: array (3,) = 0) -> int\n\n"
           "Adds a body; returns its index.  inertia: 3 principal moments or a 3x3 matrix "
           "(body frame, about the centre of mass); orientation: quaternion [w x y z].")
      .def("body_index", &ModelBuilder::body_index, py::arg("name"),
           "body_index(name: str) -> int: the index of the body named `name` (-1: the world, "
           "-2: none).");
}

// joints and the other constraints
void bind_builder_constraints(BuilderClass& c) {
  c.def("add_joint", &add_joint, py::arg("type"), py::arg("parent"), py::arg("child"),
        py::arg("anchor") = V(V::Zero()), py::arg("axis") = V(V::UnitZ()),
        py::arg("axis2") = V(V::UnitY()), py::arg("name") = py::none(),
        py::arg("parameter") = py::none(),
        "add_joint(type: str, parent: str | int, child: str | int, anchor: array (3,) = 0, "
        "axis: array (3,) = z, axis2: array (3,) = y, name: str | None = None, parameter: "
        "float | None = None) -> None\n\nA joint (revolute, prismatic, cylindrical, universal, "
        "spherical, fixed, ...) "
        "between parent and child (names or indices; 'world' is the ground), defined by "
        "the bodies' initial poses; parameter: the number a type takes (its scene key, e.g. "
        "a screw's pitch in m/rad).")
      .def("add_distance", &add_distance, py::arg("a"), py::arg("b"), py::arg("point_a"),
           py::arg("point_b"), py::arg("length") = py::none(), py::arg("name") = py::none(),
           "add_distance(a: str | int, b: str | int, point_a: array (3,), point_b: array (3,), "
           "length: float | None = None, name: str | None = None) -> None\n\n"
           "|x_b - x_a| = length between two material points (world points at t = 0).")
      .def("add_point_on_plane", &add_point_on_plane, py::arg("body"), py::arg("point"),
           py::arg("normal"), py::arg("name") = py::none(),
           "add_point_on_plane(body: str | int, point: array (3,), normal: array (3,), name: "
           "str | None = None) -> None\n\nKeeps the body's material point at `point` (world, "
           "t = 0) on the fixed plane through it with this normal.");
}

// springs, constant forces and torques, damping
void bind_builder_forces(BuilderClass& c) {
  c.def("add_spring", &add_spring, py::arg("a"), py::arg("b"), py::arg("point_a"),
        py::arg("point_b"), py::arg("stiffness"), py::arg("rest_length"), py::arg("damping") = 0.0,
        "add_spring(a: str | int, b: str | int, point_a: array (3,), point_b: array (3,), "
        "stiffness: float, rest_length: float, damping: float = 0.0) -> None\n\nA linear "
        "spring-damper between two material points (world points at t = 0); its potential "
        "0.5 k (l - l0)^2 is in the reported energy.")
      .def("add_force", &add_point_force, py::arg("body"), py::arg("vector"),
           py::arg("point") = py::none(),
           "add_force(body: str | int, vector: array (3,), point: array (3,) | None = None) -> "
           "None\n\nA constant world-frame force at a material point (default the centre of "
           "mass).")
      .def("add_torque", &add_torque, py::arg("body"), py::arg("vector"),
           "add_torque(body: str | int, vector: array (3,)) -> None\n\nA constant world-frame "
           "torque on a body (no potential energy).")
      .def("add_damping", &add_damping, py::arg("body"), py::arg("linear"),
           py::arg("angular") = 0.0,
           "add_damping(body: str | int, linear: float, angular: float = 0.0) -> None\n\n"
           "Viscous damping: force -linear * v, moment -angular * w.");
}

}  // namespace

void bind_builder(py::module_& m) {
  BuilderClass c(m, "ModelBuilder",
                 "A model described in code: add bodies, joints, constraints and "
                 "forces, then appell.compile() it into a Model.");
  bind_builder_bodies(c);
  bind_builder_constraints(c);
  bind_builder_forces(c);
}

}  // namespace appell::python
