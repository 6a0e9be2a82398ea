// The constructs of published MuJoCo models (arms, quadrupeds, humanoids of the kind
// collected in google-deepmind/mujoco_menagerie), in small MJCF snippets written here:
// actuator default classes shared by <general>, <position>, <motor>, <velocity>;
// MuJoCo's control clamp (ctrlrange) and force clamp (forcerange); fixed tendons with an
// actuator, a spring and a damper; frictionloss; keyframes; site and mesh defaults;
// top-level <include>; and `appell sweep` on a robot file.  Closed forms everywhere, and
// where libmujoco is installed the same files compiled by MuJoCo: masses, inertias, frames,
// joint axes to 1e-12 and joint accelerations at random states (contacts, frictionloss off)
// to 1e-9.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/jacobians.hpp>
#include <appell/tree.hpp>
#include <cmath>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tests/cli_util.hpp"

#if defined(APPELL_HAVE_MUJOCO)
#include <mujoco/mujoco.h>

#include "tests/mujoco_util.hpp"
#endif

namespace appell {
namespace {

using testing::run_cli;
using testing::write_temp;

std::string pid_prefix() {
  return std::to_string(getpid()) + "_";
}
// a closed box OBJ [−0.05, 0.05]³ (a stand-in mesh: the bodies carry <inertial>)
std::string obj_cube() {
  std::string s;
  for (double x : {-0.05, 0.05})
    for (double y : {-0.05, 0.05})
      for (double z : {-0.05, 0.05})
        s += "v " + std::to_string(x) + " " + std::to_string(y) + " " + std::to_string(z) + "\n";
  const int q[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1},
                       {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
  for (const auto& f : q) {
    s += "f " + std::to_string(f[0] + 1) + " " + std::to_string(f[1] + 1) + " " +
         std::to_string(f[2] + 1) + "\n";
    s += "f " + std::to_string(f[0] + 1) + " " + std::to_string(f[2] + 1) + " " +
         std::to_string(f[3] + 1) + "\n";
  }
  return s;
}
std::string write_model(const std::string& name, const std::string& xml) {
  write_temp("cube.obj", obj_cube());
  return write_temp(name, xml);
}
std::string file_name(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}
std::shared_ptr<const Joint> joint_of(const Model& m, const std::string& name) {
  for (const ConstraintPtr& c : m.constraints())
    if (c->name() == name) return std::dynamic_pointer_cast<const Joint>(c);
  return nullptr;
}
// u̇ of a model at its initial state
Eigen::VectorXd accelerations(const Model& m, State s) {
  JointForward f(m);
  Eigen::VectorXd udot;
  EXPECT_EQ(f(s, Eigen::VectorXd(), udot), SolveStatus::Ok) << f.data().diagnostics.message;
  return udot;
}
int count(const std::vector<std::string>& lines, const std::string& part) {
  int n = 0;
  for (const std::string& l : lines) n += l.find(part) != std::string::npos;
  return n;
}

// An arm in the style of a published one: classes holding joint, actuator, site and mesh
// defaults; <general> actuators with an affine bias, a control range excluding 0 (MuJoCo
// clamps the zero control into it) and binding force ranges; <position> from a class,
// <motor> and <velocity> with a gear; two fingers on a fixed tendon driven by an actuator,
// with a spring and a damper; frictionloss; a joint spring; what appell names and leaves
// out (light, camera, sensor, keyframe, an exclusion of non-adjacent bodies)
std::string arm_xml() {
  return R"(<mujoco model="arm">
  <compiler angle="radian" meshdir="." autolimits="true"/>
  <option integrator="implicit" timestep="0.002"/>
  <default>
    <default class="robot">
      <material specular="0.5"/>
      <joint armature="0.1" damping="1" axis="0 0 1" range="-2.9 2.9" frictionloss="0.3"/>
      <general dyntype="none" biastype="affine" ctrlrange="-2.9 2.9" forcerange="-87 87"/>
      <site pos="0.01 0.02 0.03"/>
      <mesh scale="1 2 1"/>
      <default class="finger">
        <joint axis="0 1 0" type="slide" range="0 0.04"/>
      </default>
      <default class="small">
        <position kp="300" forcerange="-8 8" ctrlrange="0.6 1"/>
      </default>
      <default class="visual">
        <geom type="mesh" contype="0" conaffinity="0" group="2"/>
      </default>
    </default>
  </default>
  <asset>
    <material class="robot" name="white" rgba="1 1 1 1"/>
    <mesh class="robot" name="shell" file=")" +
         pid_prefix() + R"(cube.obj"/>
  </asset>
  <worldbody>
    <light name="top" pos="0 0 2"/>
    <camera name="cam" pos="0 -1 1" xyaxes="1 0 0 0 1 1"/>
    <body name="base" childclass="robot" pos="0 0 0.1">
      <inertial mass="0.6" pos="-0.04 0 0.05" diaginertia="0.003 0.004 0.0043"/>
      <geom class="visual" mesh="shell" material="white"/>
      <body name="l1" pos="0 0 0.333">
        <inertial mass="4.97" pos="0.004 0.002 -0.05" quat="0.9 0.1 -0.2 0.3"
                  diaginertia="0.7 0.69 0.02"/>
        <joint name="j1"/>
        <site name="s1"/>
        <body name="l2" quat="1 -1 0 0">
          <inertial mass="0.65" pos="-0.003 -0.03 0.003" quat="0.6 0 0.8 0"
                    diaginertia="0.03 0.026 0.008"/>
          <joint name="j2" range="-1.76 1.76" stiffness="5" springref="0.2"/>
          <body name="l3" pos="0 -0.316 0" quat="1 1 0 0">
            <joint name="j3" range="0.5 2.5"/>
            <inertial mass="3.2" pos="0.027 0.039 -0.066" diaginertia="0.037 0.036 0.011"/>
            <body name="l4" pos="0.0825 0 0" quat="1 1 0 0">
              <inertial mass="3.6" pos="-0.05 0.1 0.03" diaginertia="0.026 0.02 0.028"/>
              <joint name="j4" range="-3.07 -0.07"/>
              <body name="l5" pos="-0.08 0.38 0" quat="1 -1 0 0">
                <inertial mass="1.2" pos="-0.012 0.04 -0.038" diaginertia="0.035 0.029 0.009"/>
                <joint name="j5"/>
                <body name="hand" pos="0 0 0.107" quat="0.9238795 0 0 -0.3826834">
                  <inertial mass="0.73" pos="-0.01 0 0.03" diaginertia="0.001 0.0025 0.0017"/>
                  <body name="lf" pos="0 0 0.0584">
                    <inertial mass="0.015" pos="0 0 0" diaginertia="2.375e-6 2.375e-6 7.5e-7"/>
                    <joint name="f1" class="finger"/>
                  </body>
                  <body name="rf" pos="0 0 0.0584" quat="0 0 0 1">
                    <inertial mass="0.015" pos="0 0 0" diaginertia="2.375e-6 2.375e-6 7.5e-7"/>
                    <joint name="f2" class="finger"/>
                  </body>
                </body>
              </body>
            </body>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <contact><exclude body1="l1" body2="l3"/></contact>
  <tendon>
    <fixed name="split" stiffness="20" damping="0.5">
      <joint joint="f1" coef="0.5"/>
      <joint joint="f2" coef="0.5"/>
    </fixed>
  </tendon>
  <actuator>
    <general class="robot" name="a1" joint="j1" gainprm="4500" biasprm="0 -4500 -450"/>
    <general class="robot" name="a2" joint="j2" gainprm="450" biasprm="0 -450 -45"
             ctrlrange="0.3 1" forcerange="-1000 1000"/>
    <position class="small" name="a3" joint="j3"/>
    <motor name="a4" joint="j4" gear="2" ctrlrange="-1 1"/>
    <velocity name="a5" joint="j5" kv="3" gear="1.5"/>
    <general class="robot" name="a8" tendon="split" forcerange="-100 100" ctrlrange="0 255"
             gainprm="0.0157 0 0" biasprm="0 -100 -10"/>
  </actuator>
  <sensor><jointpos name="q1" joint="j1"/></sensor>
  <keyframe>
    <key name="home" qpos="0.1 -0.2 1.5 -1.5 0.3 0.02 0.01" qvel="0.5 -0.5 0.2 0.1 -0.3 0.01 0"
         ctrl="0.2 0.5 0.9 0.5 -1 100"/>
  </keyframe>
</mujoco>
)";
}

// A legged robot in the style of a published one: a free trunk whose childclass holds
// nested classes of joint and <position> defaults (kp, force and control ranges),
// frictionloss, collision capsules from fromto defaults, sites, a <motor> with a class
std::string legged_xml() {
  std::string legs;
  const char* side[4][2] = {{"FR", "0.19 -0.05 0"},
                            {"FL", "0.19 0.05 0"},
                            {"RR", "-0.19 -0.05 0"},
                            {"RL", "-0.19 0.05 0"}};
  for (const auto& s : side) {
    const std::string n = s[0];
    legs += R"(
      <body name=")" +
            n + R"(_hip" pos=")" + s[1] + R"(">
        <inertial pos="-0.005 0.008 -0.0001" quat="0.507 0.514 0.495 0.483" mass="0.68"
                  diaginertia="0.00073 0.00047 0.0004"/>
        <joint class="abduction" name=")" +
            n + R"(_hip_joint"/>
        <geom class="collision" size="0.046 0.02" quat="1 1 0 0" type="cylinder"/>
        <body name=")" +
            n + R"(_thigh" pos="0 -0.08 0">
          <inertial pos="-0.003 0.019 -0.03" quat="0.652 -0.027 0.078 0.753" mass="1.009"
                    diaginertia="0.0048 0.0046 0.0007"/>
          <joint class="hip" name=")" +
            n + R"(_thigh_joint"/>
          <geom class="thigh"/>
          <body name=")" +
            n + R"(_calf" pos="0 0 -0.213">
            <inertial pos="0.004 0.001 -0.146" quat="0.691 0.004 0.005 0.723" mass="0.196"
                      diaginertia="0.0015 0.00148 3.6e-05"/>
            <joint class="knee" name=")" +
            n + R"(_calf_joint"/>
            <geom class="foot"/>
            <site name=")" +
            n + R"(" pos="0 0 -0.213"/>
          </body>
        </body>
      </body>)";
  }
  return R"(<mujoco model="legged">
  <compiler angle="radian" autolimits="true"/>
  <option cone="elliptic" impratio="100"/>
  <default>
    <default class="dog">
      <geom friction="0.6" margin="0.001" condim="1"/>
      <joint axis="0 1 0" damping="2" armature="0.01" frictionloss="0.2"/>
      <position kp="100" forcerange="-23.7 23.7"/>
      <default class="abduction">
        <joint axis="1 0 0" damping="1" range="-0.863 0.863"/>
        <position ctrlrange="-0.863 0.863"/>
      </default>
      <default class="hip">
        <joint range="-0.686 2.5"/>
        <position ctrlrange="-0.686 2.5"/>
      </default>
      <default class="knee">
        <joint range="-2.818 -0.888"/>
        <position forcerange="-35.55 35.55" ctrlrange="-2.818 -0.888"/>
      </default>
      <default class="collision">
        <geom group="3" type="capsule"/>
        <default class="thigh"><geom size="0.015" fromto="-0.02 0 0 -0.02 0 -0.16"/></default>
        <default class="foot"><geom type="sphere" size="0.023" pos="0 0 -0.213" priority="1"/></default>
      </default>
    </default>
  </default>
  <worldbody>
    <body name="trunk" pos="0 0 0.445" childclass="dog">
      <camera name="tracking" mode="trackcom" pos="0 -1 0.8" xyaxes="1 0 0 0 1 1"/>
      <site name="imu" pos="0 0 0"/>
      <inertial pos="0.0223 0.002 -0.0005" quat="-0.0034 0.705 0.0001 0.709" mass="5.204"
                diaginertia="0.0717 0.063 0.0168"/>
      <freejoint name="root"/>
      <geom class="collision" size="0.125 0.04 0.057" type="box"/>)" +
         legs + R"(
    </body>
  </worldbody>
  <actuator>
    <position class="abduction" name="FR_hip" joint="FR_hip_joint"/>
    <position class="hip" name="FR_thigh" joint="FR_thigh_joint"/>
    <position class="knee" name="FR_calf" joint="FR_calf_joint"/>
    <position class="abduction" name="FL_hip" joint="FL_hip_joint"/>
    <position class="hip" name="FL_thigh" joint="FL_thigh_joint"/>
    <position class="knee" name="FL_calf" joint="FL_calf_joint"/>
    <motor class="dog" name="RR_hip" joint="RR_hip_joint" ctrlrange="-20 20"/>
    <motor class="dog" name="RR_thigh" joint="RR_thigh_joint" ctrlrange="-20 20"/>
    <motor class="dog" name="RR_calf" joint="RR_calf_joint" ctrlrange="-20 20"/>
  </actuator>
  <keyframe>
    <key name="home" qpos="0.1 -0.2 0.27 0.9 0.1 -0.2 0.3 0 0.9 -1.8 0 0.9 -1.8 0 0.9 -1.8 0 0.9 -1.8"
         qvel="0.1 0.2 -0.3 1 -2 0.5 0 0 0 0.1 0.2 0.3 0 0 0 0 0 0"
         ctrl="0 0.9 -1.8 0.1 0.9 -1.8 1 2 3"/>
  </keyframe>
</mujoco>
)";
}

