// The recursive formulation (engine/formulations/recursive.hpp) against the dense ones and against
// an independently assembled joint-space mass matrix; and its no-allocation promise
// (recursive_joint_coordinates_test.cpp: its joint coordinates).
#include "engine/formulations/recursive.hpp"

#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/standard_chain.hpp>
#include <appell/state_space.hpp>
#include <appell/tree.hpp>
#include <atomic>
#include <cstdlib>
#include <iostream>
#include <random>

#include "../bench/chain_scenes.hpp"
#include "allocation_counter.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/formulations/dense.hpp"
#include "engine/formulations/projection.hpp"
#include "engine/run/tree_state_space.hpp"
#include "printers.hpp"
#include "random_trees.hpp"

using appell_test::AllocationScope;

namespace appell {
namespace {

using random_trees::random_body;
using random_trees::random_scene;
using random_trees::random_tree_state;
using random_trees::random_unit;
using random_trees::RandomScene;
using random_trees::rel_error;

TEST(Recursive, EqualsPinvOnRandomTrees) {
  std::mt19937 rng(20261121);
  int compared = 0, with_rows = 0, redundant_cases = 0, inconsistent = 0;
  for (int trial = 0; trial < 200 && compared < 120; ++trial) {
    const int n = std::uniform_int_distribution<int>(5, 60)(rng);
    const bool loops = trial % 2 == 1, redundant = trial % 4 == 3;
    RandomScene s = random_scene(rng, n, loops, redundant);
    const Model& m = s.m;
    TreeStateSpace ss(m);
    Data d(m);
    ss.to_maximal(random_tree_state(rng, ss.tree()), 0.0, d);
    // velocities on the constraints, as a simulation starts (docs/scene-format.md): with redundant
    // closures, random joint rates would leave A u̇ = b slightly contradictory
    project_velocities(m, d);

    // a loop with too few degrees of freedom can leave A u̇ = b without a solution;
    // the formulations then minimise different residuals, so skip the scene
    if (forward(m, d, Formulation::Pinv) == SolveStatus::Inconsistent) {
      ++inconsistent;
      continue;
    }
    ASSERT_EQ(d.diagnostics.status, SolveStatus::Ok) << d.diagnostics.message;
    const Eigen::VectorXd udot_pinv = d.udot;
    const std::vector<SpatialForce> reaction_pinv = d.reaction;
    const int rank_pinv = d.diagnostics.rank;
    ASSERT_EQ(forward(m, d, Formulation::Recursive), SolveStatus::Ok) << d.diagnostics.message;
    EXPECT_EQ(d.diagnostics.rank, rank_pinv) << "trial " << trial;
    EXPECT_LT(rel_error(d.udot, udot_pinv), 1e-9) << "trial " << trial << " n " << n;

    // per constraint per body when the multipliers are unique up to exact duplicates,
    // else the total constraint force on each body (always unique)
    double scale = 1.0;
    for (const SpatialForce& w : reaction_pinv)
      scale = std::max({scale, w.force.norm(), w.moment.norm()});
    if (rank_pinv == m.nrows() - s.duplicated_rows) {
      for (size_t k = 0; k < d.reaction.size(); ++k) {
        EXPECT_LT((d.reaction[k].force - reaction_pinv[k].force).norm(), 1e-9 * scale)
            << "trial " << trial << " slot " << k;
        EXPECT_LT((d.reaction[k].moment - reaction_pinv[k].moment).norm(), 1e-9 * scale)
            << "trial " << trial << " slot " << k;
      }
    } else {
      ++redundant_cases;
      std::vector<SpatialForce> total(m.nbody()), total_pinv(m.nbody());
      for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c)
        for (size_t j = 0; j < m.constraints()[c]->bodies().size(); ++j) {
          const int b = m.constraints()[c]->bodies()[j], k = m.slot_offset(c) + static_cast<int>(j);
          total[b].force += d.reaction[k].force;
          total[b].moment += d.reaction[k].moment;
          total_pinv[b].force += reaction_pinv[k].force;
          total_pinv[b].moment += reaction_pinv[k].moment;
        }
      for (int b = 0; b < m.nbody(); ++b) {
        EXPECT_LT((total[b].force - total_pinv[b].force).norm(), 1e-9 * scale)
            << "trial " << trial << " body " << b;
        EXPECT_LT((total[b].moment - total_pinv[b].moment).norm(), 1e-9 * scale)
            << "trial " << trial << " body " << b;
      }
    }
    ++compared;
    if (ss.tree().nrows_extra > 0) ++with_rows;
  }
  EXPECT_GE(compared, 100);
  EXPECT_GE(with_rows, 50);
  RecordProperty("redundant_with_tree", redundant_cases);
  RecordProperty("inconsistent_skipped", inconsistent);
}

// Extra rows that repeat what the tree joints already impose (issue: "Redundant and
// singular constraint sets"): every joint type written twice, a spherical joint over a
// revolute, universal, spherical or fixed one at the same anchor, a distance between two
// points a revolute or fixed joint keeps apart, a perpendicularity a prismatic, fixed or
// cylindrical joint keeps.  Such rows add nothing: the rank is that of the tree joints
// alone (an independent count), and recursive and sparse equal pinv — accelerations and
// the total constraint force on each body (the split among repeated rows is not unique).
TEST(Recursive, ExtraRowsRepeatingTreeJointsEqualPinv) {
  std::mt19937 rng(20261124);
  const JointType* const types[] = {&joint_type("spherical"), &joint_type("revolute"),
                                    &joint_type("prismatic"), &joint_type("cylindrical"),
                                    &joint_type("universal"), &joint_type("fixed")};
  int compared = 0, repeats = 0;
  double worst_u = 0.0, worst_f = 0.0;
  for (int trial = 0; trial < 60; ++trial) {
    const int n = std::uniform_int_distribution<int>(2, 25)(rng);
    ModelBuilder m_b;
    m_b.gravity = Vec3(0.3, -0.2, -9.81);
    for (int i = 0; i < n; ++i) m_b.add_body(random_body(rng, i, BodyType::Rigid));
    struct Edge {
      const JointType* type;
      int p, c;
      Vec3 anchor, axis, axis2;
    };
    std::vector<Edge> edges;
    int tree_rows = 0;
    for (int i = 0; i < n; ++i) {
      const int p = i == 0 ? kWorld : std::uniform_int_distribution<int>(-1, i - 1)(rng);
      Edge e{types[(trial + i) % 6], p < 0 ? kWorld : p, i,
             Vec3::Zero(),           random_unit(rng),   Vec3::Zero()};
      const BodyState P = m_b.initial_state(e.p), C = m_b.initial_state(e.c);
      e.anchor = 0.5 * (P.x + C.x) + 0.2 * random_unit(rng);
      e.axis2 = e.axis.cross(random_unit(rng)).normalized();
      auto j = std::make_shared<Joint>("j" + std::to_string(i), *e.type, e.p, e.c, P, C, e.anchor,
                                       e.axis, e.axis2);
      tree_rows += j->rows();
      m_b.add_constraint(j);
      edges.push_back(e);
    }
    // one to three repeats, of the kinds each joint type implies
    const int nrep = std::uniform_int_distribution<int>(1, 3)(rng);
    for (int k = 0; k < nrep; ++k) {
      const Edge& e = edges[std::uniform_int_distribution<int>(0, n - 1)(rng)];
      const BodyState P = m_b.initial_state(e.p), C = m_b.initial_state(e.c);
      const std::string name = "repeat" + std::to_string(k);
      const int kind = std::uniform_int_distribution<int>(0, 1)(rng);
      const bool pointwise = e.type == &joint_type("revolute") ||
                             e.type == &joint_type("universal") ||
                             e.type == &joint_type("spherical") || e.type == &joint_type("fixed");
      if (kind == 0) {  // the joint written twice
        m_b.add_constraint(
            std::make_shared<Joint>(name, *e.type, e.p, e.c, P, C, e.anchor, e.axis, e.axis2));
      } else if (pointwise && e.type != &joint_type("revolute")) {  // a spherical at the anchor
        const Vec3 at = e.type == &joint_type("fixed") ? C.x : e.anchor;
        m_b.add_constraint(std::make_shared<Joint>(name, joint_type("spherical"), e.p, e.c, P, C,
                                                   at, e.axis, e.axis2));
      } else if (e.type == &joint_type("revolute")) {  // two points on the hinge's axis
        m_b.add_constraint(std::make_shared<DistanceConstraint>(
            name, e.p, e.c, P, C, e.anchor + 0.3 * e.axis, e.anchor - 0.3 * e.axis, 0.6));
      } else {  // prismatic, cylindrical: a direction across the axis stays perpendicular to it
        m_b.add_constraint(std::make_shared<PerpendicularConstraint>(
            name, e.p, e.c, P, C, e.axis, e.axis.cross(random_unit(rng)).normalized()));
      }
      ++repeats;
    }
    SCOPED_TRACE("trial " + std::to_string(trial) + ", " + std::to_string(n) + " bodies");
    Model m = compile(m_b);
    TreeStateSpace ss(m);
    ASSERT_EQ(ss.tree().ntree_rows, tree_rows);  // the first joint of each pair is the tree's
    Data d(m);
    ss.to_maximal(random_tree_state(rng, ss.tree()), 0.0, d);

    ASSERT_EQ(forward(m, d, Formulation::Pinv), SolveStatus::Ok) << d.diagnostics.message;
    // a fixed joint's rows are merged away with its bodies (appell/model.hpp "Composites")
    int merged_rows = 0;
    for (const TreeJoint& t : m.tree().joints)
      if (t.constraint >= 0 && m.internal(t.constraint)) merged_rows += t.rows;
    tree_rows -= merged_rows;
    EXPECT_EQ(d.diagnostics.rank, tree_rows);
    const Eigen::VectorXd udot = d.udot;
    dense_rows(m, d);
    const Eigen::VectorXd force = d.A.transpose() * d.lambda;  // Aᵀλ, unique
    for (Formulation f : {Formulation::Recursive, Formulation::Sparse}) {
      ASSERT_EQ(forward(m, d, f), SolveStatus::Ok)
          << formulation_name(f) << ": " << d.diagnostics.message;
      EXPECT_EQ(d.diagnostics.rank, tree_rows) << formulation_name(f);
      const double eu = rel_error(d.udot, udot);
      EXPECT_LT(eu, 1e-9) << formulation_name(f);
      dense_rows(m, d);
      const double ef = rel_error(d.A.transpose() * d.lambda, force);
      EXPECT_LT(ef, 1e-9) << formulation_name(f);
      EXPECT_LT(d.lambda.lpNorm<Eigen::Infinity>(), 1e6 * (1.0 + force.lpNorm<Eigen::Infinity>()))
          << formulation_name(f) << ": multipliers blown up";
      worst_u = std::max(worst_u, eu);
      worst_f = std::max(worst_f, ef);
    }
    ++compared;
  }
  EXPECT_EQ(compared, 60);
  std::cout << "[ figures  ] " << compared << " trees, " << repeats
            << " repeated joints: max relative |recursive or sparse - pinv|: udot " << worst_u
            << ", constraint forces " << worst_f << "\n";
}

// M_tree = Jᵀ M J with J = ∂u_max/∂u_tree (the velocity map), τ − h = Jᵀ (F − M J̇u) with
// J̇u by central differences along q̇ = N(q) u: none of it uses the recursion.
TEST(Recursive, UnconstrainedTreeEqualsMassMatrixSolve) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 10; ++trial) {
    RandomScene s = random_scene(rng, 5 + 3 * trial, false, false);
    const Model& m = s.m;
    TreeStateSpace ss(m);
    const TreeModel& tree = ss.tree();
    ASSERT_EQ(tree.nrows_extra, 0);
    Data d(m);
    const Eigen::VectorXd x = random_tree_state(rng, tree);
    Eigen::VectorXd xdot;
    ASSERT_EQ(ss.derivative(x, 0.0, d, xdot), SolveStatus::Ok);
    const Eigen::VectorXd udot_rec = xdot.tail(tree.nu), qdot = xdot.head(tree.nq);

    // J column by column, at this configuration
    Eigen::MatrixXd J(m.nu(), tree.nu);
    Eigen::VectorXd xk = x;
    for (int k = 0; k < tree.nu; ++k) {
      xk.tail(tree.nu).setZero();
      xk(tree.nq + k) = 1.0;
      ss.to_maximal(xk, 0.0, d);
      J.col(k) = d.u;
    }
    // J̇u
    const double eps = 1e-5;
    Eigen::VectorXd xp = x, xm = x;
    xp.head(tree.nq) += eps * qdot;
    xm.head(tree.nq) -= eps * qdot;
    ss.to_maximal(xp, 0.0, d);
    const Eigen::VectorXd up = d.u;
    ss.to_maximal(xm, 0.0, d);
    const Eigen::VectorXd Jdu = (up - d.u) / (2 * eps);
    // M and F at x
    ss.to_maximal(x, 0.0, d);
    applied_forces(m, d);
    const Eigen::MatrixXd M = dense_mass(m, d);
    const Eigen::MatrixXd Mt = J.transpose() * M * J;
    const Eigen::VectorXd rhs = J.transpose() * (d.F - M * Jdu);
    const Eigen::VectorXd udot_ref = Mt.ldlt().solve(rhs);
    EXPECT_LT(rel_error(udot_rec, udot_ref), 1e-6) << "trial " << trial;
  }
}

