// Two models in the style of published MuJoCo ones (an arm and a legged robot, written
// here), the stand-in mesh they name, and the joint accelerations of a model, for the tests
// of mjcf_published_test.cpp and mjcf_published_mujoco_test.cpp.
#pragma once

#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/jacobians.hpp>
#include <string>

#include "tests/cli_util.hpp"
#include "tests/mjcf_files.hpp"

namespace appell::testing {

// a closed box OBJ [−0.05, 0.05]³ (a stand-in mesh: the bodies carry <inertial>)
inline std::string obj_cube() {
  return obj_box(Vec3::Constant(-0.05), Vec3::Constant(0.05));
}
inline std::string write_model(const std::string& name, const std::string& xml) {
  write_temp("cube.obj", obj_cube());
  return write_temp(name, xml);
}
inline std::string file_name(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}
// u̇ of a model at its initial state
inline Eigen::VectorXd accelerations(const Model& m, State s) {
  JointForward f(m);
  Eigen::VectorXd udot;
  EXPECT_EQ(f(s, Eigen::VectorXd(), udot), SolveStatus::Ok) << f.data().diagnostics.message;
  return udot;
}

// An arm in the style of a published one: classes holding joint, actuator, site and mesh
// defaults; <general> actuators with an affine bias, a control range excluding 0 (MuJoCo
// clamps the zero control into it) and binding force ranges; <position> from a class,
// <motor> and <velocity> with a gear; two fingers on a fixed tendon driven by an actuator,
// with a spring and a damper; frictionloss; a joint spring; what appell names and leaves
// out (light, camera, sensor, keyframe, an exclusion of non-adjacent bodies)
inline std::string arm_xml() {
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
inline std::string legged_xml() {
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

}  // namespace appell::testing