// ---- closed forms (every build) ----------------------------------------------------------

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

#if defined(APPELL_HAVE_MUJOCO)
// ---- against MuJoCo -------------------------------------------------------------------

using testing::Both;
using testing::v3;
// MuJoCo with contacts and frictionloss off (appell's friction is a row of its contact
// stepper, not of the smooth dynamics compared here); equality constraints are not used
Both load_both(const std::string& path, const std::string& scene = "") {
  return testing::load_both_files(path, mjDSBL_CONTACT | mjDSBL_FRICTIONLOSS, scene);
}

// masses, world centres and inertias at qpos0, joint anchors and axes, armature
void expect_same_model(const Both& b) {
  const mjModel* mj = b.mj.get();
  mjData* md = b.md.get();
  mj_forward(mj, md);
  int compared = 0;
  for (int i = 1; i < mj->nbody; ++i) {
    const std::string name = mj_id2name(mj, mjOBJ_BODY, i);
    SCOPED_TRACE("body " + name);
    const int k = b.m.body_index(name);
    ASSERT_GE(k, 0);
    if (mj->body_mass[i] == 0) continue;  // a massless frame, merged into its parent
    const Body& a = b.m.bodies()[k];
    const BodyState s = b.m.initial_body_state(k);
    EXPECT_NEAR(a.mass, mj->body_mass[i], 1e-12 * mj->body_mass[i]);
    EXPECT_LT((s.x - v3(md->xipos + 3 * i)).norm(), 1e-12);
    Mat3 R;
    R << md->ximat[9 * i], md->ximat[9 * i + 1], md->ximat[9 * i + 2], md->ximat[9 * i + 3],
        md->ximat[9 * i + 4], md->ximat[9 * i + 5], md->ximat[9 * i + 6], md->ximat[9 * i + 7],
        md->ximat[9 * i + 8];
    const Mat3 I_mj = R * v3(mj->body_inertia + 3 * i).asDiagonal() * R.transpose();
    EXPECT_LT((s.Q * a.inertia * s.Q.transpose() - I_mj).norm(), 1e-12 * I_mj.norm());
    ++compared;
  }
  EXPECT_GE(compared, 5);
  for (int j = 0; j < mj->njnt; ++j) {
    const std::string name = mj_id2name(mj, mjOBJ_JOINT, j);
    SCOPED_TRACE("joint " + name);
    const auto jt = joint_of(b.m, name);
    ASSERT_TRUE(jt);
    EXPECT_EQ(jt->properties().armature, mj->dof_armature[mj->jnt_dofadr[j]]);
    EXPECT_EQ(jt->properties().friction, mj->dof_frictionloss[mj->jnt_dofadr[j]]);
    if (mj->jnt_type[j] == mjJNT_FREE) continue;
    const BodyState P = b.m.initial_body_state(jt->parent());
    EXPECT_LT((P.x + P.Q * jt->frames().X_P - v3(md->xanchor + 3 * j)).norm(), 1e-12);
    EXPECT_LT((P.Q * jt->frames().E_P.col(2) - v3(md->xaxis + 3 * j)).norm(), 1e-12);
  }
}

