// Applied forces (docs/scene-format.md "Forces").  Gravity is a property of the model; everything
// else is a Force that adds wrenches (force at the centre of mass, moment about it, world frame)
// and, where it has one, contributes potential energy.
//
// A force F applied at the material point with offset r adds F to the resultant and
// r × F to the moment about the centre of mass [HO21 eq. 11].
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "appell/body.hpp"

namespace appell {

class Joint;

class Force {
 public:
  virtual ~Force() = default;
  virtual std::string type() const = 0;
  // Adds this force's wrench on each body to out[body] (out has one entry per body).
  virtual void apply(const StateView& s, SpatialForce* out) const = 0;
  // The joint-space capability (appell/joint_forces.hpp).  A force that acts only along
  // one joint's motion subspace names that joint here and gives its generalized force
  // from the joint's own coordinates in add_generalized_force().  Where the joint is an
  // edge of the model's tree, run in its own direction, the recursion adds that τ
  // straight into its joint-space force vector and never calls apply(); everywhere else
  // (maximal formulations, loop-closing joints, inverse dynamics) apply() is used, so the
  // two must agree: apply() adds the wrenches whose power is τ·u.  nullptr (the default):
  // a body-space force, always applied as wrenches.
  virtual const Joint* joint_space() const { return nullptr; }
  // Adds τ (the joint's nu entries) at state s, for the joint's coordinates q (nq) and
  // quasi-velocities u (nu).  Called only when joint_space() is not null.
  virtual void add_generalized_force(const StateView&, const double* /*q*/, const double* /*u*/,
                                     double* /*tau*/) const {}
  // Potential energy, or 0 when the force has none.
  virtual double potential(const StateView&) const { return 0.0; }
  // The same for the joint's coordinates q (nq), called only when joint_space() is not
  // null, with q from a State that owns them (appell/forward.hpp potential_energy); the
  // default reads the body states of s.
  virtual double joint_potential(const StateView& s, const double* /*q*/) const {
    return potential(s);
  }
  // doubles of StateView::scratch that apply()/potential() use (0: none)
  virtual size_t scratch_size() const { return 0; }
};

using ForcePtr = std::shared_ptr<const Force>;

// Linear spring-damper between two material points:  F = −(k (l − l0) + c dl/dt) e on B,
// the opposite on A;  V = ½ k (l − l0)².
class SpringForce final : public Force {
 public:
  SpringForce(int a, int b, const BodyState& a0, const BodyState& b0, const Vec3& pa,
              const Vec3& pb, double stiffness, double rest_length, double damping);
  std::string type() const override { return "spring"; }
  void apply(const StateView& s, SpatialForce* out) const override;
  double potential(const StateView& s) const override;

  // the two ends: body k (kWorld for the ground) and its point, body frame
  int body(int k) const { return k == 0 ? a_ : b_; }
  const Vec3& point(int k) const { return k == 0 ? Xa_ : Xb_; }

 private:
  int a_, b_;
  Vec3 Xa_, Xb_;
  double k_, l0_, c_;
};

// Constant world-frame force at a material point (default the centre of mass).
class PointForce final : public Force {
 public:
  PointForce(int body, const BodyState& body0, const Vec3& point, const Vec3& vector);
  std::string type() const override { return "force"; }
  void apply(const StateView& s, SpatialForce* out) const override;

 private:
  int body_;
  Vec3 X_, f_;
};

// Constant world-frame moment.
class TorqueForce final : public Force {
 public:
  TorqueForce(int body, const Vec3& vector) : body_(body), m_(vector) {}
  std::string type() const override { return "torque"; }
  void apply(const StateView&, SpatialForce* out) const override { out[body_].moment += m_; }

 private:
  int body_;
  Vec3 m_;
};

// Linear and angular viscous damping: F = −c_v v̄, M = −c_ω ω.
class DampingForce final : public Force {
 public:
  DampingForce(int body, double linear, double angular)
      : body_(body), linear_(linear), angular_(angular) {}
  std::string type() const override { return "damping"; }
  void apply(const StateView& s, SpatialForce* out) const override;

 private:
  int body_;
  double linear_, angular_;
};

// A user callable: adds wrenches for any state (embedding API).
class CallableForce final : public Force {
 public:
  using Fn = std::function<void(const StateView&, SpatialForce*)>;
  using PotentialFn = std::function<double(const StateView&)>;
  explicit CallableForce(Fn fn, PotentialFn potential = nullptr)
      : fn_(std::move(fn)), potential_(std::move(potential)) {}
  std::string type() const override { return "callable"; }
  void apply(const StateView& s, SpatialForce* out) const override { fn_(s, out); }
  double potential(const StateView& s) const override { return potential_ ? potential_(s) : 0.0; }

 private:
  Fn fn_;
  PotentialFn potential_;
};

}  // namespace appell
