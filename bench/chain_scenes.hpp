// Benchmark scenes built in code, with their states in joint coordinates.
//
// The standard chain, the reference model for scaling: n identical links, each a solid box
// of 1 kg and 0.05 × 0.05 × 0.2 m (long along its z), its joint at its top end, its centre
// of mass 0.1 m below the joint, the next joint 0.2 m below; joint 1 holds link 1 to the
// world at the origin; joint i is revolute about the link's x axis for odd i and y for even
// i; gravity (0, 0, −9.81); q_i = 0.1 sin(i), q̇_i = 0.05 cos(i), i from 1.
#pragma once

#include <appell/appell.hpp>
#include <appell/standard_chain.hpp>
#include <appell/state_space.hpp>
#include <appell/tree.hpp>
#include <cmath>
#include <memory>
#include <string>

#include "engine/assembly/stages.hpp"
#include "engine/run/tree_state_space.hpp"

namespace appell::bench {

// link box 1 kg, 0.05 × 0.05 × 0.2 m along z; its top (joint) at `top`
inline int add_link(ModelBuilder& m, const std::string& name, const Vec3& top) {
  Body b;
  b.name = name;
  b.mass = 1.0;
  b.inertia = inertia_box(1.0, Vec3(0.05, 0.05, 0.2));
  b.position = top - Vec3(0, 0, 0.1);
  return m.add_body(b);
}

inline void add_revolute(ModelBuilder& m, const std::string& name, int parent, int child,
                         const Vec3& anchor, const Vec3& axis) {
  m.add_constraint(std::make_shared<Joint>(name, joint_type("revolute"), parent, child,
                                           m.initial_state(parent), m.initial_state(child), anchor,
                                           axis, Vec3::Zero()));
}

// The standard chain of n links: joint i revolute about x (odd i) or y (even i).
inline ModelBuilder standard_chain_builder(int n) {
  ModelBuilder m;
  m.name = "standard_chain_" + std::to_string(n);
  m.gravity = Vec3(0, 0, -9.81);
  int parent = kWorld;
  for (int i = 1; i <= n; ++i) {
    const Vec3 top(0, 0, -0.2 * (i - 1));
    const int b = add_link(m, "link" + std::to_string(i), top);
    add_revolute(m, "joint" + std::to_string(i), parent, b, top,
                 i % 2 ? Vec3::UnitX() : Vec3::UnitY());
    parent = b;
  }
  return m;
}
inline Model standard_chain(int n) {
  return compile(standard_chain_builder(n));
}

// The standard state q_i = 0.1 sin i, q̇_i = 0.05 cos i on every 1-DoF joint (in tree
// order), other joints at rest; writes d.q, d.u and returns the joint coordinates (q; u).
inline Eigen::VectorXd standard_state(const Model& m, Data& d) {
  TreeStateSpace ss(m);
  const TreeModel& tree = ss.tree();
  Eigen::VectorXd x = Eigen::VectorXd::Zero(ss.size());
  int i = 1;
  for (const TreeJoint& j : tree.joints) {
    if (j.nu == 1) {
      x(j.q_offset) = 0.1 * std::sin(i);
      x(tree.nq + j.u_offset) = 0.05 * std::cos(i);
      ++i;
    } else if (j.type == &joint_type("free")) {
      x.segment<3>(j.q_offset) = m.bodies()[j.body].position;
      x(j.q_offset + 3) = 1.0;
    }
  }
  ss.to_maximal(x, 0.0, d);
  return x;
}

// A base body (free) with 4 limbs of `links` revolute links each.
inline Model branched_tree(int limbs = 4, int links = 6) {
  ModelBuilder m;
  m.name = "branched_tree";
  m.gravity = Vec3(0, 0, -9.81);
  Body base;
  base.name = "base";
  base.mass = 4.0;
  base.inertia = inertia_box(4.0, Vec3(0.3, 0.3, 0.1));
  const int b0 = m.add_body(base);
  for (int l = 0; l < limbs; ++l) {
    const double phi = 2.0 * M_PI * l / limbs;
    const Vec3 dir(std::cos(phi), std::sin(phi), 0.0);
    int parent = b0;
    for (int k = 0; k < links; ++k) {
      const Vec3 top = 0.15 * dir + Vec3(0, 0, -0.2 * k);
      const int b = add_link(m, "limb" + std::to_string(l) + "_" + std::to_string(k), top);
      add_revolute(m, "j" + std::to_string(l) + "_" + std::to_string(k), parent, b, top,
                   k % 2 ? Vec3::UnitX() : Vec3::UnitY());
      parent = b;
    }
  }
  return compile(m);
}

// The standard chain of n links with its tip's end held at its t = 0 place by a
// spherical joint to the world: one loop closure, 3 extra rows.
inline Model closed_chain(int n) {
  ModelBuilder m = standard_chain_builder(n);
  const int tip = n - 1;
  const Vec3 end = m.bodies()[tip].position - Vec3(0, 0, 0.1);
  m.add_constraint(std::make_shared<Joint>("closure", joint_type("spherical"), kWorld, tip,
                                           m.initial_state(kWorld), m.initial_state(tip), end,
                                           Vec3::UnitZ(), Vec3::Zero()));
  return compile(m);
}

// The standard chain of n links where every hinge also keeps two points on its axis at
// their distance: one row per joint that repeats what the joint imposes (rank 5n of 6n).
inline Model redundant_chain(int n) {
  ModelBuilder m = standard_chain_builder(n);
  m.name = "redundant_chain_" + std::to_string(n);
  for (int i = 1; i <= n; ++i) {
    const int parent = i == 1 ? kWorld : i - 2, child = i - 1;
    const Vec3 top(0, 0, -0.2 * (i - 1)), axis = i % 2 ? Vec3::UnitX() : Vec3::UnitY();
    m.add_constraint(std::make_shared<DistanceConstraint>(
        "axis" + std::to_string(i), parent, child, m.initial_state(parent), m.initial_state(child),
        top + 0.05 * axis, top - 0.05 * axis, 0.1));
  }
  return compile(m);
}

// The standard chain of n links with `extra` of its hinges (spread evenly along it) also
// keeping two points on their axis at their distance: `extra` rows beyond the tree, the
// measure of resolve_formulation's rule (each repeats its hinge, as a loop's rows would
// cost the recursion the same).
inline Model chain_with_extra_rows(int n, int extra) {
  ModelBuilder m = standard_chain_builder(n);
  m.name = "chain_" + std::to_string(n) + "_extra_" + std::to_string(extra);
  for (int k = 0; k < extra; ++k) {
    const int i = 1 + static_cast<int>((static_cast<long>(k) * n) / extra);  // joint i
    const int parent = i == 1 ? kWorld : i - 2, child = i - 1;
    const Vec3 top(0, 0, -0.2 * (i - 1)), axis = i % 2 ? Vec3::UnitX() : Vec3::UnitY();
    m.add_constraint(std::make_shared<DistanceConstraint>(
        "axis" + std::to_string(k), parent, child, m.initial_state(parent), m.initial_state(child),
        top + 0.05 * axis, top - 0.05 * axis, 0.1));
  }
  return compile(m);
}

// A square net of k × k particles (10 g, 0.1 m apart) joined by distance constraints to
// their neighbours along both grid directions, sagging as a dome so that no rows are
// parallel, and hung at its four corners from the world by rods of 0.1 m: 2k(k − 1) + 4
// rows with (k − 1)² independent loops, a row touching two bodies, nothing a tree covers
// (particles have no joints).  Its velocity is a rigid spin about z: every rod between
// particles is at rest.
inline Model particle_net(int k) {
  ModelBuilder m;
  m.name = "particle_net_" + std::to_string(k);
  m.gravity = Vec3(0, 0, -9.81);
  const double h = 0.1, span = h * (k - 1), sag = 0.2 * span;
  auto index = [k](int i, int j) { return i * k + j; };
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) {
      Body p;
      p.name = "p" + std::to_string(i) + "_" + std::to_string(j);
      p.type = BodyType::Particle;
      p.mass = 0.01;
      const double x = i * h, y = j * h;
      const double dome = k > 1 ? std::sin(M_PI * x / span) * std::sin(M_PI * y / span) : 0.0;
      p.position = Vec3(x, y, -sag * dome);
      p.velocity = Vec3(0, 0, 0.5).cross(p.position - Vec3(span / 2, span / 2, 0));
      m.add_body(p);
    }
  auto rod = [&m](const std::string& name, int a, int b, const Vec3& pa, const Vec3& pb) {
    m.add_constraint(std::make_shared<DistanceConstraint>(
        name, a, b, m.initial_state(a), m.initial_state(b), pa, pb, (pb - pa).norm()));
  };
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) {
      const int a = index(i, j);
      const Vec3 pa = m.bodies()[a].position;
      if (i + 1 < k)
        rod("x" + std::to_string(a), a, index(i + 1, j), pa, m.bodies()[index(i + 1, j)].position);
      if (j + 1 < k)
        rod("y" + std::to_string(a), a, index(i, j + 1), pa, m.bodies()[index(i, j + 1)].position);
    }
  for (int c : {index(0, 0), index(0, k - 1), index(k - 1, 0), index(k - 1, k - 1)}) {
    const Vec3 pc = m.bodies()[c].position;
    rod("hang" + std::to_string(c), kWorld, c, pc + Vec3(0, 0, 0.1), pc);
  }
  return compile(m);
}

}  // namespace appell::bench
