// Seeded random multibody scenes for the tests (not part of the library).
//
// Chains and trees of rigid bodies (full, non-principal inertia tensors) and particles,
// every joint type, random poses, velocities and applied forces; optionally loops closed
// by distance, spherical and perpendicular constraints, linear rows, and redundant rows
// (duplicated joints, distances implied by a joint).  Every holonomic constraint is defined
// from the random pose itself, so positions satisfy it at t = 0 by construction.
#pragma once

#include <Eigen/QR>
#include <appell/appell.hpp>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/assembly/stages.hpp"

namespace appell {
namespace test_scenes {

struct Rng {
  std::mt19937_64 gen;
  explicit Rng(unsigned seed) : gen(seed) {}
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(gen);
  }
  int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); }
  bool chance(double p) { return uniform(0, 1) < p; }
  Vec3 vec(double s) { return Vec3(uniform(-s, s), uniform(-s, s), uniform(-s, s)); }
  Vec3 unit() {
    Vec3 v;
    do v = vec(1.0);
    while (v.norm() < 0.1);
    return v.normalized();
  }
  Quat quat() {
    Eigen::Vector4d q;
    do q = Eigen::Vector4d(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
    while (q.norm() < 0.1);
    q.normalize();
    return Quat(q(0), q(1), q(2), q(3));
  }
};

struct SceneOptions {
  int nbody = 5;
  bool chain = true;          // else a random tree
  bool loops = false;         // closing constraints (not redundant)
  bool linear = false;        // velocity-level linear rows
  bool redundant = false;     // duplicated and implied constraints
  bool project = false;       // project velocities onto the velocity constraints
  bool floating = false;      // nothing attached to the world, no gravity: momentum is conserved
  bool conservative = false;  // springs only (with potentials), no constant forces or torques
  double length = 1.0;        // units: every length (and linear velocity) is multiplied by this,
  double mass = 1.0;          // every mass by this (the draws do not change)
};

// A rebuildable constraint (a redundant copy is the same constraint under another name).
using Builder = std::function<ConstraintPtr(const std::string& name)>;

struct TestScene {
  ModelBuilder builder;       // what was built
  Model model;                // compile(builder)
  std::vector<Builder> tree;  // the joint of body i to its parent
  std::vector<int> parent;
  std::vector<int> joint;  // the constraint index of body i's joint, or −1 (floating root)
  Eigen::VectorXd u;       // the velocities to evaluate at
};

// Points of a body: anywhere for a rigid body, the particle itself for a particle.
inline Vec3 point_on(Rng& rng, const ModelBuilder& m, int b, double length = 1.0) {
  const BodyState s = m.initial_state(b);
  if (b != kWorld && !m.bodies()[b].rigid()) return s.x;
  return s.x + length * rng.vec(0.4);
}
inline bool is_rigid(const ModelBuilder& m, int b) {
  return b == kWorld || m.bodies()[b].rigid();
}

inline Builder joint_builder(const ModelBuilder& m, const JointType& type_ref, int p, int c,
                             const Vec3& anchor, const Vec3& axis, const Vec3& axis2) {
  const BodyState sp = m.initial_state(p), sc = m.initial_state(c);
  const JointType* type = &type_ref;
  return [=](const std::string& name) -> ConstraintPtr {
    return std::make_shared<Joint>(name, *type, p, c, sp, sc, anchor, axis, axis2);
  };
}
inline Builder distance_builder(const ModelBuilder& m, int a, int b, const Vec3& pa,
                                const Vec3& pb) {
  const BodyState sa = m.initial_state(a), sb = m.initial_state(b);
  return [=](const std::string& name) -> ConstraintPtr {
    return std::make_shared<DistanceConstraint>(name, a, b, sa, sb, pa, pb, (pb - pa).norm());
  };
}

