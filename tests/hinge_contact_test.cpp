// A link on a single hinge from the world swinging onto the world's floor (appell issue 33:
// an arm must not swing through the table), with the model's own collision detector under
// the Moreau–Jean stepper.  Checked against closed forms: the link comes to rest where its
// shape touches the floor (the rest angle from the geometry), with no penetration; the
// contact's normal and friction impulses balance gravity's moment about the hinge
// (N·d_N + F·d_F = m g c over a step, less the change of angular momentum) inside the
// Coulomb cone; the energy never grows.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/contact.hpp>
#include <cmath>
#include <cstdio>
#include <string>

#include "engine/contact/moreau.hpp"

namespace appell {
namespace {

constexpr double kG = 9.81;

// a link (1 kg, its centre 0.25 m out, or as its geoms give) on a hinge about x at height `height`,
// released at `lift` rad above the horizontal; its shape (a sphere of radius 0.05 at `reach` m out,
// or a capsule of radius 0.025 along the link from the hinge to 0.5 m) lands on a floor of the
// world: a plane, or a box whose top face is z = 0; μ = 0.8 on both
std::string arm(const std::string& shape, const std::string& floor, double height = 0.3,
                double reach = 0.35, double lift = 0.0, bool from_geoms = false) {
  const std::string floor_geom =
      floor == "plane" ? R"(<geom name="floor" type="plane" size="2 2 0.1" friction="0.8"/>)"
                       : R"(<geom name="floor" type="box" pos="0 0 -0.1" size="2 2 0.1"
                                 friction="0.8"/>)";
  const double c = std::cos(lift), s = std::sin(lift);
  const auto at = [&](double r) {
    char xyz[64];
    std::snprintf(xyz, sizeof xyz, "0 %.17g %.17g", r * c, r * s);
    return std::string(xyz);
  };
  // from_geoms: mass and inertia from the geoms at MuJoCo's density (a sphere on a thin rod,
  // a typical arm's tool); else the 1 kg at 0.25 m of the <inertial>, the geoms massless
  const std::string massless = from_geoms ? "" : R"( mass="0")";
  const std::string rod = R"(<geom type="capsule" fromto="0 0 0 )" + at(reach) +
                          R"(" size="0.01" contype="0" conaffinity="0"/>)";
  const std::string link = shape == "sphere"
                               ? (from_geoms ? rod : "") + R"(<geom type="sphere" pos=")" +
                                     at(reach) + R"(" size="0.05" friction="0.8")" + massless + "/>"
                               : R"(<geom type="capsule" fromto="0 0 0 )" + at(0.5) +
                                     R"(" size="0.025" friction="0.8")" + massless + "/>";
  const std::string inertial = from_geoms ? ""
                                          : R"(<inertial pos=")" + at(0.25) +
                                                R"(" mass="1" diaginertia="0.02 0.002 0.02"/>)";
  return R"(<mujoco model="arm"><option timestep="0.001"/><worldbody>)" + floor_geom +
         R"(<body name="link" pos="0 0 )" + std::to_string(height) +
         R"("><joint name="hinge" type="hinge" axis="1 0 0"/>)" + inertial + link +
         R"(</body></worldbody></mujoco>)";
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

// Every combination the issue names: a sphere or a capsule, a world plane or a world box.
// The sphere (centre `reach` from the axis, radius 0.05) rests where its centre is at
// z = 0.05: sin θ = (height − 0.05)/reach; the capsule (segment end 0.5 m out, radius
// 0.025) where that end is at z = 0.025: sin θ = (height − 0.025)/0.5.
void swing_and_rest(double height, double reach, double lift, bool from_geoms) {
  for (const std::string shape : {"sphere", "capsule"})
    for (const std::string floor : {"plane", "box"}) {
      SCOPED_TRACE(shape + " on a world " + floor);
      ArmRun r(arm(shape, floor, height, reach, lift, from_geoms));
      const double h = 1e-3;
      const double e0 = r.energy();
      double worst_residual = 0.0, deepest = 0.0;
      double u_before = 0.0;
      for (int k = 0; k < 1500; ++k) {
        u_before = r.u(0);
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
      const double out = shape == "sphere" ? reach : 0.5;
      const double radius = shape == "sphere" ? 0.05 : 0.025;
      const double theta = std::asin((height - radius) / out);
      EXPECT_NEAR(std::abs(r.q(0)), lift + theta, 1e-6);  // q = 0 at the release
      EXPECT_NEAR(r.u(0), 0.0, 1e-6);
      // the contact at rest: its impulses' moment about the hinge (axis x through
      // (0, 0, 0.3)) cancels gravity's over the step, m g (0.25 cos θ) h
      double moment = 0.0;
      int touching = 0;
      for (const ContactSample& c : r.stepper.records()) {
        if (c.joint >= 0 || !(c.impulse(0) > 0)) continue;
        ++touching;
        const Vec3 force =
            c.impulse(0) * c.point.normal + c.impulse(1) * c.t1 + c.impulse(2) * c.t2;
        // on the link (body b of the pair, or a)
        const Vec3 on_link = c.point.body_b == 0 ? force : Vec3(-force);
        const Vec3 arm_to = c.point.point - Vec3(0, 0, height);
        moment += arm_to.cross(on_link).x();
        EXPECT_LE(c.impulse.tail<2>().norm(), 0.8 * c.impulse(0) * (1 + 1e-9));
        EXPECT_LT(c.point.gap, 1e-9);
      }
      EXPECT_GE(touching, 1);
      // the contact's angular impulse about the hinge cancels gravity's over the last step,
      // −m g y_c h (y_c the centre of mass's horizontal distance from the axis), to within
      // the step's change of angular momentum (|Δu| < 1e-9 rad/s)
      const double sign = r.q(0) < 0 ? -1.0 : 1.0;  // the fall's sense about +x
      const double weight = r.m.bodies()[0].mass * kG;
      EXPECT_NEAR(moment, weight * r.d.body[0].x.y() * h, 1e-10);
      EXPECT_NEAR(r.u(0), u_before, 1e-9);
      EXPECT_GT(-sign * moment, 0.0);  // the floor holds the link up
    }
}

// released horizontal from 0.3 m: the shape's rest angle from the geometry
TEST(HingeContact, LinkSwingsOntoTheWorldFloorAndRestsOnIt) {
  swing_and_rest(0.3, 0.35, 0.0, false);
}

// released 1 rad above the horizontal from 0.1 m: the link lands nearly flat, its contact's
// three rows moved by the one hinge rate (G of rank 1), and the free velocity's normal row
// shifted off G's range by the gap; the solver diverged there (impulses of 4e20 N·s, a
// residual of 8e17, the sphere through the floor)
TEST(HingeContact, LinkLandingNearlyFlatKeepsTheSolverConverging) {
  swing_and_rest(0.1, 0.5, 1.0, true);
}

}  // namespace
}  // namespace appell
