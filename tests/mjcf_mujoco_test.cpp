// MJCF import against MuJoCo itself: the same files compiled by mj_loadXML and by appell
// give equal masses, centres, inertias, trees, joint axes and anchors, joint-space mass
// matrices (armature included) and joint accelerations at a random state (contacts off).
// Built only where MuJoCo is installed (CMakeLists.txt: APPELL_HAVE_MUJOCO);
// mjcf_closed_forms_test.cpp checks the same features against closed forms, everywhere.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <regex>
#include <string>

#if defined(APPELL_HAVE_MUJOCO)
#include <mujoco/mujoco.h>

#include "tests/mjcf_mujoco_compare.hpp"
#include "tests/mujoco_util.hpp"
#endif

namespace appell {
namespace {

#if defined(APPELL_HAVE_MUJOCO)
using testing::Both;
using testing::expect_same_dynamics;
using testing::expect_same_model;
using testing::load_both;
using testing::map_state;
using testing::Mapped;
using testing::pid_prefix;

// A planar "free" body (slide x, slide z, hinge y: three joints in one body), default
// classes with inheritance (density, damping, armature), inertia from geoms (capsule, box,
// cylinder, sphere, fromto), a body with two joints at different positions, a spring.
const char* kPlanar = R"(<mujoco model="planar">
  <compiler angle="radian"/>
  <option gravity="0 0 -9.81"/>
  <default>
    <joint damping="0.1" armature="0.05"/>
    <geom density="500"/>
    <default class="heavy">
      <geom density="2000"/>
      <joint armature="0.2" damping="0"/>
    </default>
  </default>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body name="torso" pos="0 0 1">
      <joint name="rootx" type="slide" axis="1 0 0"/>
      <joint name="rootz" type="slide" axis="0 0 1"/>
      <joint name="rooty" type="hinge" axis="0 1 0" pos="0.1 0 0.05"/>
      <geom type="capsule" fromto="-0.3 0 0 0.3 0 0" size="0.05"/>
      <geom type="box" pos="0 0 0.1" size="0.1 0.05 0.04" class="heavy"/>
      <body name="thigh" pos="0.3 0 0">
        <joint name="hip" class="heavy" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.04"/>
        <body name="shin" pos="0 0 -0.4" euler="0.1 0.2 0.3">
          <joint name="knee" axis="0 1 0" pos="0 0 0.02" stiffness="3" springref="0.2"/>
          <joint name="ankle_twist" axis="1 0.2 0" pos="0.01 0 -0.1"/>
          <geom type="cylinder" fromto="0 0 0 0 0.1 -0.3" size="0.03"/>
          <geom type="sphere" pos="0 0 -0.3" size="0.05"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
)";

// A small humanoid-like tree: a free root, ball joints, a shoulder of three hinges, a
// turned <inertial>, armature on hinges and balls by a childclass.
const char* kTree = R"(<mujoco model="tree">
  <compiler autolimits="true"/>
  <option gravity="0.3 -0.2 -9.81"/>
  <default>
    <default class="limb">
      <joint armature="0.01" damping="0.2"/>
      <geom density="800"/>
    </default>
  </default>
  <worldbody>
    <body name="pelvis" pos="0.1 0.2 1.2" quat="0.9 0.1 0.2 0.3">
      <freejoint name="root"/>
      <geom type="box" size="0.15 0.1 0.08"/>
      <body name="chest" pos="0 0 0.3" childclass="limb">
        <joint name="waist" type="ball" pos="0 0 -0.1"/>
        <geom type="capsule" fromto="0 -0.1 0 0 0.1 0" size="0.08"/>
        <body name="head" pos="0 0 0.25">
          <joint name="neck" type="ball" armature="0.002"/>
          <geom type="sphere" size="0.09"/>
        </body>
        <body name="uarm" pos="0 0.2 0" euler="10 20 30">
          <joint name="sh_x" axis="1 0 0"/>
          <joint name="sh_y" axis="0 1 0" pos="0 0.01 0"/>
          <joint name="sh_z" axis="0 0 1"/>
          <geom type="capsule" fromto="0 0 0 0 0.25 -0.1" size="0.04"/>
          <body name="larm" pos="0 0.25 -0.1">
            <joint name="elbow" axis="0 0 1" range="-90 90"/>
            <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.035"/>
          </body>
        </body>
      </body>
      <body name="leg" pos="0 -0.1 -0.1" childclass="limb">
        <joint name="hip_x" axis="1 0 0" armature="0.3"/>
        <joint name="hip_y" axis="0 1 0" pos="0 0 0.02"/>
        <inertial pos="0 0 -0.2" quat="0.8 0.3 -0.2 0.1" mass="3" diaginertia="0.05 0.04 0.03"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.05"/>
      </body>
    </body>
  </worldbody>
</mujoco>
)";