// The joint of body c to its parent p: any joint between rigid bodies; a spherical joint
// at the particle, a distance or a plane (to the world, unless `floating`) when a particle
// is involved.  *type_out is the joint type (meaningful only when the constraint is a Joint).
inline Builder random_joint(Rng& rng, const ModelBuilder& m, int p, int c, bool floating, double L,
                            const JointType** type_out) {
  const Vec3 axis = rng.unit();
  Vec3 axis2 = rng.unit();
  axis2 = (axis2 - axis2.dot(axis) * axis).normalized();
  *type_out = &joint_type("spherical");
  if (is_rigid(m, p) && is_rigid(m, c)) {
    const JointType* const types[] = {&joint_type("spherical"), &joint_type("revolute"),
                                      &joint_type("prismatic"), &joint_type("cylindrical"),
                                      &joint_type("universal"), &joint_type("fixed")};
    *type_out = types[rng.integer(0, 5)];
    const Vec3 anchor = 0.5 * (m.initial_state(c).x + m.initial_state(p).x) + L * rng.vec(0.2);
    return joint_builder(m, **type_out, p, c, anchor, axis, axis2);
  }
  const int particle = is_rigid(m, c) ? p : c, other = particle == c ? p : c;
  const int pick = rng.integer(0, 2);
  if (pick == 0 && is_rigid(m, other))
    return joint_builder(m, joint_type("spherical"), p, c, m.initial_state(particle).x, axis,
                         axis2);
  const Vec3 pa = point_on(rng, m, p, L), pb = point_on(rng, m, c, L);
  if ((pick == 1 || floating) && (pb - pa).norm() > 0.05 * L)
    return distance_builder(m, p, c, pa, pb);
  const BodyState s = m.initial_state(c);
  return [=](const std::string& name) -> ConstraintPtr {
    return std::make_shared<PointOnPlaneConstraint>(name, c, s, s.x, axis);
  };
}

