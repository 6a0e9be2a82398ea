// Actuation at joints: forces that act along a joint's motion subspace (docs/scene-format.md
// "Forces").
//
// A JointForce computes a generalized force τ (one entry per joint quasi-velocity u, in
// N·m about a revolute axis, N along a prismatic one) from the joint's own coordinates q
// and rates u.  It is a joint-space force (Force::joint_space): when its joint is an edge
// of the model's tree the recursion reads q, u from the state and adds τ into its
// joint-space force vector (engine/formulations/recursive/generalized_forces.cpp), with no body
// states read and no wrench formed.  Elsewhere (the maximal formulations, a loop-closing or
// reversed joint) q, u are read off the body states (appell/joint_state.hpp) and τ is
// applied equally and oppositely to the joint's two bodies as the wrench S τ at the anchor
// (joint_state.hpp G1).  Both give the same motion; its power is τ·u (G1).
//
//   JointTorque   τ = value(t, q(j), qd(j), bodies...)   constant or expressions
//   JointServo    τ = kp (q* − q) + kd (q̇* − u),  q* = target(t, ...), q̇* its exact
//                 time derivative (expression.hpp E2; 0 for a constant target)
//   JointSpring   τ = −k (q − q0) − c u,   V = ½ k |q − q0|²
//   JointDamping  τ = −c u                               (URDF <dynamics damping>)
//
// Coordinates that are angles (periodic_coordinates) enter errors modulo 2π, in (−π, π]:
// the body poses determine an angle only up to whole turns.  Springs and servos need
// nq = nu (no quaternion joints); torques and damping work on every joint type.
// Cost: O(1) per evaluation plus the expression sweeps, no allocation; in body space one
// joint_coordinates() and one apply_joint_force() more.
#pragma once

#include <memory>
#include <vector>

#include "appell/expression.hpp"
#include "appell/forces.hpp"
#include "appell/joint.hpp"

namespace appell {

class JointForce : public Force {
 public:
  explicit JointForce(std::shared_ptr<const Joint> joint);
  const Joint& joint() const { return *joint_; }
  int nu() const { return joint_->joint_type().nu(); }
  // τ at state s (nu entries), the joint's q, u read off its body states
  void generalized_force(const StateView& s, double* tau) const;
  // τ at the joint's own q (nq) and u (nu), a State's (the time and any body an
  // expression reads from s)
  void generalized_force(const StateView& s, const double* q, const double* u, double* tau) const;
  // τ·u, the rate at which this force does work on the system (G1)
  double power(const StateView& s) const;
  void apply(const StateView& s, SpatialForce* out) const final;
  const Joint* joint_space() const final { return joint_.get(); }
  void add_generalized_force(const StateView& s, const double* q, const double* u,
                             double* tau) const final;
  // ∂τ/∂q and ∂τ/∂u (nu × nu each, column-major) at (q, u), q along the joint's
  // quasi-velocities (the types springs and servos take have q̇ = u); for the exact
  // derivatives of the dynamics (appell/derivatives.hpp).  False when τ depends on the
  // state through more than this joint's q, u (expressions that read bodies or joints), and
  // by default: a force of your own that does not give them is differentiated numerically.
  virtual bool tau_derivatives(const StateView& /*s*/, const double* /*q*/, const double* /*u*/,
                               double* /*dq*/, double* /*du*/) const {
    return false;
  }

 protected:
  // τ from the joint's q (nq) and u (nu)
  virtual void tau(const StateView& s, const double* q, const double* u, double* out) const = 0;
  std::shared_ptr<const Joint> joint_;
};

using JointForcePtr = std::shared_ptr<const JointForce>;

// A joint torque/force input: constants, or one expression per u coordinate.
class JointTorque final : public JointForce {
 public:
  JointTorque(std::shared_ptr<const Joint> joint, const Eigen::VectorXd& value);
  JointTorque(std::shared_ptr<const Joint> joint, std::vector<Expression> value);
  std::string type() const override { return "joint_torque"; }
  size_t scratch_size() const override;
  bool tau_derivatives(const StateView& s, const double* q, const double* u, double* dq,
                       double* du) const override;

 private:
  void tau(const StateView& s, const double* q, const double* u, double* out) const override;
  Eigen::VectorXd constant_;
  std::vector<Expression> value_;
};

// A PD servo: τ = kp (q* − q) + kd (q̇* − u), one target expression per coordinate.
class JointServo final : public JointForce {
 public:
  JointServo(std::shared_ptr<const Joint> joint, double kp, double kd,
             std::vector<Expression> target);
  std::string type() const override { return "pd"; }
  size_t scratch_size() const override;
  bool tau_derivatives(const StateView& s, const double* q, const double* u, double* dq,
                       double* du) const override;

 private:
  void tau(const StateView& s, const double* q, const double* u, double* out) const override;
  double kp_, kd_;
  std::vector<Expression> target_;
  std::vector<char> periodic_;
};

// A joint spring-damper: τ = −k (q − q0) − c u, V = ½ k |q − q0|².
class JointSpring final : public JointForce {
 public:
  JointSpring(std::shared_ptr<const Joint> joint, double stiffness, const Eigen::VectorXd& rest,
              double damping);
  std::string type() const override { return "joint_spring"; }
  double potential(const StateView& s) const override;
  double joint_potential(const StateView& s, const double* q) const override;
  bool tau_derivatives(const StateView& s, const double* q, const double* u, double* dq,
                       double* du) const override;

 private:
  void tau(const StateView& s, const double* q, const double* u, double* out) const override;
  double error(const double* q, int k) const;
  double k_, c_;
  Eigen::VectorXd rest_;
  std::vector<char> periodic_;
};

// Viscous joint damping τ = −c u (what a URDF <dynamics damping="c"> means).
class JointDamping final : public JointForce {
 public:
  JointDamping(std::shared_ptr<const Joint> joint, double damping);
  std::string type() const override { return "joint_damping"; }
  bool tau_derivatives(const StateView& s, const double* q, const double* u, double* dq,
                       double* du) const override;

 private:
  void tau(const StateView& s, const double* q, const double* u, double* out) const override;
  double c_;
};

}  // namespace appell
