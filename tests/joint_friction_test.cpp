// Joint Coulomb friction (URDF <dynamics friction>, a scene joint's "friction") as a
// bounded row of the Moreau–Jean stepper (engine/contact/moreau.hpp), against the closed
// forms of a block on an inclined rail: held while gravity's pull along the rail,
// m g sin θ, is below the friction F; otherwise sliding at a = (m g sin θ − F)/m, or, moving
// down with F above the pull, slowing at (F − m g sin θ)/m until it stops and sticks.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>

#include "engine/contact/moreau.hpp"

namespace appell {
namespace {

constexpr double kG = 9.81, kMass = 2.0, kTheta = 0.4;

// the rail along a = (cos θ, 0, sin θ); the block's coordinate s along a
Model slider(double friction, double v0) {
  ModelBuilder b;
  b.gravity = Vec3(0, 0, -kG);
  Body block;
  block.name = "block";
  block.mass = kMass;
  block.inertia = Mat3::Identity() * 0.01;
  const Vec3 a(std::cos(kTheta), 0, std::sin(kTheta));
  block.velocity = v0 * a;
  const int i = b.add_body(block);
  auto j = std::make_shared<Joint>("rail", joint_type("prismatic"), kWorld, i,
                                   b.initial_state(kWorld), b.initial_state(i), Vec3::Zero(), a);
  JointProperties p;
  p.friction = friction;
  j->set_properties(p);
  b.add_constraint(j);
  return compile(b);
}

struct RailRun {
  Model m;
  Data d;
  Eigen::VectorXd q, u;
  MoreauStepper stepper;
  RailRun(double friction, double v0)
      : m(slider(friction, v0)),
        d(m),
        q(m.initial_state().q),
        u(m.initial_state().u),
        stepper(m, nullptr, options()) {}
  static MoreauOptions options() {
    MoreauOptions o;
    o.solver.tolerance = 1e-13;
    return o;
  }
  // the block's displacement and velocity along the rail
  double s() const { return d.body[0].x.dot(Vec3(std::cos(kTheta), 0, std::sin(kTheta))); }
  double v() const { return d.body[0].v.dot(Vec3(std::cos(kTheta), 0, std::sin(kTheta))); }
};

const double kPull = kMass * kG * std::sin(kTheta);  // gravity's pull down the rail

TEST(JointFriction, HeldWhileThePullIsBelowTheFriction) {
  RailRun r(1.2 * kPull, 0.0);
  ASSERT_TRUE(MoreauStepper::has_unilateral_rows(r.m));
  EXPECT_FALSE(MoreauStepper::has_unilateral_rows(r.m, true, false));
  const double h = 1e-3;
  for (int k = 0; k < 2000; ++k) {
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok);
    ASSERT_EQ(r.stepper.records().size(), 1u);
    const ContactSample& c = r.stepper.records()[0];
    ASSERT_TRUE(c.joint_friction);
    EXPECT_EQ(c.state, ContactSample::State::Stick);
    // the friction holds exactly the pull (its impulse over the step, along +a)
    EXPECT_NEAR(c.impulse(0) / h, kPull, 1e-9 * kPull);
  }
  EXPECT_LT(std::abs(r.s()), 1e-12);
  EXPECT_LT(std::abs(r.v()), 1e-12);
}

TEST(JointFriction, SlidesAtTheCoulombAccelerationAboveIt) {
  const double F = 0.5 * kPull, h = 1e-3, T = 1.0;
  RailRun r(F, 0.0);
  const int n = static_cast<int>(std::lround(T / h));
  for (int k = 0; k < n; ++k) {
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok);
    const ContactSample& c = r.stepper.records()[0];
    EXPECT_EQ(c.state, ContactSample::State::Slip);
    EXPECT_NEAR(c.impulse(0) / h, F, 1e-9 * F);  // on the bound, against the motion (+a)
  }
  const double a = -(kPull - F) / kMass;
  EXPECT_NEAR(r.v() / (a * T), 1.0, 1e-9);
  EXPECT_NEAR(r.s() / (0.5 * a * T * T), 1.0, 1e-9);
}

TEST(JointFriction, MovingDownItSlowsAndSticks) {
  const double F = 1.5 * kPull, v0 = -0.8, h = 1e-3;
  RailRun r(F, v0);
  const double decel = (F - kPull) / kMass, stop = -v0 / decel;
  const double distance = v0 * v0 / (2 * decel);
  for (int k = 0; k < 2000; ++k) {
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok);
    const double t = (k + 1) * h;
    if (t < stop - h) {
      EXPECT_NEAR(r.v(), v0 + decel * t, 1e-9) << t;
    }
    if (t > stop + h) {
      EXPECT_LT(std::abs(r.v()), 1e-12) << t;  // stuck, to round-off
    }
  }
  // where it stops: within one step's travel at the last speed (≤ h · decel · h)
  EXPECT_NEAR(r.s(), -distance, decel * h * h + 1e-12);
  EXPECT_EQ(r.stepper.records()[0].state, ContactSample::State::Stick);
}

}  // namespace
}  // namespace appell