inline TestScene random_scene(unsigned seed, const SceneOptions& o, bool with_redundant) {
  Rng rng(seed);
  TestScene sc;
  ModelBuilder& m = sc.builder;
  const double L = o.length, K = o.mass;
  m.gravity = o.floating ? Vec3::Zero() : Vec3(0, 0, -9.81 * L);
  // bodies, placed near their parent
  for (int i = 0; i < o.nbody; ++i) {
    const int p = i == 0 ? kWorld : (o.chain ? i - 1 : rng.integer(o.floating ? 0 : -1, i - 1));
    sc.parent.push_back(p);
    Body b;
    b.name = "b" + std::to_string(i);
    b.type = rng.chance(0.25) ? BodyType::Particle : BodyType::Rigid;
    b.mass = K * rng.uniform(0.5, 3.0);
    b.position = (p == kWorld ? Vec3::Zero() : m.bodies()[p].position) + L * rng.vec(0.6);
    if (b.rigid()) {
      const Vec3 edges(rng.uniform(0.05, 0.5), rng.uniform(0.05, 0.5), rng.uniform(0.05, 0.5));
      const Mat3 R = rng.quat().toRotationMatrix();  // principal axes off the body axes
      b.inertia = R * inertia_box(b.mass, L * edges) * R.transpose();
      b.orientation = rng.quat();
    }
    m.add_body(b);
  }
  // a joint per body: the spanning tree
  std::vector<const JointType*> types;
  for (int i = 0; i < o.nbody; ++i) {
    const JointType* t = &joint_type("fixed");
    if (o.floating && i == 0) {  // the root floats
      sc.tree.push_back(nullptr);
      sc.joint.push_back(-1);
    } else {
      sc.tree.push_back(random_joint(rng, m, sc.parent[i], i, o.floating, L, &t));
      sc.joint.push_back(static_cast<int>(m.constraints().size()));
      m.add_constraint(sc.tree.back()("joint" + std::to_string(i)));
    }
    types.push_back(t);
  }
  // loops: constraints that close kinematic loops, satisfied by construction
  if (o.loops && o.nbody >= 2) {
    const int nloops = rng.integer(1, 3);
    for (int k = 0; k < nloops; ++k) {
      const int a = rng.integer(o.floating ? 0 : -1, o.nbody - 1);
      int b = rng.integer(0, o.nbody - 1);
      if (b == a) b = (b + 1) % o.nbody;
      const std::string name = "loop" + std::to_string(k);
      const int kind = rng.integer(0, 2);
      if (kind == 1 && is_rigid(m, a) && is_rigid(m, b)) {
        const Vec3 anchor = 0.5 * (m.initial_state(a).x + m.initial_state(b).x);
        m.add_constraint(joint_builder(m, joint_type("spherical"), a, b, anchor, Vec3::UnitX(),
                                       Vec3::Zero())(name));
      } else if (kind == 2 && is_rigid(m, a) && is_rigid(m, b)) {
        const Vec3 na = rng.unit();
        Vec3 nb = rng.unit();
        nb = (nb - nb.dot(na) * na).normalized();
        m.add_constraint(std::make_shared<PerpendicularConstraint>(name, a, b, m.initial_state(a),
                                                                   m.initial_state(b), na, nb));
      } else {
        const Vec3 pa = point_on(rng, m, a, L), pb = point_on(rng, m, b, L);
        m.add_constraint(distance_builder(m, a, b, pa, pb)(name));
      }
    }
  }
  // linear rows (velocity level, e = 0 so that the velocities can satisfy them)
  if (o.linear) {
    const int b = rng.integer(0, o.nbody - 1);
    const BodyState s = m.initial_state(b);
    const bool rigid = m.bodies()[b].rigid();
    const auto frame =
        rigid && rng.chance(0.5) ? LinearConstraint::Frame::Body : LinearConstraint::Frame::World;
    m.add_constraint(
        std::make_shared<LinearConstraint>("linear", b, s, point_on(rng, m, b, L), rng.vec(1.0) / L,
                                           rigid ? rng.vec(1.0) : Vec3::Zero(), 0.0, frame));
  }
  // applied forces besides gravity
  for (int k = 0; k < 2; ++k) {
    const int b = rng.integer(0, o.nbody - 1);
    if (o.conservative) {  // a spring between two bodies (or to the world)
      const int a = rng.integer(o.floating ? 0 : -1, o.nbody - 1);
      if (a == b) continue;
      const Vec3 pa = point_on(rng, m, a, L), pb = point_on(rng, m, b, L);
      m.add_force(std::make_shared<SpringForce>(a, b, m.initial_state(a), m.initial_state(b), pa,
                                                pb, K * rng.uniform(1, 20),
                                                (pb - pa).norm() * rng.uniform(0.5, 1.5), 0.0));
      continue;
    }
    m.add_force(std::make_shared<PointForce>(b, m.initial_state(b), point_on(rng, m, b, L),
                                             K * L * rng.vec(5)));
    if (m.bodies()[b].rigid())
      m.add_force(std::make_shared<TorqueForce>(b, K * L * L * rng.vec(2)));
  }
  // redundant rows, from their own stream so that the base scene is the same either way
  Rng red(seed ^ 0x5a5a5a5au);
  if (with_redundant && !(o.floating && o.nbody == 1)) {
    const int count = red.integer(1, 3);
    for (int k = 0; k < count; ++k) {
      int c = red.integer(0, o.nbody - 1);
      if (sc.joint[c] < 0) c = 1;  // the floating root has no joint to repeat
      const int p = sc.parent[c];
      const std::string name = "redundant" + std::to_string(k);
      const JointType* t = types[c];
      // the same joint again, or a distance implied by it: between a point of the parent
      // and a point of the child that the joint keeps fixed relative to the parent
      const Joint* j = dynamic_cast<const Joint*>(m.constraints()[sc.joint[c]].get());
      if (red.chance(0.5) || !j || (t != &joint_type("spherical") && t != &joint_type("fixed"))) {
        m.add_constraint(sc.tree[c](name));
      } else {
        const Vec3 on_child = t == &joint_type("fixed") ? point_on(red, m, c, L) : j->anchor();
        const Vec3 on_parent = point_on(red, m, p, L);
        if ((on_child - on_parent).norm() > 0.05 * L)
          m.add_constraint(distance_builder(m, p, c, on_parent, on_child)(name));
        else
          m.add_constraint(sc.tree[c](name));
      }
    }
  }
  // velocities
  sc.model = compile(m);
  const Model& cm = sc.model;
  Data d(cm);
  sc.u = d.u;
  for (int i = 0; i < cm.nu(); ++i) sc.u(i) = rng.uniform(-1.5, 1.5);
  for (int i = 0; i < cm.ncomposite(); ++i) sc.u.segment<3>(cm.u_offset(i)) *= L;  // v̄; ω unchanged
  return sc;
}

// u ← u − A⁺ π: the nearest velocities (Euclidean) that satisfy the velocity rows.
inline void project_velocities(const Model& m, Eigen::VectorXd& u) {
  for (int it = 0; it < 2; ++it) {
    Data d(m);
    d.u = u;
    kinematics(m, d);
    constraint_rows(m, d);
    dense_rows(m, d);
    if (m.nrows() == 0) return;
    u -= Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(d.A).solve(d.velocity_residual);
  }
}

}  // namespace test_scenes
}  // namespace appell
