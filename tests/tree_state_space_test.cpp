// Projection stabilization with the recursive formulation: a closed loop (extra rows)
// is projected back onto its constraints, and the motion equals the maximal-coordinate
// simulation's.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/standard_chain.hpp>
#include <appell/state_space.hpp>
#include <appell/tree.hpp>
#include <cmath>
#include <map>

#include "engine/assembly/stages.hpp"
#include "engine/model/tree.hpp"

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

namespace {

using namespace appell;

// The integrator's right-hand side (rate: no tree rows, no joint multipliers) is the full
// evaluation's ẋ bit for bit, with extra rows and Baumgarte stabilization on them.
TEST(TreeStateSpace, RateEqualsDerivativeBitForBit) {
  const Scene scene = load_scene(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/four_bar.json");
  const Model m = compile(scene);
  Stabilization st;
  st.type = Stabilization::Type::Baumgarte;
  st.alpha = 7.0;
  st.beta = 11.0;
  const auto ss = make_state_space(m, SolverOptions{Formulation::Recursive, st});
  ASSERT_GT(m.tree().nrows_extra, 0);
  Data d_full(m), d_rate(m);
  Eigen::VectorXd x0, f_full, f_rate;
  ss->from_maximal(d_full, x0);
  for (int trial = 0; trial < 5; ++trial) {
    // a state off the loop's manifold too, so that Baumgarte's terms are not zero
    Eigen::VectorXd x = x0;
    x.tail(m.tree().nu) += 0.3 * (trial + 1) * Eigen::VectorXd::Ones(m.tree().nu);
    x.head(m.tree().nq) += 0.01 * trial * Eigen::VectorXd::Ones(m.tree().nq);
    ss->normalize(x);
    const double t = 0.1 * trial;
    ASSERT_EQ(ss->derivative(x, t, d_full, f_full), SolveStatus::Ok);
    ASSERT_EQ(ss->rate(x, t, d_rate, f_rate), SolveStatus::Ok);
    ASSERT_EQ(f_full.size(), f_rate.size());
    for (int k = 0; k < f_full.size(); ++k) EXPECT_EQ(f_full(k), f_rate(k)) << trial << " " << k;
  }
}

// Samples are full evaluations and the steps between them are rates: the trajectory must
// not depend on how often it is sampled (every = 1 against every = 7, rk4 and dopri5).
TEST(TreeStateSpace, TrajectoryDoesNotDependOnSampling) {
  const Scene scene = load_scene(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/four_bar.json");
  const Model m = compile(scene);
  for (const char* method : {"rk4", "dopri5"}) {
    SimulationOptions o = SimulationOptions::from_settings(scene.settings);
    o.formulation = Formulation::Recursive;
    o.stabilization.type = Stabilization::Type::Baumgarte;
    o.stabilization.alpha = o.stabilization.beta = 5.0;
    o.integrator.method = method;
    o.integrator.dt = 1e-3;
    o.integrator.duration = 0.35;
    auto run = [&](int every) {
      o.every = every;
      std::map<long, std::vector<BodyState>> rows;
      const SimulationResult r = simulate(
          m, o, [&](const Sample& s) { rows[std::lround(s.t / o.integrator.dt)] = s.data.body; });
      EXPECT_TRUE(r.ok()) << r.message;
      return rows;
    };
    const auto dense = run(1), sparse = run(7);
    ASSERT_GT(sparse.size(), 40u);
    for (const auto& [k, bodies] : sparse) {
      ASSERT_TRUE(dense.count(k)) << k;
      for (size_t i = 0; i < bodies.size(); ++i) {
        EXPECT_EQ(bodies[i].x, dense.at(k)[i].x) << method << " step " << k << " body " << i;
        EXPECT_EQ(bodies[i].w, dense.at(k)[i].w) << method << " step " << k << " body " << i;
      }
    }
  }
}

// A joint state satisfies every tree joint by construction, so a run of a tree starts with
// no velocity projection: the correction is 0 and the first sample's rows hold to round-off,
// in joint coordinates and in maximal ones alike.
TEST(TreeStateSpace, TreeStartsWithoutProjection) {
  const Model m = standard_chain(40);
  for (Formulation f : {Formulation::Recursive, Formulation::Pinv}) {
    SimulationOptions o;
    o.formulation = f;
    o.integrator.method = "rk4";
    o.integrator.duration = 0.0;
    double vv = 1.0, vp = 1.0;
    const SimulationResult r = simulate(m, o, [&](const Sample& s) {
      vv = s.violation_velocity;
      vp = s.violation_position;
    });
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.initial_velocity_correction, 0.0);
    EXPECT_LT(vv, 1e-13) << formulation_name(f);
    EXPECT_LT(vp, 1e-13) << formulation_name(f);
  }
}

}  // namespace
