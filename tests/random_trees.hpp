// Seeded random trees for the recursive formulation's tests (recursive_test.cpp,
// recursive_joint_coordinates_test.cpp): random bodies, a random tree of every joint type
// with optional loops and a redundant row, a random tree state, and a relative error.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <appell/appell.hpp>
#include <appell/tree.hpp>
#include <memory>
#include <random>
#include <string>

#include "engine/assembly/stages.hpp"

namespace appell::random_trees {

inline Vec3 random_unit(std::mt19937& rng) {
  std::normal_distribution<double> g;
  return Vec3(g(rng), g(rng), g(rng)).normalized();
}

inline double uniform(std::mt19937& rng, double a, double b) {
  return std::uniform_real_distribution<double>(a, b)(rng);
}

// body i: random mass, box inertia, pose
inline Body random_body(std::mt19937& rng, int i, BodyType type) {
  Body b;
  b.name = "b" + std::to_string(i);
  b.type = type;
  b.mass = uniform(rng, 0.5, 2.0);
  b.inertia = inertia_box(
      b.mass, Vec3(uniform(rng, 0.05, 0.5), uniform(rng, 0.05, 0.5), uniform(rng, 0.05, 0.5)));
  b.position = Vec3(uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1));
  b.orientation = quat_from_rotation_vector(random_unit(rng) * uniform(rng, 0, 3));
  return b;
}

struct RandomScene {
  ModelBuilder b;
  Model m;                  // compile(b)
  int duplicated_rows = 0;  // rows that repeat another constraint exactly
};

// A random tree of n bodies: every joint type, reversed joints, floating bases, a particle
// at the root of a subtree; with `loops`, closing spherical joints and distance rows, and
// with `redundant` a duplicated distance row.
inline RandomScene random_scene(std::mt19937& rng, int n, bool loops, bool redundant) {
  RandomScene s;
  ModelBuilder& m = s.b;
  m.gravity = Vec3(0.3, -0.2, -9.81);
  for (int i = 0; i < n; ++i)
    m.add_body(random_body(rng, i, i == n / 2 ? BodyType::Particle : BodyType::Rigid));
  // every registered joint type (constraints/joints/registry.cpp), a new one included
  const std::vector<const JointType*>& types = joint_types();
  const int ntypes = static_cast<int>(types.size());
  auto add_joint = [&](const std::string& name, const JointType& type, int p, int c) {
    const BodyState P = m.initial_state(p), C = m.initial_state(c);
    const Vec3 anchor = 0.5 * (P.x + C.x) + 0.2 * random_unit(rng);
    const Vec3 axis = random_unit(rng);
    Vec3 axis2 = axis.cross(random_unit(rng)).normalized();
    m.add_constraint(std::make_shared<Joint>(name, type, p, c, P, C, anchor, axis, axis2));
  };
  for (int i = 0; i < n; ++i) {
    if (i == n / 2) continue;                // the particle: a root
    if (uniform(rng, 0, 1) < 0.1) continue;  // a floating base
    const int p = (i == 0 || uniform(rng, 0, 1) < 0.15)
                      ? kWorld
                      : std::uniform_int_distribution<int>(0, i - 1)(rng);
    const JointType& type = *types[std::uniform_int_distribution<int>(0, ntypes - 1)(rng)];
    if (p != kWorld && uniform(rng, 0, 1) < 0.25)
      add_joint("j" + std::to_string(i), type, i, p);  // reversed
    else
      add_joint("j" + std::to_string(i), type, p, i);
  }
  if (loops) {
    for (int k = 0; k < 2; ++k) {
      const int a = std::uniform_int_distribution<int>(0, n - 1)(rng);
      const int b = std::uniform_int_distribution<int>(0, n - 1)(rng);
      if (a == b) continue;
      const BodyState A = m.initial_state(a), B = m.initial_state(b);
      const Vec3 pb = B.x + 0.1 * random_unit(rng);
      m.add_constraint(
          std::make_shared<DistanceConstraint>("d" + std::to_string(k), a, b, A, B, A.x, pb, 1.0));
      if (redundant && k == 0) {  // the same row twice: exactly redundant
        m.add_constraint(std::make_shared<DistanceConstraint>("d_copy", a, b, A, B, A.x, pb, 1.0));
        ++s.duplicated_rows;
      }
    }
    // a closing spherical joint between two bodies far apart in the tree, and a joint
    // that makes the particle a child (both extra rows)
    add_joint("close", joint_type("spherical"), 0, n - 1);
    add_joint("hold", joint_type("spherical"), n / 2 + 1, n / 2);
  }
  s.m = compile(m);
  return s;
}

// a random tree state x = (q, u)
inline Eigen::VectorXd random_tree_state(std::mt19937& rng, const TreeModel& tree) {
  Eigen::VectorXd x(tree.nq + tree.nu);
  for (int k = 0; k < x.size(); ++k) x(k) = uniform(rng, -1, 1);
  for (const TreeJoint& j : tree.joints) {
    (void)j;
  }
  tree_normalize(tree, x.head(tree.nq));
  return x;
}

inline double rel_error(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).lpNorm<Eigen::Infinity>() / std::max(1.0, b.lpNorm<Eigen::Infinity>());
}

}  // namespace appell::random_trees
