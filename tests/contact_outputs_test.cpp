// The contact outputs of the library (appell::ContactSample on Sample, Simulation and
// contact_forces; forces.csv's <joint>.limit_force through SampleRows/Trajectory) against
// statics: a box resting on the ground, a box held by friction on a ramp, a rod resting on
// its joint limit.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <string>

namespace appell {
namespace {

constexpr double kG = 9.81;

// a 2 kg box 0.4 × 0.3 × 0.2 m resting on the ground plane z = 0, under gravity tilted by
// θ about y (the plane is then a ramp of slope θ), friction μ
std::string box_scene(double theta, double mu) {
  const double gx = kG * std::sin(theta), gz = -kG * std::cos(theta);
  return R"({"name": "box", "gravity": [)" + std::to_string(gx) + ", 0, " + std::to_string(gz) +
         R"(],
    "shapes": [{"name": "ground", "type": "plane", "friction": )" +
         std::to_string(mu) + R"(}],
    "bodies": [{"name": "box", "mass": 2.0, "inertia": {"box": [0.4, 0.3, 0.2]},
      "position": [0, 0, 0.1],
      "shapes": [{"name": "crate", "type": "box", "size": [0.4, 0.3, 0.2], "friction": )" +
         std::to_string(mu) + R"(}]}],
    "integrator": {"method": "moreau", "duration": 0.2, "dt": 0.001},
    "contact": {"tolerance": 1e-12}})";
}

struct Totals {
  Vec3 normal = Vec3::Zero(), friction = Vec3::Zero();
  int points = 0;
};
Totals totals(const std::vector<ContactSample>& cs) {
  Totals t;
  for (const ContactSample& c : cs) {
    if (c.joint >= 0) continue;
    t.normal += c.normal_force * c.point.normal;  // on b
    t.friction += c.friction_force;
    ++t.points;
  }
  return t;
}

TEST(ContactOutputs, BoxRestingOnGroundNormalForcesSumToWeight) {
  const Scene scene = load_scene_from_string(box_scene(0.0, 0.8));
  const Model m = compile(scene);
  const Simulation sim(m, SimulationOptions::from_settings(scene.settings));
  EXPECT_EQ(sim.method(), "moreau");
  int checked = 0;
  const auto observe = [&](const Sample& s) {
    ASSERT_NE(s.contacts, nullptr);
    if (s.index == 0) {
      EXPECT_TRUE(s.contacts->empty());  // no step yet
      return;
    }
    const Totals t = totals(*s.contacts);
    EXPECT_GE(t.points, 3);  // a flat face: a manifold, not one point
    // the body is b or a: the force on the box is +normal·f if the box is b
    for (const ContactSample& c : *s.contacts) {
      EXPECT_TRUE(c.point.body_a == 0 || c.point.body_b == 0);
      EXPECT_GE(c.normal_force, 0.0);
      EXPECT_NEAR(c.point.normal.dot(c.friction_force), 0.0, 1e-12);
      EXPECT_NE(c.state, ContactSample::State::Slip);
    }
    const double sign = (*s.contacts)[0].point.body_b == 0 ? 1.0 : -1.0;
    const Vec3 on_box = sign * (t.normal + t.friction);
    EXPECT_NEAR(on_box.z(), 2.0 * kG, 1e-8 * 2.0 * kG) << "t = " << s.t;
    EXPECT_NEAR(on_box.head<2>().norm(), 0.0, 1e-8);
    EXPECT_NEAR(t.friction.norm(), 0.0, 1e-8);
    ++checked;
  };
  Simulation run(m, SimulationOptions::from_settings(scene.settings));
  ASSERT_TRUE(run.run(observe).ok());
  EXPECT_EQ(checked, 200);
  EXPECT_FALSE(run.contacts().empty());
  EXPECT_EQ(run.result().impacts, 0);
  EXPECT_LE(run.result().max_penetration, 1e-6);
}

TEST(ContactOutputs, BoxOnRampInsideTheConeFrictionHoldsTheSlope) {
  const double theta = 0.3, mu = 0.8;  // tan θ = 0.31 < μ: it sticks
  const Scene scene = load_scene_from_string(box_scene(theta, mu));
  const Model m = compile(scene);
  Simulation run(m, SimulationOptions::from_settings(scene.settings));
  ASSERT_TRUE(run.run().ok());
  const std::vector<ContactSample>& cs = run.contacts();
  ASSERT_FALSE(cs.empty());
  const double sign = cs[0].point.body_b == 0 ? 1.0 : -1.0;
  const Totals t = totals(cs);
  const Vec3 n = sign * t.normal, f = sign * t.friction;
  // the ground holds the weight: normal m g cos θ, friction m g sin θ up the slope (−x);
  // g as the scene gives it (its text rounds g sin θ, g cos θ to 6 decimals)
  const Vec3 g = m.gravity();
  EXPECT_NEAR(g.norm(), kG, 1e-5);
  EXPECT_NEAR(std::atan2(g.x(), -g.z()), theta, 1e-6);
  EXPECT_NEAR(n.z(), -2.0 * g.z(), 1e-8);
  EXPECT_NEAR(f.x(), -2.0 * g.x(), 1e-8);
  EXPECT_NEAR(f.y(), 0.0, 1e-8);
  for (const ContactSample& c : cs) {
    EXPECT_EQ(c.state, ContactSample::State::Stick);
    EXPECT_LE(c.friction_force.norm(), mu * c.normal_force + 1e-9);
  }
}

TEST(ContactOutputs, ContactForcesAtAStateWithoutARun) {
  const Scene scene = load_scene_from_string(box_scene(0.0, 0.8));
  const Model m = compile(scene);
  const SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  EXPECT_TRUE(has_unilateral_rows(m));
  const std::vector<ContactSample> cs = contact_forces(m, m.initial_state(), o, 1e-3);
  const Totals t = totals(cs);
  const double sign = cs.at(0).point.body_b == 0 ? 1.0 : -1.0;
  EXPECT_NEAR(sign * t.normal.z(), 2.0 * kG, 1e-8);
  EXPECT_THROW(contact_forces(m, m.initial_state(), o, 0.0), std::invalid_argument);
  // no unilateral rows: nothing
  const Model pendulum = compile(load_scene_from_string(R"({"name": "p",
    "bodies": [{"name": "bob", "type": "particle", "mass": 1, "position": [1, 0, 0]}],
    "constraints": [{"name": "rod", "type": "distance", "bodies": ["world", "bob"],
      "points": [[0, 0, 0], [1, 0, 0]]}]})"));
  EXPECT_FALSE(has_unilateral_rows(pendulum));
  EXPECT_TRUE(contact_forces(pendulum, pendulum.initial_state(), o, 1e-3).empty());
}

// A rod hinged at the origin falls from horizontal onto its lower limit (−1 rad) and rests:
// the limit's torque balances gravity's moment about the hinge, m g y (y the lever arm).
TEST(ContactOutputs, LimitForceBalancesGravityOnTheRestingRod) {
  const Scene scene =
      load_scene(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/limits_pendulum.json");
  const Model m = compile(scene);
  Trajectory tr(m);
  const int col = tr.find("hinge.limit_force");
  ASSERT_GE(col, 0);
  double last_force = 0.0, last_y = 0.0;
  bool resting_side_lower = false;
  Simulation run(m, SimulationOptions::from_settings(scene.settings));
  ASSERT_TRUE(run.run([&](const Sample& s) {
                   tr.record(s);
                   ASSERT_NE(s.contacts, nullptr);
                   for (const ContactSample& c : *s.contacts) {
                     EXPECT_EQ(c.joint, 0);
                     EXPECT_EQ(c.joint_force, c.upper ? -c.normal_force : c.normal_force);
                     resting_side_lower = !c.upper;
                   }
                   last_y = s.data.body[0].x.y();
                 })
                  .ok());
  last_force = tr.column("hinge.limit_force").back();
  EXPECT_TRUE(resting_side_lower);
  const double m_g_y = 1.0 * kG * last_y;  // gravity's moment about −x, i.e. pushing q down
  EXPECT_NEAR(last_y, 0.2 * std::cos(1.0), 1e-6);
  EXPECT_NEAR(last_force, m_g_y, 1e-8 * m_g_y);
  // before the rod reaches the limit, the column is zero
  EXPECT_EQ(tr.column("hinge.limit_force")[1], 0.0);
}

}  // namespace
}  // namespace appell
