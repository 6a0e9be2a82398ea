// appell/jacobians.hpp: body Jacobians against the body velocities of the forward
// kinematics, the joint-space mass matrix against the kinetic energy and against inverse
// dynamics (a second formulation), forward dynamics with joint forces against inverse
// dynamics.  What the Python module's mass_matrix(), jacobian(), forward_dynamics() use.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/tree.hpp>
#include <random>
#include <string>

#include "appell/jacobians.hpp"

namespace appell {
namespace {

Model example(const std::string& name) {
  return load_model(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/" + name);
}

// a state away from the scene's: every coordinate moved, quaternions renormalized
State shaken(const Model& m, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> U(-0.7, 0.7);
  State s = m.initial_state();
  for (int i = 0; i < s.q.size(); ++i) s.q(i) += U(gen);
  for (int i = 0; i < s.u.size(); ++i) s.u(i) = 2 * U(gen);
  for (const TreeJoint& j : m.tree().joints)
    if (j.type->quaternion() >= 0) s.q.segment(j.q_offset + j.type->quaternion(), 4).normalize();
  s.t = 0.3;
  return s;
}

const char* kModels[] = {"robots/seven_dof_arm.urdf", "robots/quadruped.urdf", "four_bar.json",
                         "heavy_top.json", "double_pendulum.json"};

TEST(PythonSupport, JacobianTimesUIsTheBodyVelocityOfTheForwardKinematics) {
  for (const char* name : kModels) {
    SCOPED_TRACE(name);
    const Model m = example(name);
    Data d(m);
    const State s = shaken(m, 1);
    Eigen::MatrixXd J;
    for (int b = 0; b < m.nbody(); ++b) {
      set_state(m, d, s);
      const BodyState B = d.body[b];
      const Vec3 p = B.x + B.Q * Vec3(0.1, -0.2, 0.3);  // a material point off the centre
      body_jacobian(m, d, s, b, p, J);
      ASSERT_EQ(J.rows(), 6);
      ASSERT_EQ(J.cols(), m.tree().nu);
      const Eigen::VectorXd V = J * s.u;
      const Vec3 w = m.bodies()[b].rigid() ? B.w : Vec3::Zero();
      const Vec3 vp = B.v + w.cross(p - B.x);
      const double scale = 1 + s.u.norm();
      EXPECT_LT((V.head<3>() - vp).norm(), 1e-12 * scale) << m.bodies()[b].name;
      EXPECT_LT((V.tail<3>() - w).norm(), 1e-12 * scale) << m.bodies()[b].name;
    }
  }
}

TEST(PythonSupport, MassMatrixGivesTheKineticEnergyAndMatchesInverseDynamics) {
  for (const char* name : kModels) {
    SCOPED_TRACE(name);
    const Model m = example(name);
    Data d(m);
    const State s = shaken(m, 2);
    Eigen::MatrixXd M;
    mass_matrix(m, d, s, M);
    const int nu = m.tree().nu;
    ASSERT_EQ(M.rows(), nu);
    EXPECT_EQ((M - M.transpose()).norm(), 0.0);
    // ½ uᵀ M u = T, the energy of the body velocities
    set_state(m, d, s);
    const double T = kinetic_energy(m, d);
    EXPECT_NEAR(0.5 * s.u.dot(M * s.u), T, 1e-12 * (1 + T));
    // M e_k = ID(q, 0, e_k) − ID(q, 0, 0): RNEA, with velocities zero
    State rest = s;
    rest.u.setZero();
    Eigen::VectorXd tau0, tauk;
    inverse_dynamics(m, d, rest, Eigen::VectorXd::Zero(nu), tau0);
    for (int k = 0; k < nu; ++k) {
      inverse_dynamics(m, d, rest, Eigen::VectorXd::Unit(nu, k), tauk);
      EXPECT_LT((tauk - tau0 - M.col(k)).norm(), 1e-9 * (1 + M.norm() + tau0.norm())) << k;
    }
  }
}

TEST(PythonSupport, ForwardDynamicsWithJointForcesInvertsInverseDynamics) {
  for (const char* name : {"robots/seven_dof_arm.urdf", "robots/quadruped.urdf"}) {
    SCOPED_TRACE(name);
    const Model m = example(name);  // trees: no extra rows
    ASSERT_EQ(m.tree().nrows_extra, 0);
    JointForward fd(m);
    Data d(m);
    const State s = shaken(m, 3);
    const int nu = m.tree().nu;
    Eigen::VectorXd tau = Eigen::VectorXd::LinSpaced(nu, -2.0, 3.0), udot, back;
    ASSERT_EQ(fd(s, tau, udot), SolveStatus::Ok);
    inverse_dynamics(m, d, s, udot, back);  // τ = M u̇ + C u − Q_applied
    EXPECT_LT((back - tau).norm(), 1e-9 * (1 + tau.norm() + udot.norm()));
    ASSERT_EQ(fd(s, Eigen::VectorXd(), udot), SolveStatus::Ok);
    inverse_dynamics(m, d, s, udot, back);
    EXPECT_LT(back.norm(), 1e-9 * (1 + udot.norm()));
  }
}

TEST(PythonSupport, ForwardDynamicsWithJointForcesKeepsTheLoopClosed) {
  const Model m = example("four_bar.json");  // a loop: extra rows A_T u̇ = b
  ASSERT_GT(m.tree().nrows_extra, 0);
  JointForward fd(m);
  Data d(m);
  State s = m.initial_state();  // the loop is closed; its velocities are made consistent
  const int nu = m.tree().nu;
  const Eigen::MatrixXd A0 = inverse_dynamics_constrained(m, d, s, Eigen::VectorXd::Zero(nu)).A;
  s.u -= A0.completeOrthogonalDecomposition().pseudoInverse() * (A0 * s.u);
  const Eigen::VectorXd tau = Eigen::VectorXd::LinSpaced(nu, 1.0, -2.0);
  Eigen::VectorXd udot;
  // without τ: the loop's velocity rows A(q) u stay 0 along the motion to second order (a
  // step h of the revolute joints' q̇ = u), which checks u̇ without any b
  ASSERT_EQ(fd(s, Eigen::VectorXd(), udot), SolveStatus::Ok);
  const double h = 1e-5;
  State sh = s;
  sh.q += h * s.u;
  sh.u += h * udot;
  const Eigen::MatrixXd Ah = inverse_dynamics_constrained(m, d, sh, Eigen::VectorXd::Zero(nu)).A;
  EXPECT_LT((Ah * sh.u).norm(), 1e-8);
  // the constrained inverse at a nonzero velocity: A_T u̇ = b_T holds (b_T = b − A J̇ u)
  EXPECT_LT(inverse_dynamics_constrained(m, d, s, udot).constraint_residual, 1e-9);
  ASSERT_EQ(fd(s, tau, udot), SolveStatus::Ok);
  // the constrained inverse: the rows hold, and the workless part of the force needed is
  // the part of τ the constraints do not absorb, (I − A⁺A) τ
  const ConstrainedInverse inv = inverse_dynamics_constrained(m, d, s, udot);
  EXPECT_LT(inv.constraint_residual, 1e-9);
  const Eigen::MatrixXd P = Eigen::MatrixXd::Identity(nu, nu) -
                            inv.A.completeOrthogonalDecomposition().pseudoInverse() * inv.A;
  EXPECT_LT((inv.tau - P * tau).norm(), 1e-8 * (1 + tau.norm()));
}

TEST(PythonSupport, BadArgumentsAreNamed) {
  const Model m = example("double_pendulum.json");
  Data d(m);
  Eigen::MatrixXd J;
  EXPECT_THROW(body_jacobian(m, d, m.initial_state(), m.nbody(), Vec3::Zero(), J),
               std::invalid_argument);
  JointForward fd(m);
  Eigen::VectorXd udot;
  EXPECT_THROW(fd(m.initial_state(), Eigen::VectorXd::Ones(m.tree().nu + 1), udot),
               std::invalid_argument);
  State bad = m.initial_state();
  bad.q.resize(bad.q.size() + 1);
  EXPECT_THROW(fd(bad, Eigen::VectorXd(), udot), std::invalid_argument);
}

}  // namespace
}  // namespace appell
