// Rigid bodies and particles (docs/architecture.md).
//
// A rigid body has mass m, inertia J0 about its centre of mass in its own frame, a
// centre-of-mass position x̄, a rotation tensor Q, a centre-of-mass velocity v̄ and an
// angular velocity ω (world frame).  Its world-frame inertia is J = Q J0 Qᵀ.  A material
// point with body coordinates X (relative to the centre of mass) sits at x = x̄ + Q X and
// moves with v = v̄ + ω × (x − x̄).  A particle has mass only: three degrees of freedom.
// In a Model (ModelBuilder::add_body) a particle's J0 and ω are zero and its Q is I, and no
// moment acts on it, so that the passes over bodies take every angular part whole: only
// the layout of the maximal coordinates below (engine/model/body_coordinates.hpp) and of
// the outputs tells the two kinds apart.
//
// Maximal quasi-velocities: u = (v̄, ω) for a rigid body (6), v̄ for a particle (3).
// Configuration: q = (x̄, quaternion [w x y z]) for a rigid body (7), x̄ for a particle (3).
#pragma once

#include <string>

#include "appell/rotation.hpp"
#include "appell/spatial.hpp"

namespace appell {

enum class BodyType { Rigid, Particle };

struct BodyState;

// The constant description of one body and its initial state (t = 0).
struct Body {
  std::string name;
  BodyType type = BodyType::Rigid;
  double mass = 1.0;
  Mat3 inertia = Mat3::Identity();  // J0, body frame, about the centre of mass
  Vec3 position = Vec3::Zero();     // x̄(0)
  Quat orientation = Quat::Identity();
  Vec3 velocity = Vec3::Zero();          // v̄(0)
  Vec3 angular_velocity = Vec3::Zero();  // ω(0), world frame
  // the floating root of its tree, when the tree has no joint to the world; unmarked
  // trees take their most massive body (build_tree, engine/model/tree.hpp)
  bool root = false;

  bool rigid() const { return type == BodyType::Rigid; }
  int nq() const { return rigid() ? 7 : 3; }
  int nu() const { return rigid() ? 6 : 3; }
  // its state at t = 0 (a particle's ω is zero, whatever angular_velocity holds)
  BodyState initial_state() const;
};

// The world-frame kinematic state of one body at one instant.
struct BodyState {
  Vec3 x = Vec3::Zero();  // x̄
  Mat3 Q = Mat3::Identity();
  Vec3 v = Vec3::Zero();  // v̄
  Vec3 w = Vec3::Zero();  // ω

  // world-frame offset r = Q X of the body point X, its position and its velocity
  Vec3 offset(const Vec3& X) const { return Q * X; }
  Vec3 point(const Vec3& X) const { return x + Q * X; }
  Vec3 point_velocity(const Vec3& X) const { return v + w.cross(Q * X); }
};

inline BodyState Body::initial_state() const {
  BodyState s;
  s.x = position;
  s.Q = orientation.normalized().toRotationMatrix();
  s.v = velocity;
  s.w = rigid() ? angular_velocity : Vec3::Zero();
  return s;
}

// The world-frame inertia Q J0 Qᵀ of body b in state s (zero for a particle).
// A principal J0 (the common case: shapes, "principal") costs 36 products, not 54.
inline Mat3 world_inertia(const Body& b, const BodyState& s) {
  if (!b.rigid()) return Mat3::Zero();
  const Mat3& J0 = b.inertia;
  if (J0(0, 1) == 0.0 && J0(0, 2) == 0.0 && J0(1, 2) == 0.0) {
    const Mat3 QJ = s.Q * J0.diagonal().asDiagonal();
    return QJ * s.Q.transpose();
  }
  return s.Q * J0 * s.Q.transpose();
}

// Index of the fixed ground in every body list: constraints name it, it has no state.
constexpr int kWorld = -1;

// Read-only view of every body's world-frame state at time t: what constraints and
// forces evaluate on.
// `scratch` is per-evaluation workspace owned by the caller's Data (Model::scratch_size()
// doubles), for constraints and forces that need some (expressions); when it is null
// or short they allocate their own.
struct StateView {
  const BodyState* bodies = nullptr;
  double t = 0.0;
  double* scratch = nullptr;
  size_t scratch_size = 0;
  const BodyState& body(int b) const;  // the fixed, resting world for b == kWorld
};

}  // namespace appell
