// The model described as plain Python objects (appell.describe(), through
// appell._appell._describe): bodies, joints, constraints and forces as lists of dicts.
#include <string>

#include "python/src/bindings.hpp"

namespace appell::python {

namespace {

py::array_t<double> matrix(const Mat3& m) {
  py::array_t<double> a({3, 3});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a.mutable_at(i, j) = m(i, j);
  return a;
}

std::string body_name(const Model& m, int b) {
  return b == kWorld ? "world" : m.bodies()[static_cast<size_t>(b)].name;
}

// the model as lists of dicts: bodies, joints (the spanning tree's, with their coordinates),
// constraints, forces
}  // namespace

py::dict describe_model(const PyModel& pm) {
  const Model& m = *pm.model;
  py::list bodies, joints, constraints, forces;
  for (const Body& b : m.bodies()) {
    py::dict d;
    d["name"] = b.name;
    d["type"] = b.rigid() ? "rigid" : "particle";
    d["rigid"] = b.rigid();
    d["mass"] = b.mass;
    d["inertia"] = matrix(b.inertia);
    d["position"] = b.position;
    d["orientation"] =
        Eigen::Vector4d(b.orientation.w(), b.orientation.x(), b.orientation.y(), b.orientation.z());
    d["velocity"] = b.velocity;
    d["angular_velocity"] = b.angular_velocity;
    bodies.append(d);
  }
  for (const TreeJoint& j : m.tree().joints) {
    py::dict d;
    d["name"] = j.constraint >= 0 ? m.constraints()[static_cast<size_t>(j.constraint)]->name()
                                  : std::string();
    d["type"] = j.type->name();
    d["nq"] = j.nq;
    d["nu"] = j.nu;
    d["q_offset"] = j.q_offset;
    d["u_offset"] = j.u_offset;
    d["parent"] = body_name(m, j.parent_body);
    d["child"] = body_name(m, j.body);
    joints.append(d);
  }
  for (const ConstraintPtr& c : m.constraints()) {
    py::dict d;
    d["name"] = c->name();
    d["type"] = c->type();
    d["rows"] = c->rows();
    py::list names;
    for (int b : c->bodies()) names.append(body_name(m, b));
    d["bodies"] = names;
    constraints.append(d);
  }
  for (const ForcePtr& f : m.forces()) {
    py::dict d;
    d["type"] = f->type();
    forces.append(d);
  }
  py::dict out;
  out["name"] = m.name();
  out["gravity"] = m.gravity();
  out["bodies"] = bodies;
  out["joints"] = joints;
  out["constraints"] = constraints;
  out["forces"] = forces;
  return out;
}

}  // namespace appell::python
