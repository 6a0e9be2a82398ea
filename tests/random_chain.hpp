// Random serial chains on joints of every type, listed parent → child so that the
// spanning tree's coordinates are the joints' own (for the robotics tests).
#pragma once

#include <appell/appell.hpp>
#include <appell/tree.hpp>

#include "engine/model/tree.hpp"
#include "random_scenes.hpp"

namespace appell::test_chain {

using test_scenes::Rng;

// A random serial chain of rigid bodies on joints of every type with nq = nu and
// quaternion types (free base optional), each joint listed parent → child so that the
// tree's coordinates are the joints' own.  Torques on every joint when `torque` is given.
struct Chain {
  ModelBuilder b;
  std::vector<std::shared_ptr<const Joint>> joints;
};

// A rigid body with a random mass (0.5–2 kg) and the inertia of a random box turned by a
// random rotation (three draws of rng, in this order); pose and velocity left to the caller.
inline Body random_rigid_body(Rng& rng, const std::string& name) {
  Body body;
  body.name = name;
  body.mass = rng.uniform(0.5, 2.0);
  const Mat3 R = rng.quat().toRotationMatrix();
  body.inertia = R *
                 inertia_box(body.mass, Vec3(rng.uniform(0.05, 0.4), rng.uniform(0.05, 0.4), 0.3)) *
                 R.transpose();
  return body;
}

inline Chain random_chain(unsigned seed, int n, bool free_base, bool revolute_only = false) {
  Rng rng(seed);
  Chain c;
  c.b.gravity = Vec3(0.3, -0.2, -9.81);
  const char* types[] = {"revolute",  "prismatic", "cylindrical", "universal",
                         "spherical", "planar",    "revolute"};
  for (int i = 0; i < n; ++i) {
    Body body = random_rigid_body(rng, "link" + std::to_string(i));
    body.position = Vec3(0, 0, -0.4 * i) + rng.vec(0.1);
    body.orientation = rng.quat();
    c.b.add_body(body);
    const std::string type = (i == 0 && free_base) ? "free"
                             : revolute_only       ? "revolute"
                                                   : types[rng.integer(0, 6)];
    const int parent = i == 0 ? kWorld : i - 1;
    const Vec3 anchor = Vec3(0, 0, -0.4 * i + 0.2) + rng.vec(0.05);
    const Vec3 axis = rng.unit();
    Vec3 a2 = rng.unit();
    a2 = (a2 - a2.dot(axis) * axis).normalized();
    auto j =
        std::make_shared<Joint>("j" + std::to_string(i), joint_type(type), parent, i,
                                c.b.initial_state(parent), c.b.initial_state(i), anchor, axis, a2);
    c.joints.push_back(j);
    c.b.add_constraint(j);
  }
  return c;
}

// a random state of the tree (any q, u is consistent with tree joints)
inline State random_state(const Model& m, Rng& rng) {
  State s = m.initial_state();
  for (const TreeJoint& t : m.tree().joints) {
    for (int k = 0; k < t.nq; ++k) s.q(t.q_offset + k) += rng.uniform(-0.5, 0.5);
    t.type->normalize(s.q.data() + t.q_offset);
  }
  for (int k = 0; k < s.u.size(); ++k) s.u(k) = rng.uniform(-1, 1);
  s.t = 0.3;
  return s;
}

}  // namespace appell::test_chain
