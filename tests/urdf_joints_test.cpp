// URDF joints on import: <dynamics damping> against the closed form and on an example arm,
// mimics whose errors name the URDF joint, and the base a URDF gets.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/tree.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/formulations/recursive.hpp"
#include "tests/cli_util.hpp"
#include "tests/urdf_files.hpp"

namespace appell {
namespace {

using urdf_test::expect_cli_refuses;
using urdf_test::joint;
using urdf_test::link;
using urdf_test::robot;
using urdf_test::write;

// A pendulum: link "bob" (mass m, centre l below the pin, inertia i0 about it) on a
// continuous joint about y, with <dynamics damping="d">.
constexpr double kM = 2.0, kL = 0.5, kI0 = 0.01, kD = 0.3, kG = 9.81;
std::string pendulum_urdf(double damping) {
  return robot(
      "<link name=\"bob\"><inertial><origin xyz=\"0 0 -0.5\"/><mass value=\"2\"/>"
      "<inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" izz=\"0.01\"/>"
      "</inertial></link><joint name=\"pin\" type=\"continuous\"><parent link=\"base\"/>"
      "<child link=\"bob\"/><axis xyz=\"0 1 0\"/><dynamics damping=\"" +
      std::to_string(damping) + "\" friction=\"0.2\"/></joint>");
}

// 7. <dynamics damping> acts: q̈ = (−m g l sin q − d q̇) / (i0 + m l²), and the energy
// falls at the rate −d q̇².
TEST(UrdfHardening, JointDampingIsApplied) {
  write("pendulum.urdf", pendulum_urdf(kD));
  const double q = 0.7, qd = -1.3, I = kI0 + kM * kL * kL;
  const std::string scene =
      write("pendulum.json", R"({"include": {"urdf": "pendulum.urdf", "q": {"pin": 0.7},
                                  "qd": {"pin": -1.3}}, "integrator": {"dt": 0.001},
                                  "contact": {"joint_friction": false}})");
  const Scene s = load_scene(scene);
  ASSERT_EQ(s.model.forces().size(), 1u);
  EXPECT_EQ(s.model.forces()[0]->type(), "joint_damping");
  const Model m = compile(s);
  const double expected = (-kM * kG * kL * std::sin(q) - kD * qd) / I;
  for (Formulation f : {Formulation::Recursive, Formulation::Pinv, Formulation::Sparse}) {
    Data d(m);
    ASSERT_EQ(forward(m, d, f), SolveStatus::Ok);
    // the bob's angular acceleration about y is q̈
    EXPECT_NEAR(d.udot(m.u_offset(0) + 4), expected, 1e-9 * std::abs(expected));
  }
  // E(T) − E(0) = −d ∫ q̇² dt (trapezoid over the samples of an rk4 run)
  SimulationOptions o = SimulationOptions::from_settings(s.settings);
  o.integrator.duration = 0.5;
  double e0 = 0, e1 = 0, dissipated = 0, w_prev = 0, t_prev = 0;
  const SimulationResult r = simulate(m, o, [&](const Sample& x) {
    const double w = x.data.body[0].w.y();  // the bob's angular velocity: q̇
    if (x.index == 0)
      e0 = x.energy;
    else
      dissipated += 0.5 * (w * w + w_prev * w_prev) * (x.t - t_prev) * kD;
    e1 = x.energy;
    w_prev = w;
    t_prev = x.t;
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT(e1 - e0, -0.1);
  EXPECT_NEAR(e1 - e0, -dissipated, 1e-4 * dissipated);
  // friction is a bounded row of the contact stepper (docs/contact.md), not a force: an
  // undamped pendulum has no force
  write("undamped.urdf", pendulum_urdf(0));
  const Scene u = load_scene(write("undamped.json", R"({"include": {"urdf": "undamped.urdf"}})"));
  EXPECT_TRUE(u.model.forces().empty());
}

// The 7-DoF example arm has damped joints: one damping force a joint, it simulates, and
// its energy never rises.
TEST(UrdfHardening, DampedExampleArmLosesEnergy) {
  const Scene scene =
      load_scene(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/robots/seven_dof_arm.json");
  EXPECT_EQ(scene.model.forces().size(), 7u);
  const Model m = compile(scene);
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.integrator.duration = 0.3;
  double e0 = 0, last = 0, rise = 0;
  const SimulationResult r = simulate(m, o, [&](const Sample& x) {
    if (x.index == 0) e0 = last = x.energy;
    rise = std::max(rise, x.energy - last);
    last = x.energy;
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT(rise, 1e-9 * (1 + std::abs(e0)));
  EXPECT_LT(last, e0 - 1e-3);
}

// 8. Mimic errors name the URDF and the joint, never a pointer into a generated document.
TEST(UrdfHardening, MimicErrorsNameTheUrdfJoint) {
  const std::string fixed_leader =
      write("mimic_fixed.urdf",
            robot(link("a") + link("b") + joint("y", "base", "a", "fixed") +
                  joint("x", "a", "b", "continuous", "<mimic joint=\"y\" multiplier=\"2\"/>")));
  expect_cli_refuses(fixed_leader,
                     fixed_leader +
                         ": joint 'x': <mimic joint='y'>: mimic of fixed joint 'y'; a mimic joins "
                         "revolute, continuous or prismatic joints");
  // a fixed follower has no coordinate: its <mimic> is left out, and the leader stays free
  // (one degree of freedom: y's), whether the welded link has mass or not
  for (const std::string& mass : {std::string(""), std::string("0")}) {
    const std::string b = mass.empty() ? link("b") : "<link name=\"b\"/>";
    const std::string fixed_follower =
        write("mimic_follower" + mass + ".urdf",
              robot(link("a") + b + joint("y", "base", "a") +
                    joint("x", "a", "b", "fixed", "<mimic joint=\"y\" multiplier=\"2\"/>")));
    const Model m = compile(load_scene(fixed_follower));
    EXPECT_EQ(m.tree().nu, 1) << fixed_follower;
    for (const ConstraintPtr& c : m.constraints()) EXPECT_NE(c->type(), "mimic") << c->name();
  }
  const std::string unknown =
      write("mimic_unknown.urdf",
            robot(link("a") + joint("x", "base", "a", "continuous", "<mimic joint=\"nobody\"/>")));
  EXPECT_EQ(testing::load_error(unknown),
            unknown + ": joint 'x': <mimic joint='nobody'>: no joint 'nobody' in the URDF");
  // what the scene parsers find on the URDF's part is said in the URDF's words: a scene
  // that starts the leader and the follower off their mimic
  const std::string ok =
      write("mimic_ok.urdf",
            robot(link("a") + link("b") + joint("y", "base", "a") +
                  joint("x", "a", "b", "continuous", "<mimic joint=\"y\" multiplier=\"2\"/>")));
  const std::string scene =
      write("mimic_off.json", R"({"include": {"urdf": "mimic_ok.urdf", "q": {"x": 1, "y": 0}}})");
  const std::string error = testing::load_error(scene);
  EXPECT_EQ(error.rfind(ok + ": joint 'x': <mimic joint='y'>: constraint 'x_mimic' is violated", 0),
            0u)
      << error;
  EXPECT_EQ(error.find("/constraints"), std::string::npos) << error;
}

// 9. The base is part of the scene: fixed by default, floating when the include says so
// or the URDF has a floating joint from the world.
TEST(UrdfHardening, TheBaseIsStated) {
  const std::string arm = write("base_arm.urdf", robot(link("a") + joint("j", "base", "a")));
  const Scene fixed = load_scene(arm);
  EXPECT_EQ(fixed.robot.urdf, arm);
  EXPECT_FALSE(fixed.robot.floating);
  EXPECT_EQ(fixed.robot.root_link, "base");
  EXPECT_EQ(describe(fixed.robot),
            "fixed: the root link 'base' is the world (the default for a URDF; to float it, "
            "include it in a scene with \"base\": \"floating\")");
  write("base_body.urdf",
        "<robot name=\"r\">" + link("torso") + link("a") + joint("j", "torso", "a") + "</robot>");
  const Scene floating = load_scene(
      write("floating.json", R"({"include": {"urdf": "base_body.urdf", "base": "floating"}})"));
  EXPECT_TRUE(floating.robot.floating);
  EXPECT_EQ(floating.robot.free_joint, "root_joint");
  const std::string own =
      write("own_float.urdf", "<robot name=\"r\"><link name=\"world\"/>" + link("torso") +
                                  joint("float", "world", "torso", "floating") + "</robot>");
  const Scene s = load_scene(own);
  EXPECT_TRUE(s.robot.floating);
  EXPECT_EQ(describe(s.robot), "floating: the URDF's floating joint 'float'");
  // a fixed base with every link welded to the root moves nothing, and says what to do
  const std::string welded =
      write("welded.urdf", "<robot name=\"r\">" + link("torso") + link("a") +
                               joint("j", "torso", "a", "fixed") + "</robot>");
  EXPECT_EQ(testing::load_error(welded),
            welded +
                ": nothing moves: every link is welded to the root link 'torso', which a fixed "
                "base makes the world (to float the robot, include it in a scene with \"base\": "
                "\"floating\")");
  EXPECT_EQ(
      describe(load_scene(write("plain.json",
                                R"({"bodies": [{"name": "p", "type": "particle", "mass": 1}]})"))
                   .robot),
      "");
  // check prints it, beside the base the spanning tree shows
  const testing::CliResult r = testing::run_cli("check '" + arm + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("robot base: " + describe(fixed.robot) + "\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace appell
