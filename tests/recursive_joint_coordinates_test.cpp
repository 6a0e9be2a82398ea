// The recursive formulation's joint coordinates (engine/run/tree_state_space.hpp): the round
// trip through body states, the joints held at every joint-coordinate state, and the energy
// kept by integrating the joint coordinates.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/state_space.hpp>
#include <appell/tree.hpp>
#include <cmath>
#include <random>

#include "engine/assembly/stages.hpp"
#include "engine/formulations/recursive.hpp"
#include "engine/run/tree_state_space.hpp"
#include "printers.hpp"
#include "random_trees.hpp"

namespace appell {
namespace {

using random_trees::random_scene;
using random_trees::random_tree_state;
using random_trees::RandomScene;
using random_trees::rel_error;

TEST(Recursive, JointCoordinatesRoundTrip) {
  std::mt19937 rng(3);
  RandomScene s = random_scene(rng, 20, true, false);
  TreeStateSpace ss(s.m);
  Data d(s.m);
  Eigen::VectorXd x = random_tree_state(rng, ss.tree()), y;
  // angles within (−π, π] so that the round trip is the identity
  ss.to_maximal(x, 0.0, d);
  ss.from_maximal(d, y);
  Data d2(s.m);
  ss.to_maximal(y, 0.0, d2);
  EXPECT_LT((d.q - d2.q).cwiseAbs().maxCoeff() + 0.0 * (d.u - d2.u).norm(), 1e-12);
  EXPECT_LT((d.u - d2.u).lpNorm<Eigen::Infinity>(), 1e-12);
}

// tree joints hold exactly at every joint-coordinate state: positions and velocities
TEST(Recursive, TreeStatesSatisfyTheJoints) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    RandomScene s = random_scene(rng, 15, false, false);
    TreeStateSpace ss(s.m);
    Data d(s.m);
    ss.to_maximal(random_tree_state(rng, ss.tree()), 0.0, d);
    constraint_rows(s.m, d);
    EXPECT_LT(d.position_residual.lpNorm<Eigen::Infinity>(), 1e-12) << "trial " << trial;
    EXPECT_LT(d.velocity_residual.lpNorm<Eigen::Infinity>(), 1e-12) << "trial " << trial;
  }
}

// q̇ = N(q) u and u̇ together conserve energy (RK4, conservative forces only)
TEST(Recursive, IntegratingJointCoordinatesConservesEnergy) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 3; ++trial) {
    RandomScene s = random_scene(rng, 8, false, false);
    TreeStateSpace ss(s.m);
    Data d(s.m);
    Eigen::VectorXd x = random_tree_state(rng, ss.tree()), k1, k2, k3, k4;
    x.tail(ss.tree().nu) *= 0.5;
    ss.to_maximal(x, 0.0, d);
    const double E0 = kinetic_energy(s.m, d) + potential_energy(s.m, d);
    const double h = 1e-3;
    for (int step = 0; step < 300; ++step) {
      ASSERT_EQ(ss.derivative(x, 0, d, k1), SolveStatus::Ok);
      ss.derivative(x + 0.5 * h * k1, 0, d, k2);
      ss.derivative(x + 0.5 * h * k2, 0, d, k3);
      ss.derivative(x + h * k3, 0, d, k4);
      x += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
      ss.normalize(x);
    }
    ss.to_maximal(x, 0.0, d);
    const double E1 = kinetic_energy(s.m, d) + potential_energy(s.m, d);
    EXPECT_LT(std::abs(E1 - E0), 1e-7 * (1.0 + std::abs(E0))) << "trial " << trial;
  }
}

}  // namespace
}  // namespace appell
