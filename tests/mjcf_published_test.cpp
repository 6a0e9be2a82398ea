// The constructs of published MuJoCo models (arms, quadrupeds, humanoids of the kind
// collected in google-deepmind/mujoco_menagerie), in small MJCF snippets written here:
// actuator default classes shared by <general>, <position>, <motor>, <velocity>;
// MuJoCo's control clamp (ctrlrange) and force clamp (forcerange); fixed tendons with an
// actuator, a spring and a damper; frictionloss; keyframes; site and mesh defaults;
// top-level <include>; and `appell sweep` on a robot file, against closed forms
// (mjcf_published_mujoco_test.cpp compares the same files with MuJoCo's compilation).
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/tree.hpp>
#include <cmath>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tests/cli_util.hpp"
#include "tests/mjcf_files.hpp"
#include "tests/mjcf_published_models.hpp"

namespace appell {
namespace {

using testing::accelerations;
using testing::arm_xml;
using testing::file_name;
using testing::joint_of;
using testing::legged_xml;
using testing::pid_prefix;
using testing::run_cli;
using testing::write_model;
using testing::write_temp;

int count(const std::vector<std::string>& lines, const std::string& part) {
  int n = 0;
  for (const std::string& l : lines) n += l.find(part) != std::string::npos;
  return n;
}

// One hinge, a <position> servo: τ = clamp(kp (clamp(0, ctrlrange) − q) − kv q̇, forcerange)
// with MuJoCo's limits "auto" (autolimits): each clamp, and neither without autolimits
TEST(MjcfPublished, ServoClampsControlAndForce) {
  const double m = 2, c = 0.3, I = 0.1, a = 0.05;  // mass, centre, inertia, armature
  const auto model = [&](const std::string& compiler, const std::string& act) {
    return write_model("servo.xml", R"(<mujoco><compiler angle="radian" )" + compiler + R"(/>
      <option gravity="0 0 0"/>
      <worldbody><body name="a"><joint name="j" axis="0 1 0" armature="0.05"/>
        <inertial mass="2" pos="0.3 0 0" diaginertia="0.1 0.1 0.1"/></body></worldbody>
      <actuator>)" + act + R"(</actuator></mujoco>)");
  };
  const double J = I + m * c * c + a;
  const auto qdd = [&](const std::string& path, double q, double qd) {
    const Model mo = compile(load_scene(path));
    State s = mo.initial_state();
    s.q << q;
    s.u << qd;
    return accelerations(mo, s)(0);
  };
  const std::string act =
      R"(<position joint="j" kp="100" kv="2" ctrlrange="0.2 1" forcerange="-5 5"/>)";
  // the control 0 held at 0.2; the force 100 (0.2 − q) − 2 q̇ within ±5, or at a bound
  const std::string clamped = model(R"(autolimits="true")", act);
  EXPECT_NEAR(qdd(clamped, 0.19, 0.3), (100 * (0.2 - 0.19) - 2 * 0.3) / J, 1e-12);
  EXPECT_NEAR(qdd(clamped, 0.5, 0.0), -5 / J, 1e-12);
  EXPECT_NEAR(qdd(clamped, -1.0, 0.0), 5 / J, 1e-12);
  // limited="false": no clamp at all
  const std::string free = model(
      R"(autolimits="true")",
      R"(<position joint="j" kp="100" kv="2" ctrlrange="0.2 1" forcerange="-5 5" ctrllimited="false" forcelimited="false"/>)");
  EXPECT_NEAR(qdd(free, 0.5, 0.1), (100 * (0 - 0.5) - 2 * 0.1) / J, 1e-12);
}

// <general> with a class default (biastype affine, ranges) and the element's gain and bias,
// a gear: τ = gear clamp(gain ctrl + b0 + b1 gear q + b2 gear q̇); a motor and a velocity
// servo whose class sets ranges only
TEST(MjcfPublished, GeneralActuatorFromClass) {
  const std::string path = write_model("general.xml", R"(<mujoco>
    <compiler angle="radian" autolimits="true"/><option gravity="0 0 0"/>
    <default><default class="arm">
      <general biastype="affine" ctrlrange="0.5 1" forcerange="-3 4"/>
      <position kp="7"/>
    </default></default>
    <worldbody>
      <body name="a"><joint name="j" axis="0 1 0"/>
        <inertial mass="1" pos="0 0 0" diaginertia="0.5 0.5 0.5"/></body>
      <body name="b" pos="1 0 0"><joint name="k" axis="0 0 1"/>
        <inertial mass="1" pos="0 0 0" diaginertia="0.25 0.25 0.25"/></body>
    </worldbody>
    <actuator>
      <general class="arm" name="g" joint="j" gear="2" gainprm="10" biasprm="0.5 -3 -0.5"/>
      <velocity class="arm" name="v" joint="k" kv="0.4" forcerange="-100 100"/>
    </actuator></mujoco>)");
  const Model m = compile(load_scene(path));
  State s = m.initial_state();
  s.q << 0.1, 0.2;
  s.u << -0.3, 0.7;
  const Eigen::VectorXd udot = accelerations(m, s);
  // g: ctrl 0 → 0.5; F = 10·0.5 + 0.5 − 3·2·0.1 − 0.5·2·(−0.3) = 5.2 → 4 (forcerange); τ = 8
  EXPECT_NEAR(udot(0) * 0.5, 8.0, 1e-9);
  // v: a <velocity> in class "arm" takes its kv and the class's control range: the gain
  // 0.4 at ctrl 0.5 and bias −0.4 q̇ (MuJoCo's velocity servo), τ = 0.2 − 0.28
  EXPECT_NEAR(udot(1) * 0.25, 0.4 * 0.5 - 0.4 * 0.7, 1e-9);
}

// Two slides on a fixed tendon L = (q1 + q2)/2 with a spring (20, rest 0), a damper (0.5)
// and an actuator F = clamp(−100 L − 10 L̇, ±100): each slide feels coef × the sum
TEST(MjcfPublished, FixedTendonSpringDamperActuator) {
  const std::string path = write_model("tendon.xml", R"(<mujoco>
    <compiler autolimits="true"/><option gravity="0 0 0"/>
    <worldbody>
      <body name="a"><joint name="f1" type="slide" axis="1 0 0"/>
        <inertial mass="2" pos="0 0 0" diaginertia="1 1 1"/></body>
      <body name="b" pos="0 1 0"><joint name="f2" type="slide" axis="0 1 0"/>
        <inertial mass="3" pos="0 0 0" diaginertia="1 1 1"/></body>
    </worldbody>
    <tendon><fixed name="split" stiffness="20" damping="0.5">
      <joint joint="f1" coef="0.5"/><joint joint="f2" coef="0.5"/></fixed></tendon>
    <actuator><general name="grip" tendon="split" forcerange="-100 100" ctrlrange="0 255"
      gainprm="0.0157 0 0" biasprm="0 -100 -10" biastype="affine"/></actuator></mujoco>)");
  const Model m = compile(load_scene(path));
  for (const double q1 : {0.3, 4.0}) {
    State s = m.initial_state();
    s.q << q1, 0.1;
    s.u << 0.2, -0.4;
    const double L = 0.5 * (q1 + 0.1), Ld = 0.5 * (0.2 - 0.4);
    const double F = std::min(std::max(-100 * L - 10 * Ld, -100.0), 100.0) - 20 * L - 0.5 * Ld;
    const Eigen::VectorXd udot = accelerations(m, s);
    EXPECT_NEAR(udot(0), 0.5 * F / 2, 1e-12);
    EXPECT_NEAR(udot(1), 0.5 * F / 3, 1e-12);
  }
}

// frictionloss is the joint's Coulomb friction (appell's bounded row); a slide under gravity
// below it stays; site and mesh defaults come from the classes
TEST(MjcfPublished, FrictionlossSiteAndMeshDefaults) {
  const std::string path = write_model("arm.xml", arm_xml());
  const Scene sc = load_scene(path);
  const Model m = compile(sc);
  for (const char* j : {"j1", "j2", "f1"}) {
    SCOPED_TRACE(j);
    const auto jt = joint_of(m, j);
    ASSERT_TRUE(jt);
    EXPECT_EQ(jt->properties().friction, 0.3);
    EXPECT_EQ(jt->properties().armature, 0.1);
  }
  // the mesh's class scale (1 2 1) reaches the shape (the cube's ±0.05 becomes ±0.1 in y)
  ASSERT_EQ(m.visuals().size(), 1u);
  Vec3 extent = Vec3::Zero();
  for (const Vec3& v : m.visuals()[0].mesh->vertices) extent = extent.cwiseMax(v.cwiseAbs());
  EXPECT_LT((extent - Vec3(0.05, 0.1, 0.05)).norm(), 1e-8) << extent.transpose();  // floats
  // the site "s1" is at its class's position in l1 (at qpos0 l1's axes are the world's): a
  // body welded at the site starts there
  const std::string probe =
      write_temp("site_probe.json", R"({"include": {"mjcf": ")" + file_name(path) + R"("},
    "bodies": [{"name": "probe", "mass": 1, "inertia": {"principal": [1, 1, 1]}}],
    "constraints": [{"name": "weld", "type": "fixed", "bodies": ["s1", "probe"],
                     "origin": {"xyz": [0, 0, 0]}}]})");
  const Model pm = compile(load_scene(probe));
  EXPECT_LT((pm.initial_body_state(pm.body_index("probe")).x - Vec3(0.01, 0.02, 0.463)).norm(),
            1e-12);
  const auto hold = write_model("hold.xml", R"(<mujoco><worldbody>
    <body name="b"><joint name="s" type="slide" axis="0 0 1" frictionloss="20"/>
      <inertial mass="1" pos="0 0 0" diaginertia="1 1 1"/></body></worldbody></mujoco>)");
  const auto r = run_cli("simulate --duration 0.2 --quiet --out " + ::testing::TempDir() +
                         pid_prefix() + "hold.csv " + hold);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string csv = testing::read_file(::testing::TempDir() + pid_prefix() + "hold.csv");
  const std::string last = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
  // the last row: t, then the slide's q, which friction (20 N > m g) held at 0
  const std::string q = last.substr(last.find(',') + 1);
  EXPECT_LT(std::abs(std::stod(q.substr(0, q.find(',')))), 1e-12) << csv.substr(0, 200);
}

// What appell leaves out is named, once, with its line and element path; nothing is dropped
// silently; an integrator newer than MuJoCo 2 is only warned about
TEST(MjcfPublished, WarningsAreLocated) {
  const std::string path = write_model("arm.xml", arm_xml());
  const Scene sc = load_scene(path);
  const std::string f = file_name(path);
  const auto has = [&](const std::string& w) { EXPECT_EQ(count(sc.warnings, w), 1) << w; };
  has(f + ":27: /mujoco/worldbody/light: <light> not supported");
  has(f + ":28: /mujoco/worldbody/camera: <camera> not supported");
  has(f + ":68: /mujoco/contact/exclude: an exclusion of two bodies not joined");
  has(f + ":85: /mujoco/sensor: not supported, ignored");
  has(f + ":86: /mujoco/keyframe: keyframes not applied");
  has(f + ":6: /mujoco/default/default/material: defaults of <material> not supported");
  has(f + ":3: /mujoco/option: attribute 'integrator' not supported, ignored");
  const std::string newer = write_model("implicitfast.xml", R"(<mujoco>
    <option integrator="implicitfast"/><worldbody><body><freejoint/>
    <geom type="sphere" size="0.1"/></body></worldbody></mujoco>)");
  const auto r = run_cli("check " + newer);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(file_name(newer) +
                       ":2: /mujoco/option: attribute 'integrator' not supported, ignored"),
            std::string::npos)
      << r.err;
}