// MuJoCo's qpos, qvel as appell's state and T with u = T qvel (a free joint's angular
// velocity: MuJoCo's in the body frame, appell's in the world)
struct Mapped {
  State s;
  Eigen::MatrixXd T;
};
Mapped map_state(const Both& b) {
  const mjModel* mj = b.mj.get();
  const mjData* md = b.md.get();
  const TreeModel& tree = b.m.tree();
  Mapped out;
  out.s.q = Eigen::VectorXd::Zero(tree.nq);
  out.T = Eigen::MatrixXd::Zero(tree.nu, mj->nv);
  for (const TreeJoint& t : tree.joints) {
    if (t.nu == 0) continue;
    const std::string name = b.m.constraints()[t.constraint]->name();
    const int j = mj_name2id(mj, mjOBJ_JOINT, name.c_str());
    if (j < 0) throw std::runtime_error("no MuJoCo joint " + name);
    const double* qp = md->qpos + mj->jnt_qposadr[j];
    const int va = mj->jnt_dofadr[j];
    if (mj->jnt_type[j] == mjJNT_FREE) {
      const Mat3 R = Quat(qp[3], qp[4], qp[5], qp[6]).normalized().toRotationMatrix();
      for (int k = 0; k < 7; ++k) out.s.q(t.q_offset + k) = qp[k];
      out.T.block(t.u_offset, va, 3, 3).setIdentity();
      out.T.block(t.u_offset + 3, va + 3, 3, 3) = R;
    } else {
      out.s.q(t.q_offset) = qp[0];
      out.T(t.u_offset, va) = 1;
    }
  }
  out.s.u = out.T * Eigen::Map<const Eigen::VectorXd>(md->qvel, mj->nv);
  return out;
}

