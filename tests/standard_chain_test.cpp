// The standard chain (bench/chain_scenes.hpp): joints satisfied at t = 0, positions and velocities.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/standard_chain.hpp>
#include <cmath>

#include "engine/assembly/stages.hpp"

namespace {

using appell::Vec3;

TEST(StandardChain, InitialStateSatisfiesJoints) {
  for (int n : {1, 2, 5, 10}) {
    const appell::Model m = appell::standard_chain(n);
    ASSERT_EQ(m.nbody(), n);
    ASSERT_EQ(m.nrows(), 5 * n);
    appell::Data d(m);
    ASSERT_EQ(appell::forward(m, d, appell::Formulation::Pinv), appell::SolveStatus::Ok);
    EXPECT_LT(d.position_residual.cwiseAbs().maxCoeff(), 1e-14) << n;
    EXPECT_LT(d.velocity_residual.cwiseAbs().maxCoeff(), 1e-14) << n;
    EXPECT_EQ(d.diagnostics.rank, 5 * n);
  }
}

TEST(StandardChain, FirstTwoLinksByHand) {
  const appell::Model m = appell::standard_chain(2);
  const double q1 = 0.1 * std::sin(1.0), qd1 = 0.05 * std::cos(1.0);
  // link 1 turns about x: its centre is 0.1 m down the rotated −z axis
  const appell::Body& l1 = m.bodies()[0];
  EXPECT_NEAR((l1.position - Vec3(0, 0.1 * std::sin(q1), -0.1 * std::cos(q1))).norm(), 0, 1e-15);
  EXPECT_NEAR((l1.angular_velocity - Vec3(qd1, 0, 0)).norm(), 0, 1e-15);
  EXPECT_NEAR((l1.velocity - Vec3(0, 0.1 * std::cos(q1) * qd1, 0.1 * std::sin(q1) * qd1)).norm(), 0,
              1e-15);
  // link 2's axis is link 1's y axis
  const Vec3 y1 = l1.orientation * Vec3::UnitY();
  const double qd2 = 0.05 * std::cos(2.0);
  EXPECT_NEAR((m.bodies()[1].angular_velocity - (Vec3(qd1, 0, 0) + qd2 * y1)).norm(), 0, 1e-15);
  EXPECT_NEAR(m.bodies()[0].inertia(0, 0), (0.05 * 0.05 + 0.2 * 0.2) / 12.0, 1e-15);
}

}  // namespace