// A scene starts from a keyframe: its qpos (a free joint's position and quaternion),
// qvel (a free joint's angular velocity in the body frame, appell's in the world) and
// ctrl (the servos' targets); "q" of the include overrides it; errors located
TEST(MjcfPublished, KeyframeThroughInclude) {
  const std::string xml = write_model("legged.xml", legged_xml());
  const auto scene = [&](const std::string& extra) {
    return write_temp("legged_home.json", R"({"include": {"mjcf": ")" + file_name(xml) +
                                              R"(", "keyframe": "home")" + extra + "}}");
  };
  const Model m = compile(load_scene(scene("")));
  const State& s = m.initial_state();
  const TreeModel& tree = m.tree();
  const Quat Q = Quat(0.9, 0.1, -0.2, 0.3).normalized();
  for (const TreeJoint& t : tree.joints) {
    if (t.constraint < 0 || m.constraints()[t.constraint]->name() != "root") continue;
    EXPECT_LT((s.q.segment<3>(t.q_offset) - Vec3(0.1, -0.2, 0.27)).norm(), 1e-15);
    EXPECT_NEAR(
        std::abs(s.q.segment<4>(t.q_offset + 3).dot(Eigen::Vector4d(Q.w(), Q.x(), Q.y(), Q.z()))),
        1.0, 1e-12);
    EXPECT_LT((s.u.segment<3>(t.u_offset) - Vec3(0.1, 0.2, -0.3)).norm(), 1e-12);
    EXPECT_LT((s.u.segment<3>(t.u_offset + 3) - Q * Vec3(1, -2, 0.5)).norm(), 1e-12);
  }
  // FR_calf at −1.8 held by its servo to the key's −1.8: no torque from it; FL_hip at 0
  // servoed to 0.1: 100 · 0.1 = 10 N·m (within ±23.7)
  Data d(m);
  ASSERT_EQ(forward(m, d, Formulation::Recursive), SolveStatus::Ok);
  const auto q_of = [&](const std::string& j) -> double {
    for (const TreeJoint& t : tree.joints)
      if (t.constraint >= 0 && m.constraints()[t.constraint]->name() == j) return s.q(t.q_offset);
    return NAN;
  };
  EXPECT_NEAR(q_of("FR_calf_joint"), -1.8, 1e-12);
  EXPECT_NEAR(q_of("FL_thigh_joint"), 0.9, 1e-12);
  const Model over = compile(load_scene(scene(R"(, "q": {"FR_calf_joint": -1.0})")));
  for (const TreeJoint& t : over.tree().joints) {
    if (t.constraint >= 0 && over.constraints()[t.constraint]->name() == "FR_calf_joint") {
      EXPECT_NEAR(over.initial_state().q(t.q_offset), -1.0, 1e-12);
    }
  }
  // a key that is not there, a wrong count
  const auto missing = run_cli(
      "check " + write_temp("missing_key.json", R"({"include": {"mjcf": ")" + file_name(xml) +
                                                    R"(", "keyframe": "away"}})"));
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("missing_key.json: /include/keyframe: no <keyframe><key "
                             "name=\"away\"> in "),
            std::string::npos)
      << missing.err;
  std::string short_key = legged_xml();
  short_key.replace(short_key.find("ctrl=\"0 0.9"), 10, "ctrl=\"0.9");
  const std::string bad = write_model("legged_short.xml", short_key);
  const auto wrong =
      run_cli("check " + write_temp("short_key.json", R"({"include": {"mjcf": ")" + file_name(bad) +
                                                          R"(", "keyframe": "home"}})"));
  EXPECT_EQ(wrong.status, 2);
  EXPECT_NE(wrong.err.find("/mujoco/keyframe/key: attribute 'ctrl': expected 9 numbers (one per "
                           "actuator), got 8"),
            std::string::npos)
      << wrong.err;
  EXPECT_EQ(std::count(wrong.err.begin(), wrong.err.end(), '\n'), 1) << wrong.err;
}