// at a random state (hinges within (−π, π], where appell reads their angles, and inside
// their ranges, where MuJoCo's limits are idle): u̇ equals MuJoCo's qacc to 1e-9
void expect_same_accelerations(Both& b, unsigned seed) {
  const mjModel* mj = b.mj.get();
  mjData* md = b.md.get();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int j = 0; j < mj->njnt; ++j) {
    double* qp = md->qpos + mj->jnt_qposadr[j];
    if (mj->jnt_type[j] == mjJNT_FREE) {
      for (int k = 0; k < 3; ++k) qp[k] += 0.3 * U(rng);
      const Quat q = Quat(1 + U(rng), U(rng), U(rng), U(rng)).normalized();
      qp[3] = q.w();
      qp[4] = q.x();
      qp[5] = q.y();
      qp[6] = q.z();
      continue;
    }
    double lo = -3, hi = 3;
    if (mj->jnt_limited[j]) {
      lo = std::max(lo, mj->jnt_range[2 * j]);
      hi = std::min(hi, mj->jnt_range[2 * j + 1]);
    }
    qp[0] = lo + (hi - lo) * (0.5 + 0.45 * U(rng));
  }
  for (int k = 0; k < mj->nv; ++k) md->qvel[k] = 2 * U(rng);
  mj_forward(mj, md);
  const Mapped x = map_state(b);
  const Eigen::VectorXd udot = accelerations(b.m, x.s);
  const Eigen::VectorXd expected = x.T * Eigen::Map<const Eigen::VectorXd>(md->qacc, mj->nv);
  EXPECT_LT((udot - expected).cwiseAbs().maxCoeff(), 1e-9 * (1 + expected.norm()))
      << udot.transpose() << "\n"
      << expected.transpose();
  // the actuators and tendon forces did act (a comparison without them would not pass)
  EXPECT_GT(Eigen::Map<const Eigen::VectorXd>(md->qfrc_actuator, mj->nv).norm(), 1.0);
}

