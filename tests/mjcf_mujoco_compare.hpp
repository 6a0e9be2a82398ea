// MJCF import against MuJoCo: an MJCF text compiled by mj_loadXML and by appell, and the
// checks that the two give equal mass properties, trees, joint frames, mass matrices and
// joint accelerations at a random state (contacts off).  Built only where MuJoCo is
// installed (APPELL_HAVE_MUJOCO).
#pragma once

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <appell/appell.hpp>
#include <appell/jacobians.hpp>
#include <appell/tree.hpp>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>

#include "tests/mjcf_files.hpp"
#include "tests/mujoco_util.hpp"

namespace appell::testing {

inline Both load_both(const std::string& xml, const std::string& name) {
  write_temp("box.obj", obj_box());
  write_temp("L.obj", obj_l());
  return testing::load_both_files(write_temp("mjcf_mujoco_" + name + ".xml", xml), mjDSBL_CONTACT);
}

// MuJoCo's joint j by appell's name of it: its own, else joint<j + 1> (unnamed)
inline std::string appell_joint_name(const mjModel* mj, int j) {
  const char* n = mj_id2name(mj, mjOBJ_JOINT, j);
  return n ? n : "joint" + std::to_string(j + 1);
}
inline int mujoco_joint(const mjModel* mj, const std::string& name) {
  const int j = mj_name2id(mj, mjOBJ_JOINT, name.c_str());
  if (j >= 0 || name.rfind("joint", 0) != 0) return j;
  const int k = std::atoi(name.c_str() + 5) - 1;
  return k >= 0 && k < mj->njnt && !mj_id2name(mj, mjOBJ_JOINT, k) ? k : -1;
}

inline int appell_body(const Model& m, const std::string& name) {
  return m.body_index(name);
}
inline Mat3 m3(const mjtNum* p) {
  Mat3 R;
  R << p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8];
  return R;
}
// the appell body a MuJoCo body's joints end on, skipping the massless frames between the
// joints of one body ("BODY/JOINT")
inline std::string real_parent(const Model& m, int b) {
  const TreeModel& tree = m.tree();
  int p = tree.joints[tree.tree_index[b]].parent_body;
  while (p != kWorld && m.bodies()[p].name.find('/') != std::string::npos)
    p = tree.joints[tree.tree_index[p]].parent_body;
  return p == kWorld ? "world" : m.bodies()[p].name;
}

// Mass properties (world frame, at qpos0), tree and joint frames equal MuJoCo's.
inline void expect_same_model(const Both& b, double tol = 1e-12) {
  const mjModel* mj = b.mj.get();
  mjData* md = b.md.get();
  mj_forward(mj, md);  // at qpos0: xipos, ximat, xaxis, xanchor
  int compared = 0;
  for (int i = 1; i < mj->nbody; ++i) {
    const std::string name = mj_id2name(mj, mjOBJ_BODY, i);
    SCOPED_TRACE("body " + name);
    const int k = appell_body(b.m, name);
    ASSERT_GE(k, 0);
    const Body& a = b.m.bodies()[k];
    const BodyState s = b.m.initial_body_state(k);
    EXPECT_NEAR(a.mass, mj->body_mass[i], tol * mj->body_mass[i]);
    EXPECT_LT((s.x - v3(md->xipos + 3 * i)).norm(), tol);
    const Mat3 R = m3(md->ximat + 9 * i);
    const Mat3 I_mj = R * v3(mj->body_inertia + 3 * i).asDiagonal() * R.transpose();
    const Mat3 I_ap = s.Q * a.inertia * s.Q.transpose();
    EXPECT_LT((I_ap - I_mj).norm(), tol * (1 + I_mj.norm())) << I_ap << "\n\n" << I_mj;
    EXPECT_EQ(real_parent(b.m, k), mj_id2name(mj, mjOBJ_BODY, mj->body_parentid[i]));
    ++compared;
  }
  EXPECT_GE(compared, 2);
  for (int j = 0; j < mj->njnt; ++j) {
    const std::string name = appell_joint_name(mj, j);
    SCOPED_TRACE("joint " + name);
    const auto jt = joint_of(b.m, name);
    ASSERT_TRUE(jt);
    // its child is the MuJoCo body, or a frame "BODY/..." of it
    const std::string child = b.m.bodies()[jt->child()].name;
    const std::string body = mj_id2name(mj, mjOBJ_BODY, mj->jnt_bodyid[j]);
    EXPECT_EQ(child.substr(0, child.find('/')), body);
    EXPECT_NEAR(jt->properties().armature, mj->dof_armature[mj->jnt_dofadr[j]], 1e-15);
    const int type = mj->jnt_type[j];
    if (type == mjJNT_FREE) continue;
    // the joint frame in the world at t = 0 (qpos0), from its parent's pose then
    const BodyState P = b.m.initial_body_state(jt->parent());
    if (type == mjJNT_HINGE || type == mjJNT_BALL) {
      const Vec3 anchor = P.x + P.Q * jt->frames().X_P;
      EXPECT_LT((anchor - v3(md->xanchor + 3 * j)).norm(), tol);
    }
    if (type == mjJNT_HINGE || type == mjJNT_SLIDE) {
      const Vec3 axis = P.Q * jt->frames().E_P.col(2);
      EXPECT_LT((axis - v3(md->xaxis + 3 * j)).norm(), tol);
    }
  }
}

