// A link on a single hinge from the world swinging onto the world's floor (appell issue 33:
// an arm must not swing through the table), with the model's own collision detector under
// the Moreau–Jean stepper.  Checked against closed forms: the link comes to rest where its
// shape touches the floor (the rest angle from the geometry), with no penetration; the
// contact's normal and friction impulses balance gravity's moment about the hinge
// (N·d_N + F·d_F = m g c over a step) inside the Coulomb cone; the energy never grows.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/contact.hpp>
#include <cmath>
#include <string>

#include "engine/contact/moreau.hpp"

namespace appell {
namespace {

constexpr double kG = 9.81;

// a link of 1 kg (its centre 0.25 m out) on a hinge about x at height 0.3 m, released
// horizontal; its shape (a sphere of radius 0.05 at 0.35 m out, or a capsule of radius 0.025
// along the link from the hinge to 0.5 m) lands on a floor of the world: a plane, or a box
// whose top face is z = 0
std::string arm(const std::string& shape, const std::string& floor) {
  const std::string floor_geom =
      floor == "plane" ? R"(<geom name="floor" type="plane" size="2 2 0.1" friction="0.8"/>)"
                       : R"(<geom name="floor" type="box" pos="0 0 -0.1" size="2 2 0.1"
                                 friction="0.8"/>)";
  // the body's frame is at the hinge; the link's 1 kg sits at y = 0.25 (its own inertia)
  const std::string link =
      shape == "sphere"
          ? R"(<geom type="sphere" pos="0.1 0.35 0" size="0.05" friction="0.8" mass="0"/>)"
          : R"(<geom type="capsule" fromto="0 0 0 0 0.5 0" size="0.025" friction="0.8"
                     mass="0"/>)";
  return R"(<mujoco model="arm"><option timestep="0.001"/><worldbody>)" + floor_geom +
         R"(<body name="link" pos="0 0 0.3"><joint name="hinge" type="hinge" axis="1 0 0"/>
             <inertial pos="0 0.25 0" mass="1" diaginertia="0.02 0.002 0.02"/>)" +
         link + R"(</body></worldbody></mujoco>)";
}

struct ArmRun {
  Model m;
  Data d;
  Eigen::VectorXd q, u;
  MoreauStepper stepper;
  explicit ArmRun(const std::string& xml)
      : m(compile(load_scene_from_string(xml, "arm.xml"))),
        d(m),
        q(m.initial_state().q),
        u(m.initial_state().u),
        stepper(m, make_contact_detector(m), options()) {}
  static MoreauOptions options() {
    MoreauOptions o;
    o.solver.tolerance = 1e-10;
    return o;
  }
  double energy() const {  // from the body state: ½ m v² + ½ ωᵀ I ω + m g z
    const BodyState& s = d.body[0];
    const Body& b = m.bodies()[0];
    const Mat3 I = s.Q * b.inertia * s.Q.transpose();
    return 0.5 * b.mass * s.v.squaredNorm() + 0.5 * s.w.dot(I * s.w) + b.mass * kG * s.x.z();
  }
};

// Every combination the issue names: a sphere or a capsule, a world plane or a world box,
// μ = 0.8.  The sphere (centre 0.35 m from the axis, radius 0.05) rests where its centre is
// at z = 0.05: sin θ = (0.3 − 0.05)/0.35; the capsule (segment end 0.5 m out, radius
// 0.025) where that end is at z = 0.025: sin θ = (0.3 − 0.025)/0.5.
TEST(HingeContact, LinkSwingsOntoTheWorldFloorAndRestsOnIt) {
  for (const std::string shape : {"sphere", "capsule"})
    for (const std::string floor : {"plane", "box"}) {
      SCOPED_TRACE(shape + " on a world " + floor);
      ArmRun r(arm(shape, floor));
      const double h = 1e-3;
      const double e0 = r.energy();
      double worst_residual = 0.0, deepest = 0.0;
      for (int k = 0; k < 1500; ++k) {
        const SolveStatus st = r.stepper.step(k * h, h, r.q, r.u, r.d);
        ASSERT_EQ(st, SolveStatus::Ok) << "t = " << k * h << ": " << r.d.diagnostics.message;
        const MoreauStepStats& s = r.stepper.stats();
        ASSERT_TRUE(s.converged) << "t = " << k * h << ", residual " << s.residual;
        worst_residual = std::max(worst_residual, s.residual);
        deepest = std::max(deepest, s.penetration);
        // neither the swing (the midpoint rule keeps it within O((h ω)²)) nor the impact adds
        // energy
        ASSERT_LE(r.energy(), e0 * (1 + 1e-5)) << "t = " << k * h;
      }
      EXPECT_LE(worst_residual, ArmRun::options().solver.tolerance);
      EXPECT_LE(deepest, 1e-9);
      const double reach = shape == "sphere" ? 0.35 : 0.5;
      const double lift = shape == "sphere" ? 0.05 : 0.025;
      const double theta = std::asin((0.3 - lift) / reach);
      EXPECT_NEAR(std::abs(r.q(0)), theta, 1e-6);
      EXPECT_NEAR(r.u(0), 0.0, 1e-6);
      // the contact at rest: its impulses' moment about the hinge (axis x through
      // (0, 0, 0.3)) cancels gravity's over the step, m g (0.25 cos θ) h
      double moment = 0.0;
      int touching = 0;
      for (const ContactRecord& c : r.stepper.records()) {
        if (c.joint >= 0 || !(c.impulse(0) > 0)) continue;
        ++touching;
        const Vec3 force =
            c.impulse(0) * c.point.normal + c.impulse(1) * c.t1 + c.impulse(2) * c.t2;
        // on the link (body b of the pair, or a)
        const Vec3 on_link = c.point.body_b == 0 ? force : Vec3(-force);
        const Vec3 arm_to = c.point.point - Vec3(0, 0, 0.3);
        moment += arm_to.cross(on_link).x();
        EXPECT_LE(c.impulse.tail<2>().norm(), 0.8 * c.impulse(0) * (1 + 1e-9));
        EXPECT_LT(c.point.gap, 1e-9);
      }
      EXPECT_GE(touching, 1);
      EXPECT_NEAR(std::abs(moment), 1.0 * kG * 0.25 * std::cos(theta) * h, 1e-9);
    }
}

}  // namespace
}  // namespace appell
