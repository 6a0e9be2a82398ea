// Joint motions and their derivatives (JointType::motion_tangent), which the derivatives of
// the dynamics take for every joint (appell/derivatives.hpp): every registered type against
// Richardson differences of its own motion(), and a joint type written here, in one place,
// differentiated through a tree with no other line of code.
#include <gtest/gtest.h>

#include <appell/derivatives.hpp>
#include <appell/jacobians.hpp>
#include <appell/joint.hpp>
#include <appell/model.hpp>
#include <cmath>
#include <random>
#include <string>

#include "constraints/joints/common.hpp"
#include "numeric_derivatives.hpp"

namespace appell {
namespace {

using test_derivatives::rel_gap;
using test_derivatives::richardson;

// R, d, the first nu columns of S and c, stacked
Eigen::VectorXd stacked(const JointMotion& m, int nu) {
  Eigen::VectorXd out(9 + 3 + 6 * nu + 6);
  int k = 0;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) out(k++) = m.R(r, c);
  for (int r = 0; r < 3; ++r) out(k++) = m.d(r);
  for (int c = 0; c < nu; ++c)
    for (int r = 0; r < 6; ++r) out(k++) = m.S(r, c);
  for (int r = 0; r < 6; ++r) out(k++) = m.c(r);
  return out;
}

TEST(JointMotionTangent, EveryRegisteredTypeAgreesWithDifferencesOfItsMotion) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> draw(-1.0, 1.0);
  for (const JointType* type : joint_types()) {
    SCOPED_TRACE(type->name());
    const int nq = type->nq(), nu = type->nu();
    for (int trial = 0; trial < 3; ++trial) {
      double q[8], u[8], dq[8], du[8];
      for (int k = 0; k < nq; ++k) q[k] = draw(rng), dq[k] = draw(rng);
      for (int k = 0; k < nu; ++k) u[k] = draw(rng), du[k] = draw(rng);
      type->normalize(q);
      JointMotion m, dm, ref;
      m.S.setZero(), dm.S.setZero(), ref.S.setZero();
      ASSERT_TRUE(type->motion_tangent(q, u, dq, du, m, dm));
      type->motion(q, u, ref);
      EXPECT_LE(rel_gap(stacked(m, nu), stacked(ref, nu)), 1e-15);
      const Eigen::VectorXd slope = richardson(
          [&](double h) {
            double qh[8], uh[8];
            for (int k = 0; k < nq; ++k) qh[k] = q[k] + h * dq[k];
            for (int k = 0; k < nu; ++k) uh[k] = u[k] + h * du[k];
            JointMotion x;
            x.S.setZero();
            type->motion(qh, uh, x);
            return stacked(x, nu);
          },
          1e-2);
      EXPECT_LE(rel_gap(stacked(dm, nu), slope), 1e-9);
    }
  }
}

// A hinge about the joint frame's x axis, written as a built-in type is: one class, its
// motion and rows once, as templates over the scalar (JointRows).
class HingeX final : public JointRows<HingeX> {
 public:
  const char* name() const override { return "hinge_x"; }
  int nq() const override { return 1; }
  int nu() const override { return 1; }
  JointSyntax syntax() const override { return {true, 1, true}; }
  bool angle(int) const override { return true; }
  template <class S, class Motion>
  void write_motion(const S* q, const S*, Motion& m) const {
    m.R = joint_math::rot_x(q[0]);
    m.d.setZero();
    joint_math::turn(m, 0, Vec3::UnitX());
    m.c.setZero();
  }
  void coordinates(const Mat3& R, const Vec3&, double* q) const override {
    q[0] = std::atan2(R(2, 1), R(1, 1));
  }
  int rows() const override { return 5; }
  template <class View, class Span>
  void write_rows(const View& in, End P, End C, const JointFrames& f, const Span& out) const {
    int row = point_coincident_rows(in, P, C, f.X_P, f.X_C, out, 0);
    row = angle_row(in, P, C, f.E_P.col(1), f.E_C.col(0), 0.0, out, row);
    angle_row(in, P, C, f.E_P.col(2), f.E_C.col(0), 0.0, out, row);
  }
  void multipliers(const BodyState& P, const BodyState& C, const JointFrames& fr, const Vec3& f,
                   const Vec3& m, double* l) const override {
    joint_math::point_multipliers(f, l);
    const Vec3 c = C.Q * fr.E_C.col(0);
    joint_math::angle_multipliers(c.cross(P.Q * fr.E_P.col(1)), c.cross(P.Q * fr.E_P.col(2)), m,
                                  l + 3);
  }
};

TEST(JointMotionTangent, ATypeWrittenInOnePlaceIsDifferentiatedThroughATree) {
  static const HingeX hinge;
  ModelBuilder b;
  b.gravity = Vec3(0.2, 0.1, -9.81);
  for (int i = 0; i < 3; ++i) {
    Body body;
    body.name = "link" + std::to_string(i);
    body.mass = 1.0 + 0.3 * i;
    body.inertia = Vec3(0.02, 0.03 + 0.01 * i, 0.04).asDiagonal();
    body.position = Vec3(0.1 * i, 0.05, -0.3 * (i + 1));
    b.add_body(body);
    const int parent = i == 0 ? kWorld : i - 1;
    const Vec3 axis = Vec3(0.3 * i, 1.0, 0.2).normalized();
    b.add_constraint(std::make_shared<Joint>("j" + std::to_string(i), hinge, parent, i,
                                             b.initial_state(parent), b.initial_state(i),
                                             Vec3(0.1 * i, 0, -0.3 * i), axis));
  }
  const Model m = compile(b);
  ASSERT_EQ(m.tree().nu, 3);
  State s = m.initial_state();
  s.q << 0.3, -0.5, 0.8;
  s.u << 0.7, -0.2, 0.4;
  Data d(m);
  ForwardDerivatives fd;
  forward_dynamics_derivatives(m, d, s, Eigen::VectorXd(), fd);
  const test_derivatives::NumericDerivatives ref =
      test_derivatives::numeric_derivatives(m, s, fd.udot, Eigen::VectorXd::Zero(3));
  EXPECT_LE(rel_gap(fd.dudot_dq, ref.fd_q), 1e-8);
  EXPECT_LE(rel_gap(fd.dudot_du, ref.fd_u), 1e-8);
  EXPECT_LE(rel_gap(fd.dudot_dtau, ref.fd_tau), 1e-8);
}

}  // namespace
}  // namespace appell
