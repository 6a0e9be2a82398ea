// A world of free bodies carrying shapes, for the tests of the contact detector
// (collision_test.cpp, collision_pairs_test.cpp): the shapes, the model and its Data, the
// detector, and a body placed by the test.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "appell/appell.hpp"
#include "appell/contact.hpp"
#include "appell/geometry.hpp"

namespace appell::testing {

inline Body rigid(const std::string& name) {
  Body b;
  b.name = name;
  b.mass = 1;
  b.inertia = Mat3::Identity() * 0.1;
  return b;
}

inline Shape plane(const Quat& q = Quat::Identity(), const Vec3& at = Vec3::Zero()) {
  Shape s;
  s.type = ShapeType::Plane;
  s.orientation = q;
  s.position = at;
  return s;
}
inline Shape sphere(int body, double r) {
  Shape s;
  s.type = ShapeType::Sphere;
  s.body = body;
  s.radius = r;
  return s;
}
inline Shape box(int body, const Vec3& half) {
  Shape s;
  s.type = ShapeType::Box;
  s.body = body;
  s.half_extents = half;
  return s;
}

// A model of n free bodies carrying `shapes` (each names its body), and a Data whose body
// states the tests set.
struct World {
  Model m;
  std::unique_ptr<Data> d;
  std::unique_ptr<ContactDetector> det;
  World(int n, const std::vector<Shape>& shapes) {
    ModelBuilder b;
    for (int i = 0; i < n; ++i) b.add_body(rigid("b" + std::to_string(i)));
    for (const Shape& s : shapes) b.add_shape(s);
    m = compile(b);
    d = std::make_unique<Data>(m);
    det = make_contact_detector(m);
  }
  void place(int body, const Vec3& x, const Mat3& Q = Mat3::Identity()) {
    d->body[body].x = x;
    d->body[body].Q = Q;
  }
  std::vector<ContactPoint> detect(double margin) {
    std::vector<ContactPoint> out;
    det->detect(m, *d, margin, out);
    return out;
  }
};

inline Mat3 rot(const Vec3& axis, double angle) {
  return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
}

}  // namespace appell::testing