// MuJoCo's qpos, qvel as appell's joint state, and T with u_appell = T qvel (ball and
// free angular velocities: MuJoCo's in the child frame, appell's in the parent joint frame)
struct Mapped {
  State s;
  Eigen::MatrixXd T;  // tree nu × MuJoCo nv
};
inline Mapped map_state(const Both& b) {
  const mjModel* mj = b.mj.get();
  const mjData* md = b.md.get();
  const TreeModel& tree = b.m.tree();
  Mapped out;
  out.s.q = Eigen::VectorXd::Zero(tree.nq);
  out.s.u = Eigen::VectorXd::Zero(tree.nu);
  out.T = Eigen::MatrixXd::Zero(tree.nu, mj->nv);
  int mapped = 0;
  for (const TreeJoint& t : tree.joints) {
    if (t.nu == 0) continue;
    const std::string name = b.m.constraints()[t.constraint]->name();
    const int j = mujoco_joint(mj, name);
    if (j < 0) throw std::runtime_error("no MuJoCo joint " + name);
    const int qa = mj->jnt_qposadr[j], va = mj->jnt_dofadr[j];
    const double* qp = md->qpos + qa;
    Mat3 R = Mat3::Identity();
    int ang = 0, n = 1;  // where the angular velocity starts in the joint's dofs, how many
    if (mj->jnt_type[j] == mjJNT_BALL || mj->jnt_type[j] == mjJNT_FREE) {
      const int qo = mj->jnt_type[j] == mjJNT_FREE ? 3 : 0;
      R = Quat(qp[qo], qp[qo + 1], qp[qo + 2], qp[qo + 3]).normalized().toRotationMatrix();
      ang = qo;
      n = qo + 3;
    }
    for (int k = 0; k < (mj->jnt_type[j] == mjJNT_FREE   ? 7
                         : mj->jnt_type[j] == mjJNT_BALL ? 4
                                                         : 1);
         ++k)
      out.s.q(t.q_offset + k) = qp[k];
    for (int k = 0; k < n; ++k)
      for (int l = 0; l < n; ++l)
        out.T(t.u_offset + k, va + l) =
            (k >= ang && l >= ang) ? R(k - ang, l - ang) : (k == l ? 1.0 : 0.0);
    mapped += n;
  }
  if (mapped != mj->nv) throw std::runtime_error("the joints do not map one to one");
  out.s.u = out.T * Eigen::Map<const Eigen::VectorXd>(md->qvel, mj->nv);
  return out;
}

// At a random state: M (armature included) and u̇ equal MuJoCo's mj_fullM and qacc.
inline void expect_same_dynamics(Both& b, unsigned seed, double tol = 1e-9) {
  const mjModel* mj = b.mj.get();
  mjData* md = b.md.get();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int j = 0; j < mj->njnt; ++j) {
    double* qp = md->qpos + mj->jnt_qposadr[j];
    const int type = mj->jnt_type[j];
    if (type == mjJNT_HINGE || type == mjJNT_SLIDE) qp[0] = U(rng);
    if (type == mjJNT_BALL || type == mjJNT_FREE) {
      const int qo = type == mjJNT_FREE ? 3 : 0;
      for (int k = 0; k < qo; ++k) qp[k] += 0.3 * U(rng);
      const Quat q = Quat(1 + U(rng), U(rng), U(rng), U(rng)).normalized();
      qp[qo] = q.w();
      qp[qo + 1] = q.x();
      qp[qo + 2] = q.y();
      qp[qo + 3] = q.z();
    }
  }
  for (int k = 0; k < mj->nv; ++k) md->qvel[k] = 2 * U(rng);
  mj_forward(mj, md);
  const Mapped x = map_state(b);

  Eigen::MatrixXd Mmj(mj->nv, mj->nv);
  mj_fullM(mj, Mmj.data(), md->qM);  // symmetric: row or column major alike
  Data d(b.m);
  Eigen::MatrixXd M;
  mass_matrix(b.m, d, x.s, M);
  const Eigen::MatrixXd M_expected = x.T * Mmj * x.T.transpose();
  EXPECT_LT((M - M_expected).norm(), tol * (1 + Mmj.norm())) << M << "\n\n" << M_expected;

  JointForward forward(b.m);
  Eigen::VectorXd udot;
  ASSERT_EQ(forward(x.s, Eigen::VectorXd(), udot), SolveStatus::Ok)
      << forward.data().diagnostics.message;
  const Eigen::VectorXd expected = x.T * Eigen::Map<const Eigen::VectorXd>(md->qacc, mj->nv);
  EXPECT_LT((udot - expected).cwiseAbs().maxCoeff(), tol * (1 + expected.norm()))
      << udot.transpose() << "\n"
      << expected.transpose();
}

}  // namespace appell::testing