TEST(Recursive, StandardChainMatchesDense) {
  const Model m = bench::standard_chain(12);
  Data d(m);
  bench::standard_state(m, d);
  ASSERT_EQ(forward(m, d, Formulation::GibbsAppell), SolveStatus::Ok);
  const Eigen::VectorXd ref = d.udot;
  ASSERT_EQ(forward(m, d, Formulation::Recursive), SolveStatus::Ok);
  EXPECT_LT(rel_error(d.udot, ref), 1e-9);
  EXPECT_EQ(resolve_formulation(m, Formulation::Auto), Formulation::Recursive);
}

TEST(Recursive, NoAllocationPerEvaluation) {
#if !APPELL_COUNT_MALLOC
  GTEST_SKIP() << "malloc counting is off under AddressSanitizer";
#else
  for (bool rows : {false, true}) {
    const Model m = rows ? bench::closed_chain(30) : bench::standard_chain(30);
    Data d(m);
    const Eigen::VectorXd x = bench::standard_state(m, d);
    const TreeStateSpace ss(m);
    const auto q = x.head(ss.tree().nq), u = x.tail(ss.tree().nu);
    ASSERT_EQ(forward(m, d, Formulation::Recursive), SolveStatus::Ok);  // builds the workspace
    long count = 0;
    {
      AllocationScope scope;
      for (int k = 0; k < 10; ++k) forward(m, d, Formulation::Recursive);
      for (int k = 0; k < 10; ++k) forward_tree(m, d, q, u);
      recursive_accelerations(m, d, q, u);
      count = scope.count();
    }
    EXPECT_EQ(count, 0) << (rows ? "with extra rows" : "tree");
  }
#endif
}

}  // namespace
}  // namespace appell
