// MJCF joint frames, references, names and switches against MuJoCo: ball joints in turned
// bodies, joint refs as qpos0 (free, keyframe, equality), unnamed joints, and the flags that
// switch off passive forces, actuation and equalities.  Built only where MuJoCo is
// installed (CMakeLists.txt: APPELL_HAVE_MUJOCO).
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/tree.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "tests/cli_util.hpp"

#if defined(APPELL_HAVE_MUJOCO)
#include <mujoco/mujoco.h>

#include "tests/mjcf_mujoco_compare.hpp"
#include "tests/mujoco_util.hpp"
#endif

namespace appell {
namespace {

#if defined(APPELL_HAVE_MUJOCO)
using testing::appell_joint_name;
using testing::Both;
using testing::expect_same_dynamics;
using testing::expect_same_model;
using testing::joint_of;
using testing::load_both;
using testing::map_state;
using testing::Mapped;
using testing::v3;
using testing::write_temp;

// Ball joints in bodies turned at the reference pose (Cassie's): MuJoCo's ball quaternion
// turns the body in its own frame, so qpos, the keyframe and the accelerations agree only
// when appell's joint frame is the body's, not the world's
const char* kTurnedBalls = R"(<mujoco model="turned_balls">
  <option gravity="0.5 -0.3 -9.81"/>
  <worldbody>
    <body name="base" pos="0 0 1" euler="30 -20 50">
      <joint name="hinge" axis="1 0 0"/>
      <geom type="box" size="0.1 0.2 0.05"/>
      <body name="arm" pos="0.1 0.2 -0.3" quat="0.7 0.2 -0.5 0.3">
        <joint name="shoulder" type="ball" pos="0 0 0.1" armature="0.01"/>
        <geom type="capsule" fromto="0 0 0 0.3 0.1 -0.4" size="0.04"/>
        <body name="hand" pos="0.3 0.1 -0.4" euler="0 90 0">
          <joint name="wrist" type="ball"/>
          <geom type="box" size="0.05 0.1 0.02" pos="0.05 0 0"/>
        </body>
      </body>
    </body>
  </worldbody>
  <keyframe>
    <key name="pose" qpos="0.3  0.9 0.1 -0.3 0.2  0.8 -0.4 0.3 0.1" qvel="0.5  1 -2 0.5  -1 0.3 2"/>
  </keyframe>
</mujoco>
)";

TEST(MjcfMujoco, BallJointsInTurnedBodiesTurnInTheBodyFrame) {
  Both b = load_both(kTurnedBalls, "turned_balls");
  expect_same_model(b);
  for (unsigned seed : {11u, 12u, 13u}) expect_same_dynamics(b, seed);
  // the keyframe: appell's initial state is MuJoCo's mj_resetDataKeyframe
  const std::string xml = write_temp("mjcf_mujoco_turned_balls.xml", kTurnedBalls);
  const std::string scene = write_temp(
      "turned_balls_key.json", R"({"include": {"mjcf": ")" + xml + R"(", "keyframe": "pose"}})");
  Both k = testing::load_both_files(xml, mjDSBL_CONTACT, scene);
  mj_resetDataKeyframe(k.mj.get(), k.md.get(), mj_name2id(k.mj.get(), mjOBJ_KEY, "pose"));
  mj_forward(k.mj.get(), k.md.get());
  const Mapped x = map_state(k);
  const State& s = k.m.initial_state();
  EXPECT_LT((s.q - x.s.q).cwiseAbs().maxCoeff(), 1e-12) << s.q.transpose() << "\n"
                                                        << x.s.q.transpose();
  EXPECT_LT((s.u - x.s.u).cwiseAbs().maxCoeff(), 1e-12);
  // the bodies where MuJoCo puts them at the keyframe
  for (const char* name : {"arm", "hand"}) {
    const int i = mj_name2id(k.mj.get(), mjOBJ_BODY, name);
    EXPECT_LT((k.m.initial_body_state(k.m.body_index(name)).x - v3(k.md->xipos + 3 * i)).norm(),
              1e-12)
        << name;
  }
  JointForward f(k.m);
  Eigen::VectorXd udot;
  ASSERT_EQ(f(s, Eigen::VectorXd(), udot), SolveStatus::Ok);
  const Eigen::VectorXd expected = x.T * Eigen::Map<const Eigen::VectorXd>(k.md->qacc, k.mj->nv);
  EXPECT_LT((udot - expected).cwiseAbs().maxCoeff(), 1e-9 * (1 + expected.norm()))
      << udot.transpose() << "\n"
      << expected.transpose();
}

// A joint's ref is MuJoCo's qpos0: the body as written sits at q = ref, appell's q is
// MuJoCo's qpos, and the range, springref, keyframe, a joint equality's polynomial (of
// qpos − qpos0) and a fixed tendon's rest length (its length at qpos0) are in those
// coordinates.  Unnamed joints are joint<id + 1> (welded bodies not counted); a site may
// share a body's name; a fromto box takes one size.  (A fixed tendon's springlength is
// given: MuJoCo 2's default is 0, MuJoCo 3's and appell's the length at qpos0.)
const char* kRefs = R"(<mujoco model="refs">
  <compiler autolimits="true"/>
  <option gravity="0.2 0 -9.81"/>
  <worldbody>
    <body name="welded" pos="0 0.5 0"><geom type="sphere" size="0.1"/></body>
    <body name="a" pos="0 0 1" euler="10 20 30">
      <joint type="hinge" axis="0 1 0" ref="30" range="-20 80" stiffness="3" springref="10"/>
      <geom type="box" fromto="0 0 0 0.4 0 -0.2" size="0.05"/>
      <site name="b"/>
      <body name="b" pos="0.4 0 -0.2">
        <joint name="slider" type="slide" axis="1 0.5 0" ref="0.2" range="0 0.5" stiffness="5"/>
        <joint type="hinge" axis="0 0 1" pos="0.1 0 0" ref="-45"/>
        <geom type="capsule" fromto="0 0 0 0 0.2 -0.3" size="0.04"/>
        <body name="c" pos="0 0.2 -0.3">
          <joint name="follower" axis="1 0 0" ref="15"/>
          <geom type="sphere" size="0.06" pos="0.1 0 0"/>
        </body>
      </body>
    </body>
    <body name="d" pos="1 0 1"><joint name="lead" axis="0 1 0" ref="20"/>
      <geom type="sphere" size="0.05" pos="0.2 0 0"/></body>
  </worldbody>
  <tendon><fixed name="t" stiffness="4" springlength="0.3"><joint joint="slider" coef="2"/>
    <joint joint="follower" coef="0.5"/></fixed></tendon>
  <equality><joint joint1="follower" joint2="lead" polycoef="0 0.5 0 0 0"/></equality>
  <keyframe><key name="k" qpos="0.7 0.3 -0.5 0.45 0.1"/></keyframe>
</mujoco>
)";