TEST(MjcfMujoco, PlanarMultiJointBodyDefaultsArmatureGeomInertia) {
  Both b = load_both(kPlanar, "planar");
  expect_same_model(b);
  EXPECT_FALSE(b.m.joint_space_only().empty());  // massless frames and armature
  for (unsigned seed : {1u, 2u, 3u}) expect_same_dynamics(b, seed);
}

TEST(MjcfMujoco, HumanoidLikeTreeFreeBallHinges) {
  Both b = load_both(kTree, "tree");
  expect_same_model(b);
  for (unsigned seed : {4u, 5u, 6u}) expect_same_dynamics(b, seed);
}

// Armature alone changes the accelerations: the same tree without it differs from MuJoCo's
// with it (the comparison above would not pass by ignoring armature)
TEST(MjcfMujoco, ArmatureMatters) {
  const std::string xml = std::regex_replace(std::string(kPlanar),
                                             std::regex("armature=\"[0-9.]*\""), "armature=\"0\"");
  ASSERT_EQ(xml.find("armature=\"0.2\""), std::string::npos);
  Both with = load_both(kPlanar, "with");
  Both without = load_both(xml, "without");
  EXPECT_TRUE(with.m.joint_space_only().find("massless") != std::string::npos);
  mj_forward(with.mj.get(), with.md.get());
  const Mapped x = map_state(with);
  JointForward f1(with.m), f2(without.m);
  Eigen::VectorXd a1, a2;
  ASSERT_EQ(f1(x.s, Eigen::VectorXd(), a1), SolveStatus::Ok);
  ASSERT_EQ(f2(x.s, Eigen::VectorXd(), a2), SolveStatus::Ok);
  EXPECT_GT((a1 - a2).norm(), 1e-3);
}

// Mesh geoms (a convex box and the L prism, not convex) with exactmeshinertia, and a
// fullinertia: MuJoCo keeps mesh vertices in single precision and finds a full tensor's
// principal axes iteratively (1e-7), hence 1e-6, MuJoCo's printing precision
TEST(MjcfMujoco, MeshInertia) {
  const std::string xml = R"(<mujoco model="meshes">
    <compiler meshdir="." exactmeshinertia="true"/>
    <asset><mesh file=")" +
                          pid_prefix() + R"(box.obj" name="box" scale="1 2 1"/>
           <mesh file=")" +
                          pid_prefix() + R"(L.obj" name="L"/></asset>
    <worldbody>
      <body name="a" pos="0 0 1"><joint name="ja" axis="0 1 0"/>
        <geom type="mesh" mesh="box" density="700" pos="0 0.1 0.5" euler="10 0 90"/>
        <geom type="sphere" size="0.05" pos="0.2 0 0"/>
        <body name="b" pos="0.3 0 0" quat="1 0.2 0 0.1"><joint name="jb" axis="1 0 0"/>
          <geom type="mesh" mesh="L" density="500" quat="0.9 0.1 0.3 0"/></body>
        <body name="c" pos="0 0 -0.3"><joint name="jc" type="ball"/>
          <inertial pos="0 0 -0.2" mass="3" fullinertia="0.05 0.04 0.03 0.001 -0.002 0.003"/>
        </body>
      </body>
    </worldbody></mujoco>)";
  Both b = load_both(xml, "meshes");
  expect_same_model(b, 1e-6);
  expect_same_dynamics(b, 7, 1e-6);
}

// <connect>: MuJoCo's equality rows are soft (solimp at its maximum 0.9999 leaves a
// regularisation of 1e-4 of the constraint's inertia), appell's hard: at rest (qvel = 0,
// where MuJoCo's reference acceleration is zero) the accelerations agree to about 1e-4
TEST(MjcfMujoco, ConnectEquality) {
  const std::string xml = R"(<mujoco model="fourbar"><worldbody>
    <body name="a"><joint name="ja" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03"/>
      <body name="b" pos="0.5 0 0"><joint name="jb" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.03"/></body></body>
    <body name="c" pos="1 0 0"><joint name="jc" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 -0.5 0 -0.5" size="0.03"/></body>
    </worldbody>
    <equality><connect body1="b" body2="c" anchor="0 0 -0.5" solimp="0.9999 0.9999 0.001"/>
    </equality></mujoco>)";
  Both b = load_both(xml, "fourbar");
  expect_same_model(b);
  mj_forward(b.mj.get(), b.md.get());
  const Mapped x = map_state(b);
  JointForward f(b.m);
  Eigen::VectorXd udot;
  ASSERT_EQ(f(x.s, Eigen::VectorXd(), udot), SolveStatus::Ok) << f.data().diagnostics.message;
  const Eigen::VectorXd expected = x.T * Eigen::Map<const Eigen::VectorXd>(b.md->qacc, b.mj->nv);
  EXPECT_GT(expected.norm(), 1.0);
  EXPECT_LT((udot - expected).norm(), 1e-3 * expected.norm()) << udot.transpose() << "\n"
                                                              << expected.transpose();
}

#endif  // APPELL_HAVE_MUJOCO

}  // namespace
}  // namespace appell
