// The error an adaptive step controls, in joint coordinates with closed loops
// (engine/run/step_error.cpp): the drift of a loop and of the energy stays at the level the
// maximal formulations reach with the same tolerances, and a tree without loops keeps the
// plain joint-coordinate test.
#include <gtest/gtest.h>

#include <cmath>

#include "appell/appell.hpp"
#include "appell/standard_chain.hpp"
#include "appell/state_space.hpp"
#include "appell/tree.hpp"
#include "engine/model/tree.hpp"

namespace appell {
namespace {

const std::string kBricard = std::string(APPELL_SOURCE_DIR) + "/scenes/benchmarks/bricard.json";

struct Drift {
  double energy = 0.0, position = 0.0, E0 = 0.0;
  SimulationResult result;
};

// Bricard's linkage with dopri5 at rtol 1e-6 (atol default) and no stabilization
Drift run_bricard(Formulation f, double duration) {
  const Scene scene = load_scene(kBricard);
  const Model m = compile(scene);
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.formulation = f;
  o.stabilization.type = Stabilization::Type::None;
  o.integrator.method = "dopri5";
  o.integrator.rtol = 1e-6;
  o.integrator.atol = IntegratorOptions{}.atol;
  o.integrator.duration = duration;
  Drift out;
  out.result = simulate(m, o, [&](const Sample& s) {
    if (s.index == 0) out.E0 = s.energy;
    out.energy = std::max(out.energy, std::abs(s.energy - out.E0));
    out.position = std::max(out.position, s.violation_position);
  });
  return out;
}

// The loop's closure and the energy (conserved: no friction, no driving) stay near round-off
// in the joint-space run, as in the maximal one; they drifted to 1e-3 J and 1e-4 m in 10 s
// when only the joint coordinates' errors were controlled.
TEST(LoopStepError, BricardWithoutProjectionHoldsItsLoopAndEnergyInJointSpace) {
  const Drift tree = run_bricard(Formulation::Recursive, 3.0);
  const Drift maximal = run_bricard(Formulation::Pinv, 3.0);
  ASSERT_TRUE(tree.result.ok()) << tree.result.message;
  ASSERT_TRUE(maximal.result.ok()) << maximal.result.message;
  EXPECT_LT(tree.energy, 1e-7 * std::abs(tree.E0));
  EXPECT_LT(tree.position, 1e-8);
  // no worse than the maximal formulation under the same tolerances (with a margin for
  // the two integrations' different paths)
  EXPECT_LT(tree.energy, 10.0 * maximal.energy + 1e-12 * std::abs(tree.E0));
  EXPECT_LT(tree.position, 10.0 * maximal.position + 1e-12);
}

// The error of an angle change δ in a chain without loops is δ / (atol + rtol |q|): the
// joint-coordinate test alone; with a loop, the bodies' coordinates are tested too.
TEST(LoopStepError, BodyCoordinatesCountOnlyWhereALoopCanOpen) {
  const double atol = 1e-12, rtol = 1e-6, delta = 1e-7;
  {
    const Model m = standard_chain(4);
    const auto ss = make_state_space(m, SolverOptions{Formulation::Recursive, {}});
    const State& s = m.initial_state();
    Eigen::VectorXd x(ss->size()), xdot = Eigen::VectorXd::Zero(ss->size()),
                                   err = Eigen::VectorXd::Zero(ss->size());
    x << s.q, s.u;
    x(1) = 1.0;  // an angle of 1 rad: the error δ / (atol + rtol) passes the joint test
    err(1) = delta;
    EXPECT_DOUBLE_EQ(ss->step_error(x, xdot, err, 0.01, atol, rtol),
                     delta / (atol + rtol * std::abs(x(1))));
  }
  {
    const Model m = compile(load_scene(kBricard));
    ASSERT_GT(m.tree().nrows_extra, 0);
    const auto ss = make_state_space(m, SolverOptions{Formulation::Recursive, {}});
    const State& s = m.initial_state();
    Eigen::VectorXd x(ss->size()), xdot = Eigen::VectorXd::Zero(ss->size()),
                                   err = Eigen::VectorXd::Zero(ss->size());
    x << s.q, s.u;
    // a change of the first joint's rate: its own test passes, but the bodies' velocity
    // components that are zero at this state (the linkage starts symmetric) change by
    // about δ times a rod's length, far beyond atol
    const int i = m.tree().nq;
    ASSERT_GT(std::abs(x(i)), 0.1);
    err(i) = 1e-8;
    const double joint_only = err(i) / (atol + rtol * std::abs(x(i)));
    ASSERT_LT(joint_only, 1.0);
    EXPECT_GT(ss->step_error(x, xdot, err, 0.01, atol, rtol), 10.0 * joint_only);
  }
}

}  // namespace
}  // namespace appell
