// MJCF import fidelity (scenes/mjcf.cpp) against MuJoCo's documented rules, in every build
// (tests/mjcf_mujoco_test.cpp checks the same against MuJoCo itself where it is installed):
// unnamed joints numbered by MuJoCo's ids, sites named like bodies, a fromto box of one
// size, planes only on static bodies, a link jointed to the world meeting the world's
// floor, and the scene's "disable" switches.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <string>

#include "tests/cli_util.hpp"

namespace appell {
namespace {

constexpr double kPi = 3.14159265358979323846;

Scene load(const std::string& xml) {
  return load_scene_from_string(xml, "model.xml");
}
std::string error_of(const std::string& text, const std::string& file = "model.xml") {
  try {
    load_scene_from_string(text, file);
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}
bool has_joint(const Scene& s, const std::string& name) {
  for (const ConstraintPtr& c : s.model.constraints())
    if (c->name() == name) return true;
  return false;
}

// MuJoCo numbers joints in the tree's order from 0; an unnamed one is joint<id + 1>.
// Bodies without joints (welded when massive, merged when massless) have no joint id.
TEST(MjcfFidelity, UnnamedJointsAreNumberedByMujocoIds) {
  const Scene s = load(R"(<mujoco><worldbody>
    <body name="welded"><geom size="0.1"/>
      <body name="a" pos="1 0 0"><joint/><geom size="0.1"/></body></body>
    <body name="frame" pos="0 1 0"/>
    <body name="b" pos="2 0 0"><joint name="named" axis="1 0 0"/><joint axis="0 1 0"/>
      <geom size="0.1"/>
      <body name="c" pos="0 0 -1"><joint type="ball"/><geom size="0.1"/></body></body>
    </worldbody></mujoco>)");
  // ids: a's hinge 0, b's joints 1 and 2, c's ball 3
  for (const char* name : {"joint1", "named", "joint3", "joint4", "welded_weld"})
    EXPECT_TRUE(has_joint(s, name)) << name;
  EXPECT_FALSE(has_joint(s, "joint2"));
  EXPECT_FALSE(has_joint(s, "joint5"));
  // the massless frame between b's two joints is named after the first
  EXPECT_GE(s.model.body_index("b/named"), 0);
}

// MuJoCo keeps a namespace per kind of element: a site may share a body's name (the name
// then means the body, with a warning); two sites may not share one
TEST(MjcfFidelity, SiteNamedLikeABody) {
  const Scene s = load(R"(<mujoco><worldbody>
    <body name="arm" pos="0 0 1"><joint axis="0 1 0"/><geom size="0.1"/>
      <site name="arm" pos="0.5 0 0"/><site name="tip" pos="0.3 0 0"/>
      <body name="tip" pos="0 0 -0.5"><joint axis="0 1 0"/><geom size="0.1"/></body>
      <site name="world"/></body>
    </worldbody></mujoco>)");
  EXPECT_GE(s.model.body_index("arm"), 0);
  EXPECT_GE(s.model.body_index("tip"), 0);
  int warned = 0;
  for (const std::string& w : s.warnings)
    warned += w.find("has the name of a body") != std::string::npos;
  EXPECT_EQ(warned, 3) << s.warnings.size();
  EXPECT_EQ(error_of("<mujoco><worldbody>\n<body name='b'><joint/><geom size='0.1'/>"
                     "<site name='s'/>\n<site name='s'/></body></worldbody></mujoco>"),
            "model.xml:3: /mujoco/worldbody/body/site[2]: a second site named 's'");
}

// A box (or ellipsoid) from fromto takes one size, its half-width across the segment both
// ways, MuJoCo's rule (a second size is not read): half extents (r, r, L/2)
TEST(MjcfFidelity, FromtoBoxOfOneSize) {
  for (const char* size : {"0.1", "0.1 0.3"}) {
    const Scene s = load(std::string(R"(<mujoco><worldbody>
      <body name="b"><joint/><geom name="g" type="box" fromto="0 0 0 0 0.8 0" size=")") +
                         size + R"(" density="1000"/>
      <geom type="ellipsoid" fromto="0 0 0 0.4 0 0" size="0.05" density="1000"/></body>
      </worldbody></mujoco>)");
    const Shape& box = s.model.shapes().at(0);
    EXPECT_LT((box.half_extents - Vec3(0.1, 0.1, 0.4)).norm(), 1e-15) << size;
    const double m_box = 1000 * 8 * 0.1 * 0.1 * 0.4;
    const double m_ell = 1000 * 4.0 / 3 * kPi * 0.05 * 0.05 * 0.2;
    EXPECT_NEAR(s.model.bodies().at(0).mass, m_box + m_ell, 1e-12);
  }
}

// A plane bounds a half-space of the world: on a body a joint moves, refused where it is
// written (MuJoCo: "plane and hfield only allowed in static bodies"); on the world or a
// body welded to it, read
TEST(MjcfFidelity, PlaneOnAMovingBodyIsRefused) {
  const std::string tray = R"(<mujoco><worldbody>
<body name="tray" pos="0 0 1"><joint type="slide" axis="0 0 1"/>
<geom type="box" size="0.2 0.2 0.01"/>
<geom type="plane" size="1 1 0.1"/>
</body></worldbody></mujoco>)";
  EXPECT_EQ(error_of(tray),
            "model.xml:4: /mujoco/worldbody/body/geom[2]: a plane is allowed only on the world or "
            "a body welded to it (MuJoCo's static bodies); this body moves");
  const std::string path = testing::write_temp("tray.xml", tray);
  const testing::CliResult r = testing::run_cli("check " + path);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  // a static body (no joint up to the world) may hold one
  const Scene s = load(R"(<mujoco><worldbody>
    <body name="table" pos="0 0 1"><geom type="plane" size="1 1 0.1"/><geom size="0.1"/>
      <body name="leaf"><geom type="plane" size="1 1 0.1"/></body></body>
    <body name="ball" pos="0 0 2"><freejoint/><geom size="0.1"/></body>
    </worldbody></mujoco>)");
  int planes = 0;
  for (const Shape& sh : s.model.shapes()) planes += sh.type == ShapeType::Plane;
  EXPECT_EQ(planes, 2);
}

// A link jointed straight to the world meets the world's floor (MuJoCo's parent filter
// leaves out the world): a horizontal bar on a hinge 0.3 m above the floor swings down
// and stops where its end touches, instead of passing through
TEST(MjcfFidelity, LinkJointedToTheWorldMeetsTheFloor) {
  const Scene scene = load(R"(<mujoco><option timestep="0.002"/><worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="bar" pos="0 0 0.3"><joint name="hinge" axis="0 1 0"/>
      <geom type="box" pos="0.5 0 0" size="0.5 0.05 0.05" density="500"/></body>
    </worldbody></mujoco>)");
  const Model m = compile(scene);
  ASSERT_TRUE(has_unilateral_rows(m, true, true));
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.integrator.duration = 1.0;
  // the lowest corner of the bar (its centre of mass is the box's centre)
  const int bar = m.body_index("bar");
  double lowest = INFINITY;
  const SimulationResult r = simulate(m, o, [&](const Sample& s) {
    const BodyState& b = s.data.body[bar];
    for (int k = 0; k < 8; ++k) {
      const Vec3 corner((k & 1 ? 0.5 : -0.5), (k & 2 ? 0.05 : -0.05), (k & 4 ? 0.05 : -0.05));
      lowest = std::min(lowest, (b.x + b.Q * corner).z());
    }
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_GT(lowest, -1e-6);  // stopped at the floor
  EXPECT_LT(lowest, 1e-3);   // and it did reach it
}

// The scene's "disable" (MuJoCo's <flag> names): unknown names are located errors; a
// JSON scene's springs, dampers and joint forces and mimics are left out by kind
TEST(MjcfFidelity, DisableSwitchesOfAScene) {
  const std::string scene = R"({"gravity": [0, 0, -9.81], "disable": ["passive"],
    "bodies": [{"name": "p", "mass": 1, "com": [0, 0, -1], "inertia": {"sphere": 0.1}},
               {"name": "r", "mass": 1, "com": [0, 0, -1], "inertia": {"sphere": 0.1}}],
    "constraints": [
      {"name": "h", "type": "revolute", "bodies": ["world", "p"], "origin": {}, "axis": [0, 1, 0],
       "q": 0.5},
      {"name": "k", "type": "revolute", "bodies": ["world", "r"], "origin": {"xyz": [2, 0, 0]},
       "axis": [0, 1, 0], "q": 0.5},
      {"name": "m", "type": "mimic", "joint": "k", "leader": "h", "multiplier": 1, "offset": 0}],
    "forces": [{"type": "joint_spring", "joint": "h", "stiffness": 100},
               {"type": "joint_damping", "joint": "h", "damping": 3},
               {"type": "joint_torque", "joint": "k", "value": 7}]})";
  const auto with = [&](const std::string& list) {
    std::string s = scene;
    s.replace(s.find(R"(["passive"])"), 11, list);
    return load_scene_from_string(s, "switch.json");
  };
  EXPECT_EQ(with(R"([])").model.forces().size(), 3u);
  EXPECT_EQ(with(R"(["passive"])").model.forces().size(), 1u);
  EXPECT_EQ(with(R"(["actuation"])").model.forces().size(), 2u);
  EXPECT_EQ(with(R"(["equality"])").model.constraints().size(), 2u);
  EXPECT_EQ(with(R"([])").model.constraints().size(), 3u);
  const Scene limits = with(R"(["limit", "frictionloss", "contact"])");
  EXPECT_FALSE(limits.settings.contact.joint_limits);
  EXPECT_FALSE(limits.settings.contact.joint_friction);
  try {
    with(R"(["passive", "gravity"])");
    FAIL();
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()),
              "switch.json: /disable/1: unknown switch 'gravity'; expected contact, limit, "
              "frictionloss, passive, actuation or equality");
  }
  // contact off: every shape only drawn
  const Scene s = load(R"(<mujoco><option><flag contact="disable" limit="disable"/></option>
    <worldbody><geom type="plane" size="1 1 0.1"/>
    <body name="b"><joint range="-10 10"/><geom size="0.1"/></body></worldbody></mujoco>)");
  EXPECT_TRUE(s.model.shapes().empty());
  EXPECT_EQ(s.model.visuals().size(), 2u);
  EXPECT_FALSE(s.settings.contact.joint_limits);
  EXPECT_EQ(error_of("<mujoco><option>\n<flag passive='off'/></option></mujoco>"),
            "model.xml:2: /mujoco/option/flag: attribute 'passive': expected enable or disable, "
            "got 'off'");
}

}  // namespace
}  // namespace appell
