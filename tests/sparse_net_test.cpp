// The sparse formulation where the tree covers little: a net of particles with many loops
// and a chain with one loop closure, against the Moore–Penrose form [UK96 eq. 4].
#include <gtest/gtest.h>

#include <appell/appell.hpp>

#include "bench/chain_scenes.hpp"
#include "engine/assembly/stages.hpp"

namespace {

using namespace appell;

double rel(const Eigen::VectorXd& x, const Eigen::VectorXd& ref) {
  return (x - ref).norm() / (1.0 + ref.norm());
}

// accelerations, rank and the generalized constraint force Aᵀλ agree with pinv; the
// multipliers too when the rows are independent
void expect_same_as_pinv(const Model& m, bool standard_state) {
  Data dp(m), ds(m);
  if (standard_state) {  // else the state the scene describes
    bench::standard_state(m, dp);
    bench::standard_state(m, ds);
  }
  ASSERT_EQ(forward(m, dp, Formulation::Pinv), SolveStatus::Ok) << dp.diagnostics.message;
  ASSERT_EQ(forward(m, ds, Formulation::Sparse), SolveStatus::Ok) << ds.diagnostics.message;
  EXPECT_LT(rel(ds.udot, dp.udot), 1e-9) << m.name();
  EXPECT_EQ(ds.diagnostics.rank, dp.diagnostics.rank) << m.name();
  dense_rows(m, ds);
  EXPECT_LT(rel(ds.A.transpose() * ds.lambda, dp.A.transpose() * dp.lambda), 1e-9) << m.name();
  if (dp.diagnostics.rank == m.nrows()) {
    EXPECT_LT(rel(ds.lambda, dp.lambda), 1e-8) << m.name();
  }
  // and the rows hold: A u̇ = b
  EXPECT_LT(rel(ds.A * ds.udot, ds.b), 1e-9) << m.name();
}

TEST(SparseNet, AgreesWithPinvOnANetOfParticles) {
  const Model m = bench::particle_net(15);  // 225 particles, 424 rows, 196 loops
  ASSERT_EQ(m.nbody(), 225);
  ASSERT_EQ(m.nrows(), 2 * 15 * 14 + 4);
  expect_same_as_pinv(m, false);
}

TEST(SparseNet, AgreesWithPinvOnAChainWithOneLoopClosure) {
  expect_same_as_pinv(bench::closed_chain(12), true);
}

// the rods between particles of the spinning net are at rest, so each particle's
// acceleration along a rod equals its neighbour's: the rod keeps its length to second order
TEST(SparseNet, RodsKeepTheirLengthsToSecondOrder) {
  const Model m = bench::particle_net(30);  // 900 particles, 1744 rows
  Data d(m);
  ASSERT_EQ(forward(m, d, Formulation::Sparse), SolveStatus::Ok) << d.diagnostics.message;
  EXPECT_EQ(d.diagnostics.rank, m.nrows());
  for (int a = 0; a + 1 < m.nbody(); ++a) {
    const int b = a + 1;  // the rod along y, when both are in one grid line
    if (b % 30 == 0) continue;
    const Vec3 r = d.body[b].x - d.body[a].x;
    const Vec3 v = d.body[b].v - d.body[a].v;
    const Vec3 acc = d.udot.segment<3>(m.u_offset(b)) - d.udot.segment<3>(m.u_offset(a));
    // d²/dt² |r|²/2 = r·a + |v|² = 0
    EXPECT_NEAR(r.dot(acc) + v.squaredNorm(), 0.0, 1e-9 * (1.0 + acc.norm())) << a;
  }
}

}  // namespace