TEST(MjcfMujoco, JointRefIsQpos0) {
  const std::string xml = write_temp("mjcf_mujoco_refs.xml", kRefs);
  // equalities off in MuJoCo, and not read by appell: the smooth dynamics compared
  const std::string free_scene =
      write_temp("refs_free.json", R"({"include": {"mjcf": ")" + xml + R"("},
        "disable": ["equality"]})");
  Both b =
      testing::load_both_files(xml, mjDSBL_CONTACT | mjDSBL_EQUALITY | mjDSBL_LIMIT, free_scene);
  expect_same_model(b);
  const mjModel* mj = b.mj.get();
  for (int j = 0; j < mj->njnt; ++j) {
    // names: MuJoCo's, else joint<id + 1>
    const std::string name = appell_joint_name(mj, j);
    SCOPED_TRACE(name);
    const auto jt = joint_of(b.m, name);
    ASSERT_TRUE(jt);
    // the start (qpos0) and the limits, in MuJoCo's coordinates
    const TreeJoint& t = b.m.tree().joints[b.m.tree().tree_index[jt->child()]];
    EXPECT_NEAR(b.m.initial_state().q(t.q_offset), mj->qpos0[mj->jnt_qposadr[j]], 1e-15);
    EXPECT_EQ(jt->properties().limited, mj->jnt_limited[j] != 0);
    if (mj->jnt_limited[j]) {
      EXPECT_NEAR(jt->properties().lower, mj->jnt_range[2 * j], 1e-15);
      EXPECT_NEAR(jt->properties().upper, mj->jnt_range[2 * j + 1], 1e-15);
    }
  }
  ASSERT_EQ(mj->njnt, 5);
  EXPECT_EQ(mj_id2name(mj, mjOBJ_JOINT, 0), nullptr);  // unnamed: appell's joint1 above
  for (unsigned seed : {21u, 22u, 23u}) expect_same_dynamics(b, seed);
  // the springs act at these states (a comparison without them would not pass)
  EXPECT_GT(Eigen::Map<const Eigen::VectorXd>(b.md->qfrc_passive, mj->nv).norm(), 0.5);

  // the keyframe: MuJoCo's qpos is appell's q
  const std::string key_scene =
      write_temp("refs_key.json", R"({"include": {"mjcf": ")" + xml + R"(", "keyframe": "k"},
        "disable": ["equality"]})");
  Both k =
      testing::load_both_files(xml, mjDSBL_CONTACT | mjDSBL_EQUALITY | mjDSBL_LIMIT, key_scene);
  mj_resetDataKeyframe(k.mj.get(), k.md.get(), 0);
  mj_forward(k.mj.get(), k.md.get());
  const Mapped x = map_state(k);
  EXPECT_LT((k.m.initial_state().q - x.s.q).cwiseAbs().maxCoeff(), 1e-12);
  JointForward f(k.m);
  Eigen::VectorXd udot;
  ASSERT_EQ(f(k.m.initial_state(), Eigen::VectorXd(), udot), SolveStatus::Ok);
  const Eigen::VectorXd expected = x.T * Eigen::Map<const Eigen::VectorXd>(k.md->qacc, k.mj->nv);
  EXPECT_LT((udot - expected).cwiseAbs().maxCoeff(), 1e-9 * (1 + expected.norm()));

  // the joint equality: where MuJoCo's residual of it is zero (the follower's qpos found by
  // MuJoCo, the residual being linear in it with slope 1), appell's mimic row holds
  std::string shifted = kRefs;
  shifted.replace(shifted.find("polycoef=\"0 0.5"), 15, "polycoef=\"0.1 0.5");
  const std::string xml_c0 = write_temp("mjcf_mujoco_refs_c0.xml", shifted);
  Both e = testing::load_both_files(xml_c0, mjDSBL_CONTACT);
  const int follow = mj_name2id(e.mj.get(), mjOBJ_JOINT, "follower");
  const int lead = mj_name2id(e.mj.get(), mjOBJ_JOINT, "lead");
  for (double q2 : {-0.4, 0.1, 0.9}) {
    mj_resetData(e.mj.get(), e.md.get());
    e.md->qpos[e.mj->jnt_qposadr[lead]] = q2;
    mj_forward(e.mj.get(), e.md.get());
    double q1 = NAN;
    for (int r = 0; r < e.md->nefc; ++r)
      if (e.md->efc_type[r] == mjCNSTR_EQUALITY)
        q1 = e.md->qpos[e.mj->jnt_qposadr[follow]] - e.md->efc_pos[r];
    ASSERT_TRUE(std::isfinite(q1));
    // the scene loads only where its joints satisfy the mimic (to 1e-6): at MuJoCo's q1,
    // and not 1e-4 away from it
    for (const double dq : {0.0, 1e-4}) {
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", q1 + dq);
      const std::string path =
          write_temp("refs_eq.json", R"({"include": {"mjcf": ")" + xml_c0 + R"(", "q": {"lead": )" +
                                         std::to_string(q2) + R"(, "follower": )" + text + "}}}");
      const std::string error = testing::load_error(path);
      if (dq == 0)
        EXPECT_EQ(error, "") << q2;
      else
        EXPECT_NE(error.find("'follower_mimic' is violated"), std::string::npos) << error;
    }
  }
}

