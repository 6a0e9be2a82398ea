// Numerical edges of a run: quaternions of any finite size, singular positions crossed
// without projection, stiffness, and dense workspaces made only for dense formulations.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/standard_chain.hpp>
#include <cmath>
#include <string>

#include "engine/assembly/stages.hpp"
#include "engine/formulations/projection.hpp"

namespace appell {
namespace {

constexpr double kPi = 3.14159265358979323846;

// A box on a spherical joint whose initial quaternion is written as `q`.
Model ball(const std::string& q) {
  return load_model_from_string(
      R"({"bodies": [{"name": "box", "mass": 2, "inertia": {"box": [0.1, 0.1, 0.4]},
                      "com": [0, 0, -0.2]}],
          "constraints": [{"name": "ball", "type": "spherical", "bodies": ["world", "box"],
                           "origin": {"xyz": [0, 0, 0]}, "q": )" +
          q + "}]}",
      "ball.json");
}

// [1e154]·(1, 1, 0, 0) squares to infinity: it is still a quarter turn about x, so the
// centre of mass (0, 0, −0.2) goes to (0, 0.2, 0) — not the identity's (0, 0, −0.2)
TEST(NumericsHardening, HugeJointQuaternionIsItsRotation) {
  for (const char* q :
       {"[1e154, 1e154, 0, 0]", "[1e300, 1e300, 0, 0]", "[1e-200, 1e-200, 0, 0]", "[1, 1, 0, 0]"}) {
    const Model m = ball(q);
    const Vec3 expected(0, 0.2 * std::sin(kPi / 2), -0.2 * std::cos(kPi / 2));
    EXPECT_LT((m.bodies()[0].position - expected).norm(), 1e-15) << q;
    const State& s = m.initial_state();
    EXPECT_NEAR(s.q.head<4>().norm(), 1.0, 1e-15) << q;
  }
}

TEST(NumericsHardening, ZeroJointQuaternionIsRefused) {
  try {
    ball("[0, 0, 0, 0]");
    FAIL() << "a zero quaternion was accepted";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("/constraints/0/q: "), std::string::npos) << e.what();
  }
}

// A double pendulum whose bob is 1e200 times lighter than its arm: the projection of the
// initial velocities has no finite answer in double precision.  The error says so and why,
// located, never "violated by nan"; and a solve on that model, in any formulation, either
// works or says its result is not finite.
TEST(NumericsHardening, MassesBeyondDoublePrecisionAreReportedAsNotFinite) {
  const std::string scene =
      R"({"bodies": [{"name": "arm", "mass": 1, "inertia": {"principal": [0.0034, 0.0034, 0.0004]},
                      "position": [0, 0, -0.1], "angular_velocity": [3, 0, 0]},
                     {"name": "bob", "type": "particle", "mass": 1e-200, "position": [0, 0, -0.3],
                      "velocity": [0, 0.9, 0]}],
          "constraints": [{"name": "hinge", "type": "revolute", "bodies": ["world", "arm"],
                           "anchor": [0, 0, 0], "axis": [1, 0, 0]},
                          {"name": "rod", "type": "distance", "bodies": ["arm", "bob"],
                           "points": [[0, 0, -0.2], [0, 0, -0.3]]}]})";
  try {
    load_model_from_string(scene, "light.json");
    FAIL() << "the scene loaded";
  } catch (const SceneError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("/constraints: "), std::string::npos) << what;
    EXPECT_NE(what.find("not finite"), std::string::npos) << what;
    EXPECT_NE(what.find("orders of magnitude"), std::string::npos) << what;
    EXPECT_EQ(what.find("nan"), std::string::npos) << what;
  }
}

// A parallelogram: two 1 m cranks hinged 1 m apart and a coupler, turning through the flat
// (singular) positions, the first at t ≈ 0.24 s.  Without projection the motion can leave
// its branch there: every formulation must stop, or stay on the branch — never run on with
// the loop open and energy gained (rk4 at 1 ms did, by up to 1900 J in 4 s).
Model parallelogram(const std::string& stabilization) {
  const std::string crank = R"("mass": 1, "inertia": {"box": [1, 0.05, 0.05]},
      "orientation": {"matrix": [[0, -1, 0], [1, 0, 0], [0, 0, 1]]},
      "velocity": [-3, 0, 0], "angular_velocity": [0, 0, 6])";
  return load_model_from_string(
      R"({"gravity": [0, -9.81, 0], "bodies": [
        {"name": "c0", "position": [0, 0.5, 0], )" +
          crank + R"(},
        {"name": "c1", "position": [1, 0.5, 0], )" +
          crank + R"(},
        {"name": "k", "mass": 1, "inertia": {"box": [1, 0.05, 0.05]}, "position": [0.5, 1, 0],
         "velocity": [-6, 0, 0]}],
       "constraints": [
        {"name": "g0", "type": "revolute", "bodies": ["world", "c0"], "anchor": [0, 0, 0], "axis": [0, 0, 1]},
        {"name": "g1", "type": "revolute", "bodies": ["world", "c1"], "anchor": [1, 0, 0], "axis": [0, 0, 1]},
        {"name": "l", "type": "revolute", "bodies": ["c0", "k"], "anchor": [0, 1, 0], "axis": [0, 0, 1]},
        {"name": "r", "type": "revolute", "bodies": ["k", "c1"], "anchor": [1, 1, 0], "axis": [0, 0, 1]}],
       "solver": {"stabilization": )" +
          stabilization + "}}",
      "parallelogram.json");
}