// A top-level <include> (a published scene.xml includes the robot and adds a floor): the
// included file's elements are read in its place, its errors located in it
TEST(MjcfPublished, TopLevelInclude) {
  const std::string robot = write_model("robot.xml", legged_xml());
  const std::string scene = write_temp("scene.xml", R"(<mujoco model="legged scene">
  <include file=")" + file_name(robot) + R"("/>
  <visual><headlight diffuse="0.6 0.6 0.6"/></visual>
  <asset><texture type="skybox" builtin="gradient" rgb1="0.3 0.5 0.7" rgb2="0 0 0" width="512" height="3072"/></asset>
  <worldbody><geom name="floor" size="0 0 0.05" type="plane"/></worldbody>
</mujoco>)");
  const Scene sc = load_scene(scene);
  const Model m = compile(sc);
  EXPECT_EQ(m.nbody(), 13);
  EXPECT_EQ(count(sc.warnings, file_name(robot) + ":30: /mujoco/worldbody/body/camera"), 1);
  EXPECT_EQ(count(sc.warnings, file_name(scene) + ":3: /mujoco/visual: not supported"), 1);
  const std::string broken = write_temp("broken.xml", R"(<mujoco><worldbody>
    <body name="b"><joint type="screw"/><geom size="0.1"/></body></worldbody></mujoco>)");
  const std::string outer =
      write_temp("outer.xml", "<mujoco>\n<include file=\"" + file_name(broken) + "\"/>\n</mujoco>");
  const auto r = run_cli("check " + outer);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(file_name(broken) + ":2: /mujoco/worldbody/body/joint: unknown joint type "
                                           "'screw'"),
            std::string::npos)
      << r.err;
  const std::string self = write_temp(
      "self.xml", "<mujoco>\n<include file=\"" + pid_prefix() + "self.xml\"/>\n</mujoco>");
  const auto s = run_cli("check " + self);
  EXPECT_EQ(s.status, 2);
  EXPECT_NE(s.err.find("self.xml:2: /mujoco/include: '"), std::string::npos) << s.err;
  EXPECT_NE(s.err.find("includes itself"), std::string::npos) << s.err;
  // a bound on the files in all (each may be included many times over)
  const std::string leaf = write_temp("leaf.xml", "<mujoco><size/></mujoco>");
  std::string many = "<mujoco>\n";
  for (int i = 0; i < 65; ++i) many += "<include file=\"" + file_name(leaf) + "\"/>\n";
  const auto r65 = run_cli("check " + write_temp("many.xml", many + "</mujoco>"));
  EXPECT_EQ(r65.status, 2);
  EXPECT_NE(r65.err.find("many.xml:66: /mujoco/include[65]: more than 64 included files"),
            std::string::npos)
      << r65.err;
}