TEST(MjcfPublishedMujoco, ArmClassesActuatorsTendon) {
  Both b = load_both(write_model("arm.xml", arm_xml()));
  ASSERT_EQ(b.mj->nu, 6);
  ASSERT_EQ(b.mj->ntendon, 1);
  expect_same_model(b);
  for (unsigned seed : {1u, 2u, 3u, 4u}) expect_same_accelerations(b, seed);
}

TEST(MjcfPublishedMujoco, LeggedFreeBaseServosFrictionloss) {
  Both b = load_both(write_model("legged.xml", legged_xml()));
  ASSERT_EQ(b.mj->nu, 9);
  expect_same_model(b);
  for (unsigned seed : {5u, 6u, 7u}) expect_same_accelerations(b, seed);
}

// The keyframe: appell's initial state is MuJoCo's mj_resetDataKeyframe, and the servos'
// targets its ctrl (the accelerations there agree)
TEST(MjcfPublishedMujoco, KeyframeStateAndControls) {
  for (const std::string& xml : {arm_xml(), legged_xml()}) {
    const std::string path = write_model("key.xml", xml);
    const std::string scene = write_temp(
        "key.json", R"({"include": {"mjcf": ")" + file_name(path) + R"(", "keyframe": "home"}})");
    Both b = load_both(path, scene);
    mj_resetDataKeyframe(b.mj.get(), b.md.get(), mj_name2id(b.mj.get(), mjOBJ_KEY, "home"));
    mj_forward(b.mj.get(), b.md.get());
    const Mapped x = map_state(b);
    const State& s = b.m.initial_state();
    EXPECT_LT((s.q - x.s.q).cwiseAbs().maxCoeff(), 1e-12) << s.q.transpose() << "\n"
                                                          << x.s.q.transpose();
    EXPECT_LT((s.u - x.s.u).cwiseAbs().maxCoeff(), 1e-12);
    const Eigen::VectorXd udot = accelerations(b.m, s);
    const Eigen::VectorXd expected = x.T * Eigen::Map<const Eigen::VectorXd>(b.md->qacc, b.mj->nv);
    EXPECT_LT((udot - expected).cwiseAbs().maxCoeff(), 1e-9 * (1 + expected.norm()))
        << udot.transpose() << "\n"
        << expected.transpose();
  }
}
#endif  // APPELL_HAVE_MUJOCO

}  // namespace
}  // namespace appell
