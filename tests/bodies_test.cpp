// bodies/: inertia tensors of solid shapes, their validation, rotations, body kinematics.
//
// Shapes are checked against the textbook values for hand-picked dimensions and against a
// midpoint-rule quadrature of ∫ρ (|x|² I − x xᵀ) dV over the solid; rotations against
// Rodrigues' formula Q = I + sin θ K + (1 − cos θ) K², K = (θ/|θ|)×.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>

#include "engine/assembly/stages.hpp"

namespace appell {
namespace {

// ∫ (|x|² I − x xᵀ) dm over the solid {x : inside(x)} within the box [−h, h], by the
// midpoint rule on an n³ grid; the mass is spread uniformly over the cells inside.
Mat3 quadrature_inertia(double mass, const Vec3& half, int n,
                        const std::function<bool(const Vec3&)>& inside) {
  Mat3 sum = Mat3::Zero();
  int count = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        const Vec3 x = (Vec3(i, j, k) + Vec3::Constant(0.5)).cwiseProduct(2 * half) / n - half;
        if (!inside(x)) continue;
        sum += x.squaredNorm() * Mat3::Identity() - x * x.transpose();
        ++count;
      }
  return mass * sum / count;
}

TEST(Inertia, BoxTextbookAndQuadrature) {
  // m = 12, edges 1, 2, 3:  I = (2² + 3², 1² + 3², 1² + 2²) = (13, 10, 5)
  EXPECT_TRUE(inertia_box(12.0, Vec3(1, 2, 3))
                  .isApprox(Vec3(13, 10, 5).asDiagonal().toDenseMatrix(), 1e-15));
  const Vec3 edges(0.3, 0.5, 1.1);
  const Mat3 q = quadrature_inertia(2.5, edges / 2, 60, [](const Vec3&) { return true; });
  EXPECT_LE((inertia_box(2.5, edges) - q).norm(), 1e-3 * q.norm());
}

TEST(Inertia, SphereTextbookAndQuadrature) {
  EXPECT_DOUBLE_EQ(inertia_sphere(5.0, 2.0)(0, 0), 8.0);  // 2/5 · 5 · 2²
  EXPECT_TRUE(inertia_sphere(5.0, 2.0).isDiagonal());
  const double r = 0.7;
  const Mat3 q =
      quadrature_inertia(3.0, Vec3::Constant(r), 80, [r](const Vec3& x) { return x.norm() <= r; });
  EXPECT_LE((inertia_sphere(3.0, r) - q).norm(), 1e-2 * q.norm());
}

TEST(Inertia, CylinderTextbookAndQuadrature) {
  // m = 12, r = 1, h = 2:  I_xx = I_yy = 12 (3 + 4)/12 = 7,  I_zz = 12/2 = 6
  const Mat3 J = inertia_cylinder(12.0, 1.0, 2.0);
  EXPECT_TRUE(J.isApprox(Vec3(7, 7, 6).asDiagonal().toDenseMatrix(), 1e-15));
  const double r = 0.4, h = 1.3;
  const Mat3 q = quadrature_inertia(2.0, Vec3(r, r, h / 2), 80, [r](const Vec3& x) {
    return x.x() * x.x() + x.y() * x.y() <= r * r;
  });
  EXPECT_LE((inertia_cylinder(2.0, r, h) - q).norm(), 1e-2 * q.norm());
  // a thin disk obeys the perpendicular-axis theorem: I_zz = I_xx + I_yy
  const Mat3 disk = inertia_cylinder(1.0, 1.0, 1e-9);
  EXPECT_NEAR(disk(2, 2), disk(0, 0) + disk(1, 1), 1e-12);
}

TEST(Inertia, Validation) {
  EXPECT_EQ(inertia_defect(inertia_box(1.0, Vec3(0.1, 0.2, 0.3))), "");
  EXPECT_EQ(inertia_defect(Vec3(1, 1, 2).asDiagonal()), "");  // a thin disk: the limit case
  const Mat3 R = Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix();
  EXPECT_EQ(inertia_defect(R * Vec3(1, 2, 2.5).asDiagonal() * R.transpose()), "");
  EXPECT_EQ(inertia_defect(Vec3(1, 1, 3).asDiagonal()),
            "principal moments [1, 1, 3] violate the triangle inequality");
  // the inequality holds for the eigenvalues, whatever the frame
  EXPECT_NE(inertia_defect(R * Vec3(3, 1, 1).asDiagonal() * R.transpose()).find("triangle"),
            std::string::npos);
  // a needle whose axial moment is below double precision of the others (a subnormal one
  // overflowed the formulations' scaled rows): refused; 1e-11 of the largest is kept
  EXPECT_NE(inertia_defect(Vec3(1e-13, 1, 1).asDiagonal()).find("below 1e-12 of the largest"),
            std::string::npos);
  EXPECT_NE(inertia_defect(Vec3(1, 1e-320, 1).asDiagonal()), "");
  EXPECT_EQ(inertia_defect(Vec3(1e-11, 1, 1).asDiagonal()), "");
  EXPECT_EQ(inertia_defect(Vec3(1, -1, 1).asDiagonal()).find("principal moments"), 0u);
  EXPECT_NE(inertia_defect(Vec3(1, -1, 1).asDiagonal()).find("not all positive"),
            std::string::npos);
  Mat3 skew_part = Mat3::Identity();
  skew_part(0, 1) = 0.1;
  EXPECT_EQ(inertia_defect(skew_part), "inertia matrix is not symmetric");
  EXPECT_EQ(inertia_defect(Mat3::Zero()), "inertia is zero; expected positive principal moments");
  Mat3 nan = Mat3::Identity();
  nan(1, 1) = std::nan("");
  EXPECT_EQ(inertia_defect(nan), "inertia is not finite");
}

TEST(Inertia, ModelRejectsUnphysicalBodies) {
  ModelBuilder m_b;
  Body b;
  b.name = "slab";
  b.inertia = Vec3(1, 1, 3).asDiagonal();
  // accepted here (a body welded to others may have it); compile() rejects it alone
  try {
    ModelBuilder alone;
    alone.add_body(b);
    (void)compile(alone);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "compile(): body 'slab': principal moments [1, 1, 3] violate the triangle "
                 "inequality");
  }
  b.inertia = Mat3::Identity();
  b.mass = 0.0;  // accepted here (a welded link may have none); compile() rejects it alone
  {
    ModelBuilder massless;
    massless.add_body(b);
    EXPECT_THROW(compile(massless), std::invalid_argument);
  }
  b.mass = -1.0;
  EXPECT_THROW(m_b.add_body(b), std::invalid_argument);
  b.mass = 1.0;
  b.name = "world";
  EXPECT_THROW(m_b.add_body(b), std::invalid_argument);
  b.name = "slab";
  EXPECT_EQ(m_b.add_body(b), 0);
  EXPECT_THROW(m_b.add_body(b), std::invalid_argument);  // duplicate name
  // a particle's inertia is never looked at
  b.name = "dot";
  b.type = BodyType::Particle;
  b.inertia = Mat3::Zero();
  EXPECT_EQ(m_b.add_body(b), 1);
  const Model m = compile(m_b);
  EXPECT_EQ(m.nq(), 10);
  EXPECT_EQ(m.nu(), 9);
  EXPECT_EQ(m.u_offset(1), 6);
}