// `appell sweep` takes what `appell simulate` takes: an MJCF or URDF robot is swept as the
// scene including it (rows equal to that scene's sweep); a bad pointer is one located line
TEST(MjcfPublished, SweepTakesARobotFile) {
  const std::string xml = write_model("sweep_arm.xml", R"(<mujoco><compiler angle="radian"/>
    <worldbody><body name="a"><joint name="j" axis="0 1 0"/>
      <inertial mass="2" pos="0.3 0 0" diaginertia="0.1 0.1 0.1"/></body></worldbody></mujoco>)");
  const std::string json =
      write_temp("sweep_scene.json", R"({"include": {"mjcf": ")" + file_name(xml) + R"("}})");
  const std::string sets =
      " --set /gravity=[0,0,-9.81],[0,0,-1] --set /integrator/duration=0.1 "
      "--set /include/q/j=0.5 --quiet";
  const auto direct = run_cli("sweep " + xml + sets);
  const auto wrapped = run_cli("sweep " + json + sets);
  ASSERT_EQ(direct.status, 0) << direct.err;
  ASSERT_EQ(wrapped.status, 0) << wrapped.err;
  EXPECT_EQ(std::count(direct.out.begin(), direct.out.end(), '\n'), 3) << direct.out;
  EXPECT_EQ(direct.out, wrapped.out);
  const std::string out = ::testing::TempDir() + pid_prefix() + "sweep_never.csv";
  const auto bad = run_cli("sweep " + xml + " --set /bogus=1 --quiet --out " + out);
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "error: " + xml +
                         ": /bogus: unknown key 'bogus'; expected one of: name, "
                         "gravity, include, bodies, constraints, forces, solver, "
                         "integrator, contact, output, shapes, disable, quasi_velocities\n");
  EXPECT_FALSE(std::ifstream(out).good());
}

}  // namespace
}  // namespace appell
