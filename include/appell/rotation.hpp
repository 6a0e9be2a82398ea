// Rotations: unit quaternions [w, x, y, z], rotation tensors Q and axis-angle.
//
// A rigid body's orientation is stored as a unit quaternion and exposed as the rotation
// tensor Q, which maps body-frame vectors to the world frame (e_i = Q E_i, [HO21 §2]).
// The rotation vector θ (axis times angle) is the exponential coordinate: Q = exp(θ×).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace appell {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;

// a× : the skew-symmetric matrix with (a×) b = a × b.
inline Mat3 skew(const Vec3& a) {
  Mat3 S;
  S << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return S;
}

// Q = exp(θ×) as a quaternion; exact for every θ (Rodrigues).
Quat quat_from_rotation_vector(const Vec3& theta);

// The rotation vector θ, |θ| ≤ π, of a unit quaternion: the inverse of the above.
Vec3 rotation_vector_from_quat(const Quat& q);

// Quaternion from [w, x, y, z]; the caller normalises.
inline Quat quat_wxyz(double w, double x, double y, double z) {
  return Quat(w, x, y, z);
}

// The rotation tensor's distance from SO(3): max(|QᵀQ − I|_max, |det Q − 1|).
double rotation_matrix_defect(const Mat3& Q);

}  // namespace appell
