#include "appell/inertia.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <sstream>

namespace appell {

Mat3 inertia_principal(const Vec3& moments) {
  return moments.asDiagonal();
}

Mat3 inertia_box(double mass, const Vec3& e) {
  const Vec3 sq = e.cwiseProduct(e);
  return inertia_principal(mass / 12.0 * Vec3(sq.y() + sq.z(), sq.x() + sq.z(), sq.x() + sq.y()));
}

Mat3 inertia_sphere(double mass, double radius) {
  return inertia_principal(Vec3::Constant(0.4 * mass * radius * radius));
}

Mat3 inertia_cylinder(double mass, double radius, double height) {
  const double t = mass * (3 * radius * radius + height * height) / 12.0;
  return inertia_principal(Vec3(t, t, 0.5 * mass * radius * radius));
}

static std::string format_vec(const Vec3& v) {
  std::ostringstream os;
  os.precision(6);
  os << "[" << v.x() << ", " << v.y() << ", " << v.z() << "]";
  return os.str();
}

std::string inertia_defect(const Mat3& J) {
  if (!J.allFinite()) return "inertia is not finite";
  const double scale = J.cwiseAbs().maxCoeff();
  if (scale <= 0) return "inertia is zero; expected positive principal moments";
  if ((J - J.transpose()).cwiseAbs().maxCoeff() > 1e-9 * scale)
    return "inertia matrix is not symmetric";
  Eigen::SelfAdjointEigenSolver<Mat3> eig(J, Eigen::EigenvaluesOnly);
  const Vec3 I = eig.eigenvalues();  // ascending
  if (I.minCoeff() <= 0) return "principal moments " + format_vec(I) + " are not all positive";
  if (I(2) > I(0) + I(1) + 1e-12 * scale)
    return "principal moments " + format_vec(I) + " violate the triangle inequality";
  // the formulations scale by J^{-1/2}: a moment below 1e-12 of the largest leaves the spin
  // about its axis below double precision (and a subnormal one overflows the scaled rows)
  if (I(0) < kMinInertiaRatio * I(2))
    return "principal moments " + format_vec(I) + ": the smallest is below 1e-12 of the largest";
  return "";
}

std::string inertia_semidefinite_defect(const Mat3& J) {
  const std::string defect = inertia_defect(J);
  if (defect.empty() || !J.allFinite()) return defect;
  const double scale = J.cwiseAbs().maxCoeff();
  if (scale <= 0) return "";  // zero
  if ((J - J.transpose()).cwiseAbs().maxCoeff() > 1e-9 * scale) return defect;
  Eigen::SelfAdjointEigenSolver<Mat3> eig(J, Eigen::EigenvaluesOnly);
  const Vec3 I = eig.eigenvalues();  // ascending
  // positive semi-definite up to round-off: a dummy link's, a sensor's; the triangle
  // inequality is the composite's to satisfy
  return I(0) >= -1e-9 * scale ? "" : defect;
}

}  // namespace appell
