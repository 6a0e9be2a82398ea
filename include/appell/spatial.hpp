// The one spatial vocabulary: every quantity of one body that has a linear and an angular
// part, in the world frame, about (or at) one point: the body's centre of mass unless the
// code says another (the analytical derivatives take all of them about the world origin).
// Motions and forces are separate types so that they cannot be mixed up (spatial_v2's
// crm/crf distinction):
//
//   SpatialMotion  (v̄; ω)  or its rate (dv̄/dt; dω/dt), or a motion per unit of a coordinate
//   SpatialForce   (f; τ)   a force at the centre of mass and a moment about it
//
// A SpatialForce is also what a constraint row holds for each body: its coefficients
// (∂π/∂v̄, ∂π/∂ω) are, by Lagrange's prescription [HO21 eq. 15], the force and moment the row
// applies per unit multiplier (appell/constraint.hpp, C2).  So the applied forces, the rows'
// coefficients, the constraint forces and the recursion's forces are one type, by one name.
//
// Shifting by r = x̄_C − x̄_P (C's centre seen from P's):
//   X a  : a motion of P seen at C:   (a_v + a_ω × r; a_ω)                        (X1)
//   Xᵀ F : a force at C moved to P:   (F_f; F_τ + r × F_f)                        (X2)
// so that (Xᵀ F)·a = F·(X a): power is the same at either point.  Two motions, or a motion
// and a force, about one point have the spatial cross products
//   a × b  = (a_ω × b_v + a_v × b_ω; a_ω × b_ω)     the rate of b carried by a   (X3)
//   a ×* F = (a_ω × F_f; a_ω × F_τ + a_v × F_f)     the rate of F carried by a   (X4)
// with (a ×* F)·b = −F·(a × b).
//
// Both are templates over the scalar, so that the rows' derivatives (jets) and the dynamics'
// (dual numbers) speak them too; SpatialMotion and SpatialForce are the double ones.
//
// In a maximal vector (one block per body: 6 entries for a rigid body, 3 for a particle),
// a body's block is read and written through BodyBlock, the one place where a particle's
// missing angular part is handled.
#pragma once

#include <Eigen/Core>

#include "appell/rotation.hpp"

namespace appell {

using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;

template <class S>
struct SpatialMotionT {
  using V3 = Eigen::Matrix<S, 3, 1>;
  using V6 = Eigen::Matrix<S, 6, 1>;
  V3 linear = V3::Zero();
  V3 angular = V3::Zero();

  SpatialMotionT() = default;
  SpatialMotionT(const V3& v, const V3& w) : linear(v), angular(w) {}
  // (linear; angular) as one column, and back: the joints' 6 × nu blocks act on these
  static SpatialMotionT from_vec(const V6& x) {
    return {x.template head<3>(), x.template tail<3>()};
  }
  V6 vec() const {
    V6 x;
    x << linear, angular;
    return x;
  }
  SpatialMotionT& operator+=(const SpatialMotionT& o) {
    linear += o.linear;
    angular += o.angular;
    return *this;
  }
  SpatialMotionT& operator-=(const SpatialMotionT& o) {
    linear -= o.linear;
    angular -= o.angular;
    return *this;
  }
  // adds the 6-column x (S u̇, say)
  template <class Derived>
  SpatialMotionT& add(const Eigen::MatrixBase<Derived>& x) {
    linear += x.template head<3>();
    angular += x.template tail<3>();
    return *this;
  }
  // X a (X1)
  SpatialMotionT shifted(const V3& r) const { return {linear + angular.cross(r), angular}; }
  void setZero() {
    linear.setZero();
    angular.setZero();
  }
};

template <class S>
struct SpatialForceT {
  using V3 = Eigen::Matrix<S, 3, 1>;
  using V6 = Eigen::Matrix<S, 6, 1>;
  V3 force = V3::Zero();
  V3 moment = V3::Zero();