// ---- rotations ----------------------------------------------------------------------------

Mat3 rodrigues(const Vec3& theta) {
  const double a = theta.norm();
  if (a == 0) return Mat3::Identity();
  const Mat3 K = skew(theta / a);
  return Mat3::Identity() + std::sin(a) * K + (1 - std::cos(a)) * K * K;
}

TEST(Rotation, SkewIsTheCrossProduct) {
  const Vec3 a(0.3, -1.2, 2.0), b(-0.7, 0.4, 1.1);
  EXPECT_TRUE((skew(a) * b).isApprox(a.cross(b), 1e-15));
  EXPECT_TRUE(skew(a).transpose().isApprox(-skew(a)));
}

TEST(Rotation, RoundTripsQuaternionMatrixRotationVector) {
  std::mt19937_64 gen(42);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int k = 0; k < 200; ++k) {
    Vec3 axis(u(gen), u(gen), u(gen));
    axis.normalize();
    // angles from tiny to just below π, where the rotation vector is unique
    const double angle = k < 20 ? std::pow(10.0, -k) : (M_PI - 1e-6) * std::abs(u(gen));
    const Vec3 theta = angle * axis;
    SCOPED_TRACE("theta = [" + std::to_string(theta.x()) + ", " + std::to_string(theta.y()) + ", " +
                 std::to_string(theta.z()) + "], |theta| = " + std::to_string(angle));
    // rotation vector → quaternion: unit, and the matrix is Rodrigues'
    const Quat q = quat_from_rotation_vector(theta);
    EXPECT_NEAR(q.norm(), 1.0, 1e-15);
    const Mat3 Q = q.toRotationMatrix();
    EXPECT_LE((Q - rodrigues(theta)).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_LE(rotation_matrix_defect(Q), 4e-15);
    // quaternion → rotation vector, also through the matrix and from −q
    EXPECT_LE((rotation_vector_from_quat(q) - theta).norm(), 1e-14 * angle);
    const Quat minus_q(-q.w(), -q.x(), -q.y(), -q.z());
    EXPECT_LE((rotation_vector_from_quat(minus_q) - theta).norm(), 1e-14 * angle);
    EXPECT_LE((rotation_vector_from_quat(Quat(Q)) - theta).norm(), 1e-14 * angle + 1e-15);
    // matrix → quaternion → matrix
    EXPECT_LE((Quat(Q).toRotationMatrix() - Q).cwiseAbs().maxCoeff(), 4e-15);
  }
  // exactly π: either of ±θ is the same rotation
  const Vec3 half_turn = M_PI * Vec3(0, 0.6, 0.8);
  const Vec3 back = rotation_vector_from_quat(quat_from_rotation_vector(half_turn));
  EXPECT_NEAR(back.norm(), M_PI, 1e-14);
  EXPECT_LE((rodrigues(back) - rodrigues(half_turn)).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_EQ(rotation_vector_from_quat(Quat::Identity()), Vec3::Zero());
}

TEST(Rotation, MatrixDefect) {
  EXPECT_LE(rotation_matrix_defect(Mat3::Identity()), 0.0);
  EXPECT_NEAR(rotation_matrix_defect(Vec3(1, 1, -1).asDiagonal()), 2.0, 1e-15);  // a reflection
  // 1.01 I: |QᵀQ − I| = 0.0201, |det − 1| = 1.01³ − 1
  EXPECT_NEAR(rotation_matrix_defect(1.01 * Mat3::Identity()), 1.01 * 1.01 * 1.01 - 1, 1e-15);
}

// ---- body kinematics (docs/architecture.md)
// --------------------------------------------------------------

// v = v̄ + ω × (x − x̄) is the time derivative of x = x̄ + Q X along the motion.
TEST(BodyState, PointVelocityIsTheRateOfThePoint) {
  BodyState s;
  s.x = Vec3(0.1, 0.2, -0.3);
  s.Q = rodrigues(Vec3(0.4, -0.9, 0.2));
  s.v = Vec3(1.0, -0.5, 0.25);
  s.w = Vec3(-0.3, 0.8, 1.7);
  const Vec3 X(0.5, -0.2, 0.7);
  const double h = 1e-5;
  auto at = [&](double t) { return Vec3(s.x + s.v * t + rodrigues(s.w * t) * s.Q * X); };
  const Vec3 fd = (at(h) - at(-h)) / (2 * h);
  EXPECT_LE((s.point_velocity(X) - fd).norm(), 1e-9);
  EXPECT_TRUE(s.point(X).isApprox(s.x + s.Q * X));
  EXPECT_TRUE(s.offset(X).isApprox(s.Q * X));
}

TEST(BodyState, WorldIsAtRest) {
  const BodyState one{Vec3(1, 2, 3), Mat3::Identity(), Vec3(1, 1, 1), Vec3(2, 2, 2)};
  const StateView view{&one, 0.0};
  EXPECT_EQ(view.body(kWorld).x, Vec3::Zero());
  EXPECT_EQ(view.body(kWorld).v, Vec3::Zero());
  EXPECT_EQ(view.body(kWorld).w, Vec3::Zero());
  EXPECT_EQ(view.body(kWorld).Q, Mat3::Identity());
  EXPECT_EQ(view.body(0).x, Vec3(1, 2, 3));
}

}  // namespace
}  // namespace appell
