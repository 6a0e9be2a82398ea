// Projection stabilization with the recursive formulation: a closed loop (extra rows)
// is projected back onto its constraints, and the motion equals the maximal-coordinate
// simulation's.
#include <gtest/gtest.h>

#include <appell/appell.hpp>

#include "engine/stages.hpp"

namespace {

using namespace appell;

TEST(TreeStateSpace, ProjectionKeepsALoopClosedAndAgreesWithPinv) {
  const Scene scene = load_scene(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/four_bar.json");
  const Model m = compile(scene);
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.stabilization.type = Stabilization::Type::Projection;
  o.integrator.method = "rk4";
  o.integrator.dt = 1e-3;
  o.integrator.duration = 1.0;

  auto run = [&](Formulation f, double& worst) {
    o.formulation = f;
    worst = 0.0;
    std::vector<BodyState> end;
    const SimulationResult r = simulate(m, o, [&](const Sample& s) {
      worst = std::max(worst, s.violation_position);
      end = s.data.body;
    });
    EXPECT_TRUE(r.ok()) << r.message;
    return end;
  };
  double worst_tree = 0.0, worst_pinv = 0.0;
  const std::vector<BodyState> tree = run(Formulation::Recursive, worst_tree);
  const std::vector<BodyState> pinv = run(Formulation::Pinv, worst_pinv);
  EXPECT_LT(worst_tree, 1e-10);  // without projection the closure drifts (see simulation_test)
  EXPECT_LT(worst_pinv, 1e-10);
  // the same motion on the same manifold, in two coordinate systems: equal to within
  // rk4's truncation error (O(dt⁴), about 3e-7 here)
  ASSERT_EQ(tree.size(), pinv.size());
  for (size_t i = 0; i < tree.size(); ++i) {
    EXPECT_LT((tree[i].x - pinv[i].x).norm(), 1e-5) << i;
    EXPECT_LT((tree[i].Q - pinv[i].Q).norm(), 1e-5) << i;
    EXPECT_LT((tree[i].w - pinv[i].w).norm(), 1e-5) << i;
  }
}

}  // namespace