  SpatialForceT() = default;
  SpatialForceT(const V3& f, const V3& m) : force(f), moment(m) {}
  static SpatialForceT from_vec(const V6& x) {
    return {x.template head<3>(), x.template tail<3>()};
  }
  V6 vec() const {
    V6 x;
    x << force, moment;
    return x;
  }
  // the force f at a material point with offset r from the centre [HO21 eq. 11]
  void add_at(const V3& r, const V3& f) {
    force += f;
    moment += r.cross(f);
  }
  SpatialForceT& operator+=(const SpatialForceT& o) {
    force += o.force;
    moment += o.moment;
    return *this;
  }
  SpatialForceT& operator-=(const SpatialForceT& o) {
    force -= o.force;
    moment -= o.moment;
    return *this;
  }
  SpatialForceT operator-() const { return {-force, -moment}; }
  // Xᵀ F (X2)
  SpatialForceT shifted(const V3& r) const { return {force, moment + r.cross(force)}; }
  void setZero() {
    force.setZero();
    moment.setZero();
  }
};

using SpatialMotion = SpatialMotionT<double>;
using SpatialForce = SpatialForceT<double>;

template <class S>
SpatialMotionT<S> operator+(SpatialMotionT<S> a, const SpatialMotionT<S>& b) {
  return a += b;
}
template <class S>
SpatialMotionT<S> operator-(SpatialMotionT<S> a, const SpatialMotionT<S>& b) {
  return a -= b;
}
template <class S>
SpatialMotionT<S> operator*(const S& k, const SpatialMotionT<S>& a) {
  return {k * a.linear, k * a.angular};
}
template <class S>
SpatialForceT<S> operator+(SpatialForceT<S> a, const SpatialForceT<S>& b) {
  return a += b;
}
template <class S>
SpatialForceT<S> operator-(SpatialForceT<S> a, const SpatialForceT<S>& b) {
  return a -= b;
}
template <class S>
SpatialForceT<S> operator*(const S& k, const SpatialForceT<S>& F) {
  return {k * F.force, k * F.moment};
}
// I a: the force an inertia (articulated or rigid, 6 × 6) needs for the motion rate a,
// by 3 × 3 blocks (inlined always, like the cross products below: the derivatives' passes
// run 10–20% slower when the compiler calls them)
EIGEN_ALWAYS_INLINE SpatialForce operator*(const Mat6& I, const SpatialMotion& a) {
  SpatialForce F;
  F.force.noalias() = I.topLeftCorner<3, 3>() * a.linear + I.topRightCorner<3, 3>() * a.angular;
  F.moment.noalias() =
      I.bottomLeftCorner<3, 3>() * a.linear + I.bottomRightCorner<3, 3>() * a.angular;
  return F;
}
// power F·a
template <class S>
S dot(const SpatialForceT<S>& F, const SpatialMotionT<S>& a) {
  return F.force.dot(a.linear) + F.moment.dot(a.angular);
}
// a × b (X3)
template <class S>
EIGEN_ALWAYS_INLINE SpatialMotionT<S> cross(const SpatialMotionT<S>& a,
                                            const SpatialMotionT<S>& b) {
  SpatialMotionT<S> r;
  r.linear = a.angular.cross(b.linear) + a.linear.cross(b.angular);
  r.angular = a.angular.cross(b.angular);
  return r;
}
// a ×* F (X4)
template <class S>
EIGEN_ALWAYS_INLINE SpatialForceT<S> cross(const SpatialMotionT<S>& a, const SpatialForceT<S>& F) {
  SpatialForceT<S> r;
  r.force = a.angular.cross(F.force);
  r.moment = a.angular.cross(F.moment) + a.linear.cross(F.force);
  return r;
}

// A body's block of a maximal vector (velocities, accelerations, forces): `offset` its
// first entry, then the linear part (3) and, for a rigid body only, the angular part (3).
struct BodyBlock {
  int offset = 0;
  bool rigid = true;
  int size() const { return rigid ? 6 : 3; }

  // the block as a motion (a particle's angular part zero)
  template <class V>
  SpatialMotion motion(const V& x) const {
    return {x.template segment<3>(offset),
            rigid ? Vec3(x.template segment<3>(offset + 3)) : Vec3::Zero()};
  }
  // x's block = F (or a), or += F (a particle takes the linear part alone)
  template <class V>
  void set(V&& x, const SpatialForce& F) const {
    set_parts(x, F.force, F.moment);
  }
  template <class V>
  void set(V&& x, const SpatialMotion& a) const {
    set_parts(x, a.linear, a.angular);
  }
  template <class V>
  void add(V&& x, const SpatialForce& F) const {
    x.template segment<3>(offset) += F.force;
    if (rigid) x.template segment<3>(offset + 3) += F.moment;
  }
  // F · (x's block): the power of F on the body's velocities in x (or a row times them)
  template <class V>
  double dot(const SpatialForce& F, const V& x) const {
    double p = F.force.dot(x.template segment<3>(offset));
    if (rigid) p += F.moment.dot(x.template segment<3>(offset + 3));
    return p;
  }

 private:
  template <class V>
  void set_parts(V& x, const Vec3& linear, const Vec3& angular) const {
    x.template segment<3>(offset) = linear;
    if (rigid) x.template segment<3>(offset + 3) = angular;
  }
};

}  // namespace appell
