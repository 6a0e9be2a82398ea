// Recursive Newton–Euler inverse dynamics (engine/assembly/inverse_dynamics.cpp) against the
// forward recursion: identities between algorithms (STYLE §8.2), never copied numbers.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <appell/appell.hpp>
#include <appell/joint_state.hpp>
#include <appell/tree.hpp>

#include "engine/formulations/recursive.hpp"
#include "random_chain.hpp"
#include "random_scenes.hpp"

namespace appell {
namespace {

using test_chain::Chain;
using test_chain::random_chain;
using test_chain::random_state;
using test_scenes::Rng;

// the recursion's joint accelerations u̇ at s
Eigen::VectorXd forward_joint_accelerations(const Model& m, Data& d, const State& s) {
  set_state(m, d, s);
  EXPECT_EQ(forward_tree(m, d, s.q, s.u), SolveStatus::Ok);
  return joint_accelerations(m, d);
}

// a force applying the generalized forces *tau (tree nu, the joints' own u) at every joint
ForcePtr torques_on(const std::vector<std::shared_ptr<const Joint>>& joints,
                    const Eigen::VectorXd* tau, const Model* m) {
  return std::make_shared<CallableForce>([=](const StateView& s, SpatialForce* out) {
    for (const auto& j : joints) {
      const TreeJoint& t = m->tree().joints[m->tree().tree_index[j->child()]];
      apply_joint_force(*j, s, tau->data() + t.u_offset, out);
    }
  });
}

TEST(InverseDynamics, InvertsTheForwardRecursion) {
  // RNEA(q, u, ABA(q, u, τ)) = τ on random chains (every joint type, with gravity)
  for (unsigned seed = 1; seed <= 12; ++seed) {
    Chain c = random_chain(seed, 6, seed % 3 == 0);
    const Model plain = compile(c.b);
    Eigen::VectorXd tau;
    Model driven_holder;
    ModelBuilder driven = c.b;
    driven.add_force(torques_on(c.joints, &tau, &driven_holder));
    driven_holder = compile(driven);
    Rng rng(seed + 100);
    const State s = random_state(plain, rng);
    tau = Eigen::VectorXd::NullaryExpr(plain.tree().nu,
                                       [&](Eigen::Index) { return rng.uniform(-3, 3); });
    Data dd(driven_holder), dp(plain);
    const Eigen::VectorXd udot = forward_joint_accelerations(driven_holder, dd, s);
    Eigen::VectorXd back;
    inverse_dynamics(plain, dp, s, udot, back);
    EXPECT_LT((back - tau).norm(), 1e-9 * (1 + tau.norm())) << "seed " << seed;
  }
}

TEST(InverseDynamics, MassMatrixFromUnitAccelerations) {
  // columns M e_j = RNEA(q, 0, e_j) without gravity: symmetric positive definite, and the
  // inverse of the matrix whose columns are the forward recursion's response to unit
  // torques (ABA(q, 0, e_j) = M⁻¹ e_j)
  for (unsigned seed = 1; seed <= 6; ++seed) {
    Chain c = random_chain(seed, 5, seed % 2 == 0);
    c.b.gravity.setZero();
    Eigen::VectorXd tau;
    Model driven_holder;
    ModelBuilder driven = c.b;
    driven.add_force(torques_on(c.joints, &tau, &driven_holder));
    driven_holder = compile(driven);
    const Model& m = driven_holder;
    const Model plain = compile(c.b);
    Rng rng(seed);
    State s = random_state(m, rng);
    s.u.setZero();
    const int n = m.tree().nu;
    Eigen::MatrixXd M(n, n), Minv(n, n);
    Data d(m), dp(plain);
    for (int j = 0; j < n; ++j) {
      Eigen::VectorXd col;
      inverse_dynamics(plain, dp, s, Eigen::VectorXd::Unit(n, j), col);
      M.col(j) = col;
      tau = Eigen::VectorXd::Unit(n, j);
      Minv.col(j) = forward_joint_accelerations(m, d, s);
    }
    EXPECT_LT((M - M.transpose()).norm(), 1e-12 * M.norm()) << "seed " << seed;
    EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(M).info(), Eigen::Success) << "seed " << seed;
    EXPECT_LT((M * Minv - Eigen::MatrixXd::Identity(n, n)).norm(), 1e-9) << "seed " << seed;
  }
}

TEST(InverseDynamics, FreeMotionNeedsNoForceOnRandomTrees) {
  // trees of every joint type, particles and floating roots, with springs and forces:
  // the motion the recursion computes under the applied forces needs τ = 0
  for (unsigned seed = 1; seed <= 10; ++seed) {
    test_scenes::SceneOptions o;
    o.nbody = 6;
    o.chain = seed % 2 == 0;
    o.floating = seed % 3 == 0;
    const auto sc = test_scenes::random_scene(seed, o, false);
    const Model& m = sc.model;
    if (m.tree().nrows_extra > 0) continue;  // particles on distances: not a pure tree
    Rng rng(seed);
    const State s = random_state(m, rng);
    Data d(m);
    const Eigen::VectorXd udot = forward_joint_accelerations(m, d, s);
    Eigen::VectorXd tau;
    inverse_dynamics(m, d, s, udot, tau);
    EXPECT_LT(tau.norm(), 1e-9 * (1 + udot.norm())) << "seed " << seed;
  }
}

TEST(InverseDynamics, ConstrainedSystemsSplitActuatorAndConstraintForces) {
  // loops closed on random trees: the free motion needs no actuator force, and the extra
  // rows' multipliers give the constraint forces of the forward solve
  int tested = 0;
  for (unsigned seed = 1; seed <= 20 && tested < 6; ++seed) {
    test_scenes::SceneOptions o;
    o.nbody = 5;
    o.loops = true;
    const auto sc = test_scenes::random_scene(seed, o, false);
    const Model& m = sc.model;
    if (m.tree().nrows_extra == 0) continue;
    Data d(m);
    const State s = state_from_bodies(m, [&] {
      std::vector<BodyState> b;
      for (int i = 0; i < m.nbody(); ++i) b.push_back(m.initial_body_state(i));
      return b;
    }());
    // velocities consistent with the rows: the forward solve's own projection
    set_state(m, d, s);
    if (forward_tree(m, d, s.q, s.u) != SolveStatus::Ok) continue;
    State sv = s;
    sv.u.setZero();  // zero velocity satisfies every (e = 0) row
    set_state(m, d, sv);
    ASSERT_EQ(forward_tree(m, d, sv.q, sv.u), SolveStatus::Ok);
    const Eigen::VectorXd udot = joint_accelerations(m, d);
    const Eigen::VectorXd lambda_forward = d.lambda;
    const ConstrainedInverse inv = inverse_dynamics_constrained(m, d, sv, udot);
    EXPECT_LT(inv.constraint_residual, 1e-8) << "seed " << seed;
    EXPECT_LT(inv.tau.norm(), 1e-8 * (1 + inv.tau_tree.norm())) << "seed " << seed;
    // the constraint force A_Tᵀ λ equals the one of the forward solve
    Eigen::VectorXd lam_f(m.tree().nrows_extra);
    int k = 0;
    for (int c : m.tree().extra)
      for (int i = 0; i < m.constraints()[c]->rows(); ++i)
        lam_f(k++) = lambda_forward(m.row_offset(c) + i);
    EXPECT_LT((inv.A.transpose() * (inv.lambda - lam_f)).norm(), 1e-8 * (1 + inv.tau_tree.norm()))
        << "seed " << seed;
    ++tested;
  }
  EXPECT_GE(tested, 3);
}

}  // namespace
}  // namespace appell