TEST(NumericsHardening, RankChangeWithoutProjectionStopsEveryFormulation) {
  const Model m = parallelogram(R"({"type": "none"})");
  for (Formulation f :
       {Formulation::Recursive, Formulation::Pinv, Formulation::Sparse, Formulation::GibbsAppell})
    for (const char* method : {"rk4", "dopri5"}) {
      SimulationOptions o;
      o.formulation = f;
      o.integrator.method = method;
      o.integrator.duration = 2.0;
      o.integrator.dt = method == std::string("rk4") ? 1e-3 : 1e-2;
      o.integrator.rtol = 1e-6;
      double worst = 0.0, E0 = NAN, drift = 0.0;
      const SimulationResult r = simulate(m, o, [&](const Sample& s) {
        worst = std::max(worst, s.violation_position);
        if (std::isnan(E0)) E0 = s.energy;
        drift = std::max(drift, std::abs(s.energy - E0));
      });
      const std::string what = std::string(formulation_name(f)) + " " + method;
      // stopped (and then at a singular position, saying so) or followed on the branch;
      // either way what was written is the motion on its branch: closed and conservative
      if (r.status != SimulationStatus::Completed) {
        EXPECT_NE(r.message.find("singular position"), std::string::npos) << what << r.message;
      }
      EXPECT_LT(worst, 1e-5) << what;
      EXPECT_LT(drift, 1e-2) << what;
    }
}

// The shipped delta robot (Baumgarte) swings through a rank-deficient position at t ≈ 0.32 s
// and stays on its branch: the run completes, conserving energy (no forces but gravity).
TEST(NumericsHardening, BaumgarteFollowsTheDeltaRobotThroughItsSingularPosition) {
  const Scene scene =
      load_scene(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/robots/delta.json");
  const Model m = compile(scene);
  double E0 = NAN, drift = 0.0;
  const SimulationResult r =
      simulate(m, SimulationOptions::from_settings(scene.settings), [&](const Sample& s) {
        if (std::isnan(E0)) E0 = s.energy;
        drift = std::max(drift, std::abs(s.energy - E0));
      });
  EXPECT_EQ(r.status, SimulationStatus::Completed) << r.message;
  EXPECT_LT(drift, 1e-8);
}

TEST(NumericsHardening, ProjectionFollowsTheSingularPosition) {
  const Model m = parallelogram(R"({"type": "projection"})");
  SimulationOptions o = SimulationOptions::from_settings(Settings{});
  o.stabilization.type = Stabilization::Type::Projection;
  o.integrator.method = "dopri5";
  o.integrator.duration = 1.5;  // past three flat positions
  o.integrator.dt = 0.01;
  double worst = 0.0;
  const SimulationResult r =
      simulate(m, o, [&](const Sample& s) { worst = std::max(worst, s.violation_position); });
  EXPECT_EQ(r.status, SimulationStatus::Completed) << r.message;
  EXPECT_LT(worst, 1e-9);
}

// A particle on a rod with Baumgarte gains of 1e9: the violation's dynamics, ë + 2α ė + β² e
// = 0, have rates near 1e9 1/s, and an explicit integrator would need ~10⁸ steps for 0.1 s.
// The run stops early saying it is stiff; with gains of 10 the same run completes.
TEST(NumericsHardening, StiffBaumgarteIsReportedNotEndured) {
  const std::string scene = R"({"gravity": [0, 0, -9.81],
    "bodies": [{"name": "bob", "type": "particle", "mass": 0.7, "position": [1, 0, 0]}],
    "constraints": [{"name": "rod", "type": "distance", "bodies": ["world", "bob"],
                     "points": [[0, 0, 0], [1, 0, 0]]}]})";
  const Model m = load_model_from_string(scene, "rod.json");
  for (double gain : {1e9, 10.0}) {
    SimulationOptions o;
    o.formulation = Formulation::Pinv;
    o.stabilization = {Stabilization::Type::Baumgarte, gain, gain};
    o.integrator.method = "dopri5";
    o.integrator.duration = 0.1;
    o.integrator.dt = 1e-3;
    o.integrator.rtol = 1e-6;
    const SimulationResult r = simulate(m, o);
    if (gain > 1e6) {
      EXPECT_EQ(r.status, SimulationStatus::Stiff) << r.message;
      EXPECT_LT(r.steps, 5000);  // noticed within the first thousand steps
      EXPECT_NE(r.message.find("Baumgarte"), std::string::npos) << r.message;
    } else {
      EXPECT_EQ(r.status, SimulationStatus::Completed) << r.message;
    }
  }
}

// A long chain of joints is evaluated without any dense (rows × nu) matrix: Data does not
// make one, and neither do the tree's projection and the recursive formulation; pinv makes
// it when it runs.
TEST(NumericsHardening, DenseRowsOnlyForDenseFormulations) {
  const Model m = standard_chain(60);
  Data d(m);
  EXPECT_EQ(d.A.size(), 0);
  ProjectionReport rep;
  EXPECT_EQ(project_velocities(m, d, &rep), SolveStatus::Ok);
  EXPECT_EQ(rep.iterations, 0);
  EXPECT_LT(rep.residual, 1e-12);  // the joint rates satisfy the joints exactly
  EXPECT_EQ(forward(m, d, SolverOptions{Formulation::Recursive, {}}), SolveStatus::Ok);
  EXPECT_EQ(d.A.size(), 0);
  const Eigen::VectorXd recursive_udot = d.udot;
  EXPECT_EQ(forward(m, d, SolverOptions{Formulation::Pinv, {}}), SolveStatus::Ok);
  EXPECT_EQ(d.A.rows(), m.nrows());
  EXPECT_EQ(d.A.cols(), m.nu());
  EXPECT_LT((d.udot - recursive_udot).cwiseAbs().maxCoeff(),
            1e-8 * (1.0 + recursive_udot.cwiseAbs().maxCoeff()));
}

}  // namespace
}  // namespace appell
