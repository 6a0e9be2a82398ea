// Published-style MJCF models (mjcf_published_models.hpp) compiled by MuJoCo and by appell:
// masses, inertias, frames, joint axes to 1e-12 and joint accelerations at random states
// (contacts, frictionloss off) to 1e-9.  Built only where MuJoCo is installed
// (CMakeLists.txt: APPELL_HAVE_MUJOCO).
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/tree.hpp>
#include <cmath>
#include <memory>
#include <random>
#include <string>

#if defined(APPELL_HAVE_MUJOCO)
#include <mujoco/mujoco.h>

#include "tests/cli_util.hpp"
#include "tests/mjcf_files.hpp"
#include "tests/mjcf_published_models.hpp"
#include "tests/mujoco_util.hpp"
#endif

namespace appell {
namespace {

#if defined(APPELL_HAVE_MUJOCO)
using testing::accelerations;
using testing::arm_xml;
using testing::Both;
using testing::file_name;
using testing::joint_of;
using testing::legged_xml;
using testing::v3;
using testing::write_model;
using testing::write_temp;

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
