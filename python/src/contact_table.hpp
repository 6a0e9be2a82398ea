// The contacts of a run's samples as a table of columns (Result.contacts, Simulator):
// one row per contact point or joint limit of the step that produced each sample
// (appell::ContactSample, docs/contact.md "Outputs").  Recorded without the GIL; turned
// into numpy arrays and lists of names once.
#pragma once

#include <string>
#include <vector>

#include "python/src/bindings.hpp"

namespace appell::python {

class ContactTable {
 public:
  void record(const Sample& s) {
    if (!s.contacts) return;
    for (const ContactSample& c : *s.contacts) {
      sample_.push_back(s.index);
      t_.push_back(s.t);
      rows_.push_back(c);
    }
  }

  // {"sample", "t", "normal_force", "gap", "impact": (n,), "point", "normal",
  //  "friction_force": (n, 3), "kind", "body_a", "body_b", "shape_a", "shape_b", "joint",
  //  "side", "state": lists of str}; names as in contacts.csv
  py::dict to_dict(const Model& m) const {
    const size_t n = rows_.size();
    py::array_t<long> sample(static_cast<py::ssize_t>(n));
    py::array_t<double> t(static_cast<py::ssize_t>(n)), fn(static_cast<py::ssize_t>(n)),
        gap(static_cast<py::ssize_t>(n));
    py::array_t<bool> impact(static_cast<py::ssize_t>(n));
    const std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(n), 3};
    py::array_t<double> point(shape), normal(shape), friction(shape);
    py::list kind, body_a, body_b, shape_a, shape_b, joint, side, state;
    const auto body = [&](int b) { return b < 0 ? std::string("world") : m.bodies()[b].name; };
    const auto shape_name = [&](int s) {
      if (s < 0) return std::string("world");
      const std::string& name = m.shapes()[s].name;
      return name.empty() ? "shape" + std::to_string(s) : name;
    };
    for (size_t i = 0; i < n; ++i) {
      const ContactSample& c = rows_[i];
      const py::ssize_t k = static_cast<py::ssize_t>(i);
      sample.mutable_at(k) = sample_[i];
      t.mutable_at(k) = t_[i];
      fn.mutable_at(k) = c.normal_force;
      gap.mutable_at(k) = c.point.gap;
      impact.mutable_at(k) = c.impact;
      const bool limit = c.joint >= 0;
      for (py::ssize_t j = 0; j < 3; ++j) {
        point.mutable_at(k, j) = limit ? 0.0 : c.point.point(j);
        normal.mutable_at(k, j) = limit ? 0.0 : c.point.normal(j);
        friction.mutable_at(k, j) = c.friction_force(j);
      }
      kind.append(limit ? "limit" : "contact");
      state.append(contact_state_name(c.state));
      if (limit) {
        const Joint* jt = m.joint(c.joint);
        body_a.append(jt ? body(jt->parent()) : "");
        body_b.append(jt ? body(jt->child()) : "");
        shape_a.append("");
        shape_b.append("");
        joint.append(m.constraints()[c.joint]->name());
        side.append(c.upper ? "upper" : "lower");
      } else {
        body_a.append(body(c.point.body_a));
        body_b.append(body(c.point.body_b));
        shape_a.append(shape_name(c.point.shape_a));
        shape_b.append(shape_name(c.point.shape_b));
        joint.append("");
        side.append("");
      }
    }
    py::dict d;
    d["sample"] = sample;
    d["t"] = t;
    d["kind"] = kind;
    d["body_a"] = body_a;
    d["body_b"] = body_b;
    d["shape_a"] = shape_a;
    d["shape_b"] = shape_b;
    d["joint"] = joint;
    d["side"] = side;
    d["point"] = point;
    d["normal"] = normal;
    d["normal_force"] = fn;
    d["friction_force"] = friction;
    d["gap"] = gap;
    d["state"] = state;
    d["impact"] = impact;
    return d;
  }

 private:
  std::vector<long> sample_;
  std::vector<double> t_;
  std::vector<ContactSample> rows_;
};

}  // namespace appell::python
