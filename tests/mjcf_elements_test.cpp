// MJCF import (scenes/mjcf.cpp), element by element: actuators at zero control, sites as
// frames, the quadruped against its URDF, joint equalities as mimics, deep nesting bounded,
// <option>'s gravity and step, and the elements that may not hold bodies.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli_util.hpp"
#include "tests/mjcf_files.hpp"

namespace appell {
namespace {

using testing::body_of;
using testing::load_mjcf_text;

// Actuators at ctrl = 0: a position servo pulls to q = 0 with kp gear², a velocity actuator
// damps with kv gear², a motor adds nothing; I q̈ = −kp g² q − kv qd.
TEST(Mjcf, ActuatorsAtZeroControl) {
  const std::string xml = testing::write_temp("act.xml", R"(<mujoco><worldbody>
    <body name='b'><joint name='j' axis='0 0 1'/>
      <inertial pos='0 0 0' mass='1' diaginertia='2 2 2'/></body></worldbody>
    <actuator><position joint='j' kp='10' gear='2'/><velocity joint='j' kv='3'/>
      <motor joint='j' gear='5'/></actuator></mujoco>)");
  const std::string scene =
      testing::write_temp("act.json", R"({"gravity": [0, 0, 0], "include": {"mjcf": ")" + xml +
                                          R"(", "q": {"j": 0.5}, "qd": {"j": 1.0}}})");
  const testing::CliResult r = testing::run_cli("eval --json " + scene);
  ASSERT_EQ(r.status, 0) << r.err;
  const double qdd = nlohmann::json::parse(r.out)["joints"]["j"]["qdd"][0].get<double>();
  EXPECT_NEAR(qdd, (-10 * 4 * 0.5 - 3 * 1.0) / 2, 1e-12);
}

// A named site is a frame of its body: a scene's joint placed from it starts there.
TEST(Mjcf, SitesAreNamedFrames) {
  const std::string xml = testing::write_temp("site.xml", R"(<mujoco><worldbody>
    <body name='b' pos='0 0 1' axisangle='0 0 1 90'><joint name='j'/>
      <inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>
      <site name='s' pos='1 0 0'/></body></worldbody></mujoco>)");
  const std::string scene =
      testing::write_temp("site.json", R"({"include": {"mjcf": ")" + xml + R"("},
        "bodies": [{"name": "tip", "mass": 1, "inertia": {"sphere": 0.1}}],
        "constraints": [{"name": "jt", "type": "revolute", "bodies": ["s", "tip"],
                         "origin": {"xyz": [0.5, 0, 0]}, "axis": [0, 0, 1]}]})");
  const Scene s = load_scene(scene);
  EXPECT_LT((body_of(s, "tip").position - Vec3(0, 1.5, 1)).norm(), 1e-12);
  EXPECT_TRUE(s.warnings.empty());
}

// The quadruped, floating, in URDF (the include's "base") and MJCF (its free joint): equal
// accelerations of every joint, the free joint's included.
TEST(Mjcf, QuadrupedMatchesItsUrdf) {
  const std::string dir = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/robots/";
  const std::string state = R"(, "q": {
      "root_joint": {"position": [0, 0, 0.5], "quaternion": [0.96, 0.2, 0.1, -0.17]},
      "fl_hip": 0.1, "fr_hip": -0.1, "hl_hip": 0.2, "hr_hip": -0.2,
      "fl_knee": -0.8, "fr_knee": -0.8, "hl_knee": -1.0, "hr_knee": -1.0},
    "qd": {"root_joint": {"velocity": [0.5, 0, 1.0], "angular_velocity": [0.2, 0.5, 0.1]},
           "fl_knee": 1.0, "hr_hip": -0.7}}})";
  const std::string u =
      testing::write_temp("quad_urdf.json", R"({"include": {"urdf": ")" + dir +
                                                R"(quadruped.urdf", "base": "floating")" + state);
  const std::string m = testing::write_temp(
      "quad_mjcf.json", R"({"include": {"mjcf": ")" + dir + "quadruped.xml\"" + state);
  const testing::CliResult ru = testing::run_cli("eval --json " + u);
  const testing::CliResult rm = testing::run_cli("eval --json " + m);
  ASSERT_EQ(ru.status, 0) << ru.err;
  ASSERT_EQ(rm.status, 0) << rm.err;
  const auto ju = nlohmann::json::parse(ru.out)["joints"],
             jm = nlohmann::json::parse(rm.out)["joints"];
  EXPECT_EQ(ju.size(), 9u);
  EXPECT_EQ(jm.size(), 9u);
  double largest = 0;
  for (auto it = ju.begin(); it != ju.end(); ++it) {
    ASSERT_TRUE(jm.contains(it.key())) << it.key();
    const auto& a = it.value()["qdd"];
    const auto& b = jm[it.key()]["qdd"];
    ASSERT_EQ(a.size(), b.size()) << it.key();
    for (size_t k = 0; k < a.size(); ++k) {
      EXPECT_NEAR(a[k].get<double>(), b[k].get<double>(), 1e-12) << it.key() << " " << k;
      largest = std::max(largest, std::abs(a[k].get<double>()));
    }
  }
  EXPECT_GT(largest, 1.0);  // a state that moves
}

