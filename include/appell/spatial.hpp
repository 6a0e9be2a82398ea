// Spatial quantities of a body about its centre of mass, in the world frame, as separate
// types so that motions and forces cannot be mixed up (spatial_v2's crm/crf distinction):
//
//   SpatialMotion  (v̄; ω)  or its rate (dv̄/dt; dω/dt)
//   SpatialForce   (f; τ)   a force at the centre of mass and a moment about it
//
// Shifting by r = x̄_C − x̄_P (C's centre seen from P's):
//   X a  : a motion of P seen at C:   (a_v + a_ω × r; a_ω)                        (X1)
//   Xᵀ F : a force at C moved to P:   (F_f; F_τ + r × F_f)                        (X2)
// so that (Xᵀ F)·a = F·(X a): power is the same at either point.
#pragma once

#include <Eigen/Core>

#include "appell/rotation.hpp"

namespace appell {

using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;

struct SpatialForce;

struct SpatialMotion {
  Vec6 vec = Vec6::Zero();
  SpatialMotion() = default;
  explicit SpatialMotion(const Vec6& v) : vec(v) {}
  auto linear() const { return vec.head<3>(); }
  auto angular() const { return vec.tail<3>(); }
  SpatialMotion& operator+=(const SpatialMotion& o) {
    vec += o.vec;
    return *this;
  }
  // X a (X1)
  SpatialMotion shifted(const Vec3& r) const {
    SpatialMotion out;
    out.vec.head<3>() = vec.head<3>() + vec.tail<3>().cross(r);
    out.vec.tail<3>() = vec.tail<3>();
    return out;
  }
  void setZero() { vec.setZero(); }
};

struct SpatialForce {
  Vec6 vec = Vec6::Zero();
  SpatialForce() = default;
  explicit SpatialForce(const Vec6& v) : vec(v) {}
  auto force() const { return vec.head<3>(); }
  auto moment() const { return vec.tail<3>(); }
  SpatialForce& operator+=(const SpatialForce& o) {
    vec += o.vec;
    return *this;
  }
  SpatialForce operator-() const { return SpatialForce(-vec); }
  // Xᵀ F (X2)
  SpatialForce shifted(const Vec3& r) const {
    SpatialForce out;
    out.vec.head<3>() = vec.head<3>();
    out.vec.tail<3>() = vec.tail<3>() + r.cross(vec.head<3>());
    return out;
  }
  void setZero() { vec.setZero(); }
};

inline SpatialMotion operator+(SpatialMotion a, const SpatialMotion& b) {
  return a += b;
}
inline SpatialForce operator+(SpatialForce a, const SpatialForce& b) {
  return a += b;
}
// I a: the force an inertia (articulated or rigid, 6 × 6) needs for the motion rate a
inline SpatialForce operator*(const Mat6& I, const SpatialMotion& a) {
  return SpatialForce(I * a.vec);
}
// power F·a
inline double dot(const SpatialForce& F, const SpatialMotion& a) {
  return F.vec.dot(a.vec);
}

}  // namespace appell
