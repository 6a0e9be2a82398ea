#include "appell/standard_chain.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "appell/inertia.hpp"
#include "appell/joint.hpp"

namespace appell {

Model standard_chain(int n) {
  return compile(standard_chain_builder(n));
}

ModelBuilder standard_chain_builder(int n) {
  if (n < 1)
    throw std::invalid_argument("standard_chain(): n must be >= 1, got " + std::to_string(n));
  ModelBuilder m;
  m.name = "standard chain n=" + std::to_string(n);
  m.gravity = Vec3(0, 0, -9.81);
  const double mass = 1.0;
  const Mat3 J0 = inertia_box(mass, Vec3(0.05, 0.05, 0.2));
  const Vec3 to_com(0, 0, -0.1), to_next(0, 0, -0.2);

  // forward kinematics from the joint coordinates, base to tip
  Mat3 R = Mat3::Identity();
  Vec3 w = Vec3::Zero(), p = Vec3::Zero(), vp = Vec3::Zero();
  int parent = kWorld;
  BodyState parent0;  // the resting world
  for (int i = 1; i <= n; ++i) {
    const Vec3 a = (i % 2 == 1) ? Vec3::UnitX() : Vec3::UnitY();  // link frame
    const double qi = 0.1 * std::sin(i), qdi = 0.05 * std::cos(i);
    R = R * Eigen::AngleAxisd(qi, a).toRotationMatrix();
    const Vec3 axis_W = R * a;
    w += axis_W * qdi;
    Body b;
    b.name = "link" + std::to_string(i);
    b.mass = mass;
    b.inertia = J0;
    b.position = p + R * to_com;
    b.orientation = Quat(R);
    b.velocity = vp + w.cross(R * to_com);
    b.angular_velocity = w;
    const int child = m.add_body(b);
    const BodyState child0 = m.initial_state(child);
    m.add_constraint(std::make_shared<Joint>("joint" + std::to_string(i), joint_type("revolute"),
                                             parent, child, parent0, child0, p, axis_W,
                                             Vec3::Zero()));
    // the next joint
    vp += w.cross(R * to_next);
    p += R * to_next;
    parent = child;
    parent0 = child0;
  }
  return m;
}

}  // namespace appell
