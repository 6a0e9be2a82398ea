#include "appell/rotation.hpp"

#include <cmath>

namespace appell {

Quat quat_from_rotation_vector(const Vec3& theta) {
  const double angle = theta.norm();
  // sin(angle/2)/angle by its series near zero, so that small rotations stay exact
  const double half = 0.5 * angle;
  const double s = angle < 1e-8 ? 0.5 - angle * angle / 48.0 : std::sin(half) / angle;
  return Quat(std::cos(half), s * theta.x(), s * theta.y(), s * theta.z());
}

Vec3 rotation_vector_from_quat(const Quat& q_in) {
  Quat q = q_in;
  if (q.w() < 0) q.coeffs() = -q.coeffs();  // the shorter of the two equivalent rotations
  const Vec3 v = q.vec();
  const double s = v.norm();
  if (s < 1e-12) return 2.0 * v;  // θ ≈ 2 v for small angles
  const double angle = 2.0 * std::atan2(s, q.w());
  return (angle / s) * v;
}

double rotation_matrix_defect(const Mat3& Q) {
  const double ortho = (Q.transpose() * Q - Mat3::Identity()).cwiseAbs().maxCoeff();
  return std::max(ortho, std::abs(Q.determinant() - 1.0));
}

}  // namespace appell
