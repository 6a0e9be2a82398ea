// The sparse {1}-inverse form [UK98 eq. 26] gives the same accelerations and multipliers
// as the Moore–Penrose form [UK96 eq. 4], with and without redundant rows.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <random>

#include "engine/assembly/stages.hpp"

namespace {

using namespace appell;

// a chain of n rigid links on revolute joints with random axes, then a particle on a rod
Model random_chain(int n, unsigned seed, bool redundant) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  ModelBuilder m_b;
  m_b.gravity = Vec3(0, 0, -9.81);
  int prev = kWorld;
  Vec3 anchor = Vec3::Zero();
  for (int i = 0; i < n; ++i) {
    Body b;
    b.name = "link" + std::to_string(i);
    b.mass = 1.0 + 0.5 * (U(rng) + 1);
    b.inertia = inertia_box(b.mass, Vec3(0.05, 0.07, 0.3));
    b.position = anchor + Vec3(0.05 * U(rng), 0.05 * U(rng), -0.15);
    b.orientation = Quat(1, 0.3 * U(rng), 0.3 * U(rng), 0.3 * U(rng)).normalized();
    b.velocity = Vec3(U(rng), U(rng), U(rng));
    b.angular_velocity = Vec3(U(rng), U(rng), U(rng));
    const int idx = m_b.add_body(b);
    const Vec3 axis = Vec3(U(rng), U(rng), U(rng)).normalized();
    m_b.add_constraint(std::make_shared<Joint>("joint" + std::to_string(i), joint_type("revolute"),
                                               prev, idx, m_b.initial_state(prev),
                                               m_b.initial_state(idx), anchor, axis, Vec3::Zero()));
    if (redundant && i == n / 2)  // the same hinge written twice
      m_b.add_constraint(std::make_shared<Joint>("again", joint_type("revolute"), prev, idx,
                                                 m_b.initial_state(prev), m_b.initial_state(idx),
                                                 anchor, axis, Vec3::Zero()));
    prev = idx;
    anchor = b.position + Vec3(0, 0, -0.15);
  }
  Body bob;
  bob.name = "bob";
  bob.type = BodyType::Particle;
  bob.position = anchor + Vec3(0.1, 0, -0.2);
  bob.velocity = Vec3(U(rng), U(rng), U(rng));
  const int ib = m_b.add_body(bob);
  m_b.add_constraint(std::make_shared<DistanceConstraint>(
      "rod", prev, ib, m_b.initial_state(prev), m_b.initial_state(ib), anchor, bob.position,
      (bob.position - anchor).norm()));
  return compile(m_b);
}

// the same accelerations and rank; the same multipliers when they are unique, else the same
// generalized constraint force Aᵀλ = M ü − F (sparse reports basic multipliers, sparse.hpp)
void expect_same(const Model& m) {
  Data dp(m), ds(m);
  ASSERT_EQ(forward(m, dp, Formulation::Pinv), SolveStatus::Ok);
  ASSERT_EQ(forward(m, ds, Formulation::Sparse), SolveStatus::Ok) << ds.diagnostics.message;
  EXPECT_LT((dp.udot - ds.udot).norm(), 1e-10 * dp.udot.norm());
  EXPECT_EQ(dp.diagnostics.rank, ds.diagnostics.rank);
  if (dp.diagnostics.rank == m.nrows()) {
    EXPECT_LT((dp.lambda - ds.lambda).norm(), 1e-9 * (1.0 + dp.lambda.norm()));
  } else {
    dense_rows(m, ds);
    const Eigen::VectorXd Fp = dp.A.transpose() * dp.lambda, Fs = ds.A.transpose() * ds.lambda;
    EXPECT_LT((Fp - Fs).norm(), 1e-9 * (1.0 + Fp.norm()));
  }
}

TEST(Sparse, AgreesWithPinvOnChains) {
  for (unsigned seed = 1; seed <= 10; ++seed) expect_same(random_chain(1 + 3 * seed, seed, false));
}

TEST(Sparse, RedundantRowsAreDroppedByTheZeroPivotFactorisation) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const Model m = random_chain(4 + seed, 100 + seed, true);
    expect_same(m);
    Data d(m);
    forward(m, d, Formulation::Sparse);
    EXPECT_EQ(d.diagnostics.rank, m.nrows() - 5);  // the repeated hinge adds nothing
  }
}

}  // namespace