// MuJoCo's <option><flag>: passive forces, actuators and equalities switched off in the
// MJCF, or by the scene's "disable" over an MJCF that leaves them on; either way the
// accelerations are MuJoCo's with the same flags
const char* kSwitches = R"(<mujoco model="switches">
  <option gravity="0 0 -9.81">%FLAG%</option>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="j1" axis="0 1 0" stiffness="20" damping="2"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.04"/>
      <body name="b" pos="0.4 0 0">
        <joint name="j2" axis="0 1 0" damping="1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body name="c" pos="0.3 0 0"><joint name="j3" axis="0 1 0"/>
          <geom type="sphere" size="0.05"/></body>
      </body>
    </body>
  </worldbody>
  <actuator><position joint="j2" kp="30"/><motor joint="j1" gear="2"/></actuator>
  <tendon><fixed name="t" damping="3"><joint joint="j1" coef="1"/><joint joint="j2" coef="-1"/></fixed></tendon>
  <equality><joint joint1="j3" joint2="j2" polycoef="0 1 0 0 0"/></equality>
</mujoco>
)";

TEST(MjcfMujoco, FlagsSwitchOffPassiveActuationEquality) {
  const std::string base = kSwitches;
  const auto with_flag = [&](const std::string& flag) {
    std::string x = base;
    x.replace(x.find("%FLAG%"), 6, flag);
    return x;
  };
  const int off = mjDSBL_PASSIVE | mjDSBL_ACTUATION | mjDSBL_EQUALITY;
  // in the MJCF
  Both in_file = load_both(
      with_flag(R"(<flag passive="disable" actuation="disable" equality="disable"/>)"), "flags");
  EXPECT_EQ(in_file.mj->opt.disableflags & off, off);
  EXPECT_TRUE(in_file.m.forces().empty());
  for (unsigned seed : {31u, 32u}) expect_same_dynamics(in_file, seed);
  // by the scene, over a file that leaves them on
  const std::string xml = write_temp("mjcf_mujoco_switches.xml", with_flag(""));
  const std::string scene = write_temp("switches.json", R"({"include": {"mjcf": ")" + xml + R"("},
        "disable": ["passive", "actuation", "equality"]})");
  Both by_scene = testing::load_both_files(xml, mjDSBL_CONTACT | off, scene);
  for (unsigned seed : {33u, 34u}) expect_same_dynamics(by_scene, seed);
  // each switch alone, against MuJoCo's (equality stays off: MuJoCo's is soft)
  for (const char* one : {"passive", "actuation"}) {
    SCOPED_TRACE(one);
    const std::string s1 = write_temp("switch_one.json", R"({"include": {"mjcf": ")" + xml + R"("},
          "disable": ["equality", ")" + std::string(one) + R"("]})");
    const int flag = std::string(one) == "passive" ? mjDSBL_PASSIVE : mjDSBL_ACTUATION;
    Both b1 = testing::load_both_files(xml, mjDSBL_CONTACT | mjDSBL_EQUALITY | flag, s1);
    expect_same_dynamics(b1, 35u);
    // and the other one is on: it changes the accelerations
    const std::string s0 = write_temp(
        "switch_none.json", R"({"include": {"mjcf": ")" + xml + R"("}, "disable": ["equality"]})");
    Both b0 = testing::load_both_files(xml, mjDSBL_CONTACT | mjDSBL_EQUALITY, s0);
    mj_forward(b0.mj.get(), b0.md.get());
    JointForward f0(b0.m), f1(b1.m);
    Eigen::VectorXd a0, a1;
    State st = map_state(b0).s;
    st.u.setConstant(0.5);
    st.q.setConstant(0.3);
    ASSERT_EQ(f0(st, Eigen::VectorXd(), a0), SolveStatus::Ok);
    ASSERT_EQ(f1(st, Eigen::VectorXd(), a1), SolveStatus::Ok);
    EXPECT_GT((a0 - a1).norm(), 1e-2);
  }
}

#endif  // APPELL_HAVE_MUJOCO

}  // namespace
}  // namespace appell