// <equality><joint polycoef="c0 c1"> is a mimic q1 = c0 + c1 q2: the follower starts there
// and keeps to it (its acceleration c1 times the leader's).
TEST(Mjcf, JointEqualityIsAMimic) {
  const std::string xml = testing::write_temp("eq.xml", R"(<mujoco><worldbody>
    <body name='u'><joint name='a' axis='0 1 0'/>
      <inertial pos='0 0 -0.5' mass='1' diaginertia='0.1 0.1 0.1'/>
      <body name='v' pos='0 0 -1'><joint name='b' axis='0 1 0'/>
        <inertial pos='0 0 -0.5' mass='1' diaginertia='0.1 0.1 0.1'/></body></body>
    </worldbody><equality><joint joint1='b' joint2='a' polycoef='0.1 2'/></equality></mujoco>)");
  const std::string scene =
      testing::write_temp("eq.json", R"({"include": {"mjcf": ")" + xml + R"(", "q": {"a": 0.3}}})");
  const testing::CliResult r = testing::run_cli("eval --json " + scene);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out)["joints"];
  EXPECT_NEAR(j["b"]["q"][0].get<double>(), 0.1 + 2 * 0.3, 1e-12);
  EXPECT_NEAR(j["b"]["qdd"][0].get<double>(), 2 * j["a"]["qdd"][0].get<double>(), 1e-9);
  EXPECT_GT(std::abs(j["a"]["qdd"][0].get<double>()), 0.1);
}

// A chain of 90 bodies loads; deeper nesting than the parser takes is one located line.
TEST(Mjcf, DeepNestingIsBoundedAndLocated) {
  const auto chain = [](int n) {
    std::string s = "<mujoco><worldbody>\n";
    for (int i = 0; i < n; ++i) s += "<body pos='0 0 -0.1'><joint/><geom size='0.01'/>";
    for (int i = 0; i < n; ++i) s += "</body>";
    return s + "</worldbody></mujoco>";
  };
  EXPECT_EQ(load_mjcf_text(chain(90)).model.bodies().size(), 90u);
  try {
    load_mjcf_text(chain(120));
    FAIL();
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()),
              "model.xml:2: element <body> is nested deeper than the limit of 96 XML elements");
  }
}

// <option gravity timestep> are the scene's gravity and step, unless the scene says them.
TEST(Mjcf, OptionGivesGravityAndStep) {
  const std::string text = R"(<mujoco><option gravity='1 0 -2' timestep='0.005'/><worldbody>
    <body name='b'><joint type='slide' axis='1 0 0'/><geom size='0.1'/></body>
    </worldbody></mujoco>)";
  const Scene s = load_mjcf_text(text);
  EXPECT_EQ(s.model.gravity, Vec3(1, 0, -2));
  EXPECT_EQ(s.settings.integrator.dt, 0.005);
  const std::string xml = testing::write_temp("opt.xml", text);
  const std::string own =
      testing::write_temp("opt.json", R"({"gravity": [0, 0, -9.81], "integrator": {"dt": 0.002},
                     "include": {"mjcf": ")" +
                                          xml + "\"}}");
  const Scene t = load_scene(own);
  EXPECT_EQ(t.model.gravity, Vec3(0, 0, -9.81));
  EXPECT_EQ(t.settings.integrator.dt, 0.002);
  const std::string theirs =
      testing::write_temp("opt2.json", R"({"include": {"mjcf": ")" + xml + "\"}}");
  EXPECT_EQ(load_scene(theirs).settings.integrator.dt, 0.005);
}

// Elements whose contents would be lost are refused, not warned about.
TEST(Mjcf, ElementsHoldingBodiesAreRefused) {
  try {
    load_mjcf_text(
        "<mujoco><worldbody>\n<body name='b'><joint/><geom size='1'/>\n<frame pos='1 0 0'>"
        "<geom size='1'/></frame></body></worldbody></mujoco>");
    FAIL();
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()),
              "model.xml:3: /mujoco/worldbody/body/frame: <frame> is not supported (the bodies "
              "and geoms it holds would be lost)");
  }
}

}  // namespace
}  // namespace appell
