// A universal joint built in code with axes that are not perpendicular (a scene refuses
// them; the C++ API takes them): the child's axis is taken across the first, so the joint
// frame is a rotation, the joint's own rows hold at the start, and the exact derivatives
// agree with finite differences (with the raw axes the frame was skewed: the start broke the
// joint's own rows and ∂τ/∂q disagreed with differences by 1e-3).  Parallel axes throw.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/derivatives.hpp>
#include <appell/inverse_dynamics.hpp>
#include <cmath>
#include <stdexcept>

namespace appell {
namespace {

Body rod(const std::string& name, const Vec3& at) {
  Body b;
  b.name = name;
  b.mass = 1.5;
  b.inertia = Vec3(0.02, 0.03, 0.01).asDiagonal();
  b.position = at;
  return b;
}

// two rods: a revolute from the world, then the universal joint with the given axes
Model cardan(const Vec3& axis, const Vec3& axis2) {
  ModelBuilder b;
  b.gravity = Vec3(0, 0, -9.81);
  b.add_body(rod("upper", Vec3(0, 0, -0.2)));
  b.add_body(rod("lower", Vec3(0, 0, -0.6)));
  b.add_constraint(std::make_shared<Joint>("hinge", joint_type("revolute"), kWorld, 0,
                                           b.initial_state(kWorld), b.initial_state(0),
                                           Vec3::Zero(), Vec3(1, 0, 0)));
  b.add_constraint(std::make_shared<Joint>("cardan", joint_type("universal"), 0, 1,
                                           b.initial_state(0), b.initial_state(1), Vec3(0, 0, -0.4),
                                           axis, axis2));
  return compile(b);
}

TEST(UniversalAxes, SkewAxesMakeAnOrthonormalFrame) {
  const Vec3 axis = Vec3(1, 0.2, 0).normalized();
  const Vec3 skew = Vec3(0.5, 1, 0.1).normalized();  // 60° from the first, not 90°
  const Model m = cardan(axis, skew);
  const Mat3 E = joint_type("universal").axes(axis, skew);
  EXPECT_LT((E.transpose() * E - Mat3::Identity()).norm(), 1e-15);
  EXPECT_LT((E.col(0) - axis).norm(), 1e-15);
  EXPECT_LT(E.col(1).dot(axis), 1e-15);
  // the same joint as with the perpendicular part of the second axis
  const Vec3 across = (skew - skew.dot(axis) * axis).normalized();
  EXPECT_LT((joint_type("universal").axes(axis, across) - E).norm(), 1e-15);

  // the joint's own rows (the maximal formulations evaluate them) hold at the start
  Data d(m);
  ASSERT_EQ(forward(m, d, Formulation::Pinv), SolveStatus::Ok) << d.diagnostics.message;
  EXPECT_LT(d.position_residual.cwiseAbs().maxCoeff(), 1e-14);

  // exact ∂τ/∂q against central differences along the tangent
  State s = m.initial_state();
  s.q << 0.3, -0.4, 0.7;
  s.u << 0.5, -1.1, 0.8;
  const Eigen::VectorXd udot = Eigen::Vector3d(0.2, -0.3, 0.4);
  InverseDerivatives id;
  inverse_dynamics_derivatives(m, d, s, udot, id);
  const double h = 1e-5;
  for (int k = 0; k < 3; ++k) {
    State p = s, n = s;
    p.q = tangent_step(m, s.q, h * Eigen::Vector3d::Unit(k));
    n.q = tangent_step(m, s.q, -h * Eigen::Vector3d::Unit(k));
    Eigen::VectorXd tp, tn;
    inverse_dynamics(m, d, p, udot, tp);
    inverse_dynamics(m, d, n, udot, tn);
    EXPECT_LT(((tp - tn) / (2 * h) - id.dtau_dq.col(k)).norm(), 1e-7) << "column " << k;
  }
}

TEST(UniversalAxes, ParallelAxesThrow) {
  EXPECT_THROW(cardan(Vec3(1, 0, 0), Vec3(2, 0, 0)), std::invalid_argument);
}

}  // namespace
}  // namespace appell
