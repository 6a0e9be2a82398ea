// Prescribed motion as a constraint (constraints/prescribed.cpp): the reported joint
// forces against closed-form inverse dynamics of a two-link arm, in every formulation.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/joint_state.hpp>
#include <appell/trajectory.hpp>
#include <cmath>
#include <cstdio>

#include "random_chain.hpp"
#include "two_link_arm.hpp"

namespace appell {
namespace {

// The two-link arm of tests/two_link_arm.hpp as a Model.
struct Arm : test_arm::TwoLinkArm {
  Body link(const char* name, double mass, double I, double x) const {
    Body b;
    b.name = name;
    b.mass = mass;
    b.inertia = Vec3(I, I, I).asDiagonal();
    b.position = Vec3(x, 0, 0);
    return b;
  }

  // the arm with joints "shoulder", "elbow" and, when `prescribe`, their coordinates
  // following q1(t), q2(t)
  ModelBuilder builder(bool prescribe) const {
    ModelBuilder b;
    b.gravity = Vec3(0, -g, 0);
    b.add_body(link("upper", m1, I1, c1));
    b.add_body(link("fore", m2, I2, l1 + c2));
    auto shoulder = std::make_shared<Joint>("shoulder", joint_type("revolute"), kWorld, 0,
                                            b.initial_state(kWorld), b.initial_state(0),
                                            Vec3::Zero(), Vec3::UnitZ());
    auto elbow = std::make_shared<Joint>("elbow", joint_type("revolute"), 0, 1, b.initial_state(0),
                                         b.initial_state(1), Vec3(l1, 0, 0), Vec3::UnitZ());
    b.add_constraint(shoulder);
    b.add_constraint(elbow);
    if (prescribe) {
      auto f = [](const char* text) { return Expression::parse(text, {}, nullptr); };
      b.add_constraint(std::make_shared<PrescribedJointConstraint>("drive1", shoulder, 0,
                                                                   f("0.3 + 0.5*sin(1.3*t)")));
      b.add_constraint(std::make_shared<PrescribedJointConstraint>(
          "drive2", elbow, 0, f("-0.2 + 0.4*cos(2*t) + 0.1*t^2")));
    }
    return b;
  }
};

// the prescribed trajectory and its exact derivatives
void trajectory(double t, Eigen::Vector2d& q, Eigen::Vector2d& qd, Eigen::Vector2d& qdd) {
  q << 0.3 + 0.5 * std::sin(1.3 * t), -0.2 + 0.4 * std::cos(2 * t) + 0.1 * t * t;
  qd << 0.65 * std::cos(1.3 * t), -0.8 * std::sin(2 * t) + 0.2 * t;
  qdd << -0.845 * std::sin(1.3 * t), -1.6 * std::cos(2 * t) + 0.2;
}

TEST(Prescribed, TwoLinkArmTorquesEqualInverseDynamics) {
  const Arm arm;
  const Model m = compile(arm.builder(true));
  for (Formulation f :
       {Formulation::Recursive, Formulation::GibbsAppell, Formulation::Pinv, Formulation::Sparse})
    for (double t : {0.0, 0.4, 1.1, 2.5}) {
      Eigen::Vector2d q, qd, qdd;
      trajectory(t, q, qd, qdd);
      State s{t, q, qd};
      Data d(m);
      ASSERT_EQ(forward(m, d, s, SolverOptions{f, Stabilization{}}), SolveStatus::Ok);
      const Eigen::Vector2d tau = arm.torques(q, qd, qdd);
      const Eigen::Vector2d lambda(d.lambda(m.row_offset(2)), d.lambda(m.row_offset(3)));
      EXPECT_LT((lambda - tau).norm(), 1e-9 * (1 + tau.norm()))
          << formulation_name(f) << " t = " << t << ": " << lambda.transpose() << " vs "
          << tau.transpose();
      // the motion is the prescribed one: the links' angular accelerations are q̈
      EXPECT_NEAR(d.udot(m.u_offset(0) + 5), qdd(0), 1e-9);
      EXPECT_NEAR(d.udot(m.u_offset(1) + 5), qdd(0) + qdd(1), 1e-9);
    }
}

TEST(Prescribed, RneaAgreesWithTheClosedForm) {
  const Arm arm;
  const Model m = compile(arm.builder(false));
  Data d(m);
  Eigen::Vector2d q, qd, qdd;
  trajectory(0.7, q, qd, qdd);
  Eigen::VectorXd tau;
  inverse_dynamics(m, d, State{0.7, q, qd}, qdd, tau);
  EXPECT_LT((tau - arm.torques(q, qd, qdd)).norm(), 1e-12 * (1 + tau.norm()));
}

TEST(Prescribed, SimulatedArmFollowsTheTrajectory) {
  const Arm arm;
  const Model m = compile(arm.builder(true));
  SimulationOptions o;
  o.formulation = Formulation::Recursive;
  o.stabilization = Stabilization{Stabilization::Type::Baumgarte, 10, 10};
  o.integrator.method = "rk4";
  o.integrator.dt = 1e-3;
  o.integrator.duration = 1.0;
  o.every = 100;
  Simulation sim(m, o);
  Eigen::Vector2d q0, qd0, qdd0;
  trajectory(0.0, q0, qd0, qdd0);
  double worst = 0.0;
  int samples = 0;
  const SimulationResult r = sim.run(State{0.0, q0, qd0}, [&](const Sample& s) {
    Eigen::Vector2d q, qd, qdd, qj;
    trajectory(s.t, q, qd, qdd);
    for (int k = 0; k < 2; ++k)
      joint_coordinates(static_cast<const Joint&>(*m.constraints()[k]), s.data.view(), &qj(k),
                        nullptr);
    worst = std::max(worst, (qj - q).cwiseAbs().maxCoeff());
    const Eigen::Vector2d lambda(s.data.lambda(m.row_offset(2)), s.data.lambda(m.row_offset(3)));
    EXPECT_LT((lambda - arm.torques(q, qd, qdd)).norm(), 1e-6) << "t = " << s.t;
    ++samples;
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_GE(samples, 10);
  EXPECT_LT(worst, 1e-8);
}

TEST(Prescribed, PointOfAFreeBodyNeedsMassTimesAcceleration) {
  // the centre of a free body following p(t): the force is m (p̈ − g), in every formulation
  ModelBuilder b;
  b.gravity = Vec3(0, 0, -9.81);
  Body body;
  body.name = "ball";
  body.mass = 2.5;
  body.inertia = Vec3(0.1, 0.2, 0.3).asDiagonal();
  body.position = Vec3(1, 0, 0);
  body.velocity = Vec3(0, 2, 0.5);  // ṗ(0)
  body.angular_velocity = Vec3(0.3, -0.2, 1.0);
  b.add_body(body);
  auto e = [](const char* text) { return Expression::parse(text, {}, nullptr); };
  b.add_constraint(std::make_shared<PrescribedPointConstraint>(
      "path", 0, b.initial_state(0), Vec3(1, 0, 0),
      std::array<Expression, 3>{e("cos(2*t)"), e("sin(2*t)"), e("0.5*t")}));
  const Model m = compile(b);
  for (Formulation f : {Formulation::Recursive, Formulation::Pinv, Formulation::Sparse}) {
    Data d(m);
    ASSERT_EQ(forward(m, d, SolverOptions{f, Stabilization{}}), SolveStatus::Ok);
    const Vec3 expected = 2.5 * (Vec3(-4, 0, 0) - b.gravity);  // p̈(0) = (−4, 0, 0)
    EXPECT_LT((d.lambda.head<3>() - expected).norm(), 1e-9) << formulation_name(f);
  }
}

TEST(Prescribed, SevenJointSpatialArmTorquesEqualRnea) {
  // a 7-revolute spatial arm (random axes and inertias) with every joint prescribed,
  // q_i(t) = a_i + b_i sin(w_i t): the multipliers equal RNEA's τ(q, q̇, q̈) in every
  // formulation (the "done when" check of the robotics issue, on a generated arm)
  for (unsigned seed = 1; seed <= 3; ++seed) {
    test_chain::Chain c = test_chain::random_chain(seed, 7, false, true);
    const Model plain = compile(c.b);
    test_scenes::Rng rng(seed);
    Eigen::VectorXd a(7), b(7), w(7);
    for (int i = 0; i < 7; ++i) {
      a(i) = rng.uniform(-0.5, 0.5), b(i) = rng.uniform(0.1, 0.8), w(i) = rng.uniform(0.5, 3);
      char text[128];
      std::snprintf(text, sizeof text, "%.17g + %.17g*sin(%.17g*t)", a(i), b(i), w(i));
      c.b.add_constraint(std::make_shared<PrescribedJointConstraint>(
          "drive" + std::to_string(i), c.joints[i], 0, Expression::parse(text, {}, nullptr)));
    }
    const Model m = compile(c.b);
    for (double t : {0.3, 1.7}) {
      State s{t, Eigen::VectorXd(7), Eigen::VectorXd(7)};
      Eigen::VectorXd qdd(7), tau;
      for (int i = 0; i < 7; ++i) {
        s.q(i) = a(i) + b(i) * std::sin(w(i) * t);
        s.u(i) = b(i) * w(i) * std::cos(w(i) * t);
        qdd(i) = -b(i) * w(i) * w(i) * std::sin(w(i) * t);
      }
      Data dp(plain);
      inverse_dynamics(plain, dp, s, qdd, tau);
      for (Formulation f : {Formulation::Recursive, Formulation::GibbsAppell, Formulation::Pinv,
                            Formulation::Sparse}) {
        Data d(m);
        ASSERT_EQ(forward(m, d, s, SolverOptions{f, Stabilization{}}), SolveStatus::Ok);
        Eigen::VectorXd lambda(7);
        for (int i = 0; i < 7; ++i) lambda(i) = d.lambda(m.row_offset(7 + i));
        EXPECT_LT((lambda - tau).cwiseAbs().maxCoeff(), 1e-8 * (1 + tau.norm()))
            << formulation_name(f) << " seed " << seed << " t = " << t;
      }
    }
  }
}

TEST(Prescribed, RejectsWhatItCannotDo) {
  const Arm arm;
  ModelBuilder b = arm.builder(false);
  auto shoulder = std::dynamic_pointer_cast<const Joint>(b.constraints()[0]);
  EXPECT_THROW(PrescribedJointConstraint("p", shoulder, 1, Expression::parse("t", {}, nullptr)),
               std::invalid_argument);
  const auto bodies = [&](const std::string& n) {
    return Expression::BodyInfo{b.body_index(n), true};
  };
  EXPECT_THROW(
      PrescribedJointConstraint("p", shoulder, 0, Expression::parse("x(upper)", {}, bodies)),
      ExpressionError);
}

}  // namespace
}  // namespace appell
