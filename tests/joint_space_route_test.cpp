// The contact stepper's joint-space route (engine/formulations/recursive.hpp,
// engine/contact/joint_space_delassus.cpp): the free velocity by the mass matrix's factor,
// M u̇ = −b with b from the Newton–Euler passes at u̇ = 0, against the articulated-body
// passes that give u̇ themselves — at the state's rates and at new ones (the midpoint's
// passes) — and G by the recursion's unit forces after the route left the articulated
// inertias out, against G after the articulated passes.
#include <gtest/gtest.h>

#include <appell/appell.hpp>

#include "engine/assembly/row_terms.hpp"
#include "engine/contact/delassus.hpp"
#include "engine/formulations/recursive.hpp"
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {
namespace {

struct Robot {
  Model m;
  Eigen::VectorXd q, u;
};

// the standing quadruped (floating base, its servos' joint-space forces, gravity), its
// joints bent and every velocity moving
Robot bent_quadruped() {
  Robot r{load_model(std::string(APPELL_SOURCE_DIR) +
                     "/scenes/examples/robots/quadruped_standing.json"),
          {},
          {}};
  r.q = r.m.initial_state().q;
  r.u = r.m.initial_state().u;
  for (const TreeJoint& t : r.m.tree().joints)
    if (t.shape == JointShape::Turn) r.q(t.q_offset) += 0.3 + 0.1 * t.q_offset;
  r.u.setLinSpaced(r.u.size(), -0.5, 0.7);
  return r;
}

// u̇ = −M⁻¹ b on d, after the terms at (q, u); false when M is not definite
bool route(const Model& m, Data& d, JointSpaceScratch& w, JointSpaceResponse& f,
           Eigen::VectorXd& udot) {
  if (!joint_space_factor(m, d, recursive_workspace(m, d), w, f)) return false;
  joint_space_bias(m, d, udot);
  udot = -udot;
  solve_joint_space(f, udot);
  return true;
}

TEST(JointSpaceRoute, FreeVelocityIsTheArticulatedPassesOne) {
  const Robot r = bent_quadruped();
  const Model& m = r.m;
  Data passes(m), joint_space(m);
  ASSERT_EQ(recursive_rates(m, passes, r.q, r.u, {}), SolveStatus::Ok);
  const Eigen::VectorXd want = joint_accelerations(m, passes);
  recursive_terms(m, joint_space, r.q, r.u);
  ASSERT_TRUE(joint_space_applies(m, joint_space));
  EXPECT_FALSE(recursive_workspace(m, joint_space).articulated);
  JointSpaceScratch w;
  JointSpaceResponse f;
  Eigen::VectorXd udot;
  ASSERT_TRUE(route(m, joint_space, w, f, udot));
  ASSERT_GT(want.norm(), 1.0);  // the servos and gravity move it
  EXPECT_LT((udot - want).lpNorm<Eigen::Infinity>(), 1e-10 * want.lpNorm<Eigen::Infinity>());
  // at new rates, the poses and M kept: the midpoint's passes
  const Eigen::VectorXd ubar = 0.5 * r.u + Eigen::VectorXd::Constant(r.u.size(), 0.2);
  ASSERT_EQ(recursive_rates_new_velocity(m, passes, r.q, ubar), SolveStatus::Ok);
  const Eigen::VectorXd want_bar = joint_accelerations(m, passes);
  RecursiveWorkspace& ws = recursive_workspace(m, joint_space);
  velocities_BaseToTip(m, m.tree(), r.q, ubar, joint_space, ws);
  Eigen::VectorXd udot_bar;
  joint_space_bias(m, joint_space, udot_bar);
  udot_bar = -udot_bar;
  solve_joint_space(f, udot_bar);
  EXPECT_GT((want_bar - want).norm(), 1e-3);  // the rates matter
  EXPECT_LT((udot_bar - want_bar).lpNorm<Eigen::Infinity>(),
            1e-10 * want_bar.lpNorm<Eigen::Infinity>());
}

TEST(JointSpaceRoute, RecursionsGRunsTheArticulatedPassesItNeeds) {
  // rows under each foot, G by the recursion's unit-force passes (no islands: the general
  // path): on a Data whose articulated inertias the route left out, the passes run first
  // and G is the one after recursive_rates
  const Robot r = bent_quadruped();
  const Model& m = r.m;
  Data passes(m), joint_space(m);
  ASSERT_EQ(recursive_rates(m, passes, r.q, r.u, {}), SolveStatus::Ok);
  recursive_terms(m, joint_space, r.q, r.u);
  std::vector<TwistRow> rows;
  const TreeModel& tree = m.tree();
  for (size_t i = 0; i < tree.joints.size(); ++i)
    if (tree.children[i].empty()) {
      const int b = tree.joints[i].body;
      for (const Vec3& dir : {Vec3(0, 0, 1), Vec3(0.8, 0.6, 0)})
        rows.push_back(point_row(passes, kWorld, b, passes.body[b].x + Vec3(0, 0, -0.02), dir));
    }
  ASSERT_EQ(rows.size(), 8u);
  Eigen::MatrixXd G0, R0, G1, R1;
  tree_delassus(m, passes, rows, G0, R0);
  tree_delassus(m, joint_space, rows, G1, R1);
  EXPECT_TRUE(recursive_workspace(m, joint_space).articulated);
  ASSERT_GT(G0.norm(), 0.0);
  EXPECT_LT((G1 - G0).norm(), 1e-12 * G0.norm());
  EXPECT_LT((R1 - R0).norm(), 1e-12 * R0.norm());
}

}  // namespace
}  // namespace appell
