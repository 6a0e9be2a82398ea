// A run in joint space from start to output: the projections onto closed loops in joint
// coordinates (engine/formulations/projection.hpp, J-P1 and J-P2) against the manifold and
// the maximal projection (P3); one initial_conditions() shared by simulation, `appell eval`
// and scene loading; the joint columns read from the state against those re-derived from
// the body states.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/joint_columns.hpp>
#include <appell/state_space.hpp>
#include <appell/trajectory.hpp>
#include <appell/tree.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "cli_util.hpp"
#include "engine/formulations/projection.hpp"

namespace {

using namespace appell;
using namespace appell::testing;

SolverOptions with(Formulation f) {
  SolverOptions o;
  o.formulation = f;
  return o;
}

std::string example(const std::string& name) {
  return std::string(APPELL_SOURCE_DIR) + "/scenes/examples/" + name;
}

// The largest |g| of every holonomic row at s, formed in maximal coordinates by pinv: a
// measure independent of the joint-space code under test.
double violation(const Model& m, const State& s) {
  Data d(m);
  forward(m, d, s, with(Formulation::Pinv));
  return max_position_violation(m, d);
}

// the maximal u of the joint state (q, u)
Eigen::VectorXd maximal_u(const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& u) {
  Data d(m);
  set_state(m, d, State{0.0, q, u});
  return d.u;
}

// Closed loops: a planar four-bar (redundant rows) and the delta robot (three spatial loops).
class JointSpaceLoops : public ::testing::TestWithParam<const char*> {};

TEST_P(JointSpaceLoops, PositionProjectionPutsTheLoopBackOnItsManifold) {
  const Model m = compile(load_scene(example(GetParam())));
  ASSERT_GT(m.tree().nrows_extra, 0);
  SolverOptions o = with(Formulation::Recursive);
  o.stabilization.type = Stabilization::Type::Projection;
  const auto ss = make_state_space(m, o);
  Data d(m);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  Eigen::VectorXd x;
  ss->from_state(m.initial_state(), x, d);
  for (int i = 0; i < m.tree().nq; ++i) x(i) += 2e-3 * U(rng);  // the loops open
  ss->normalize(x);
  const auto state = [&](const Eigen::VectorXd& y) {
    return State{0.0, y.head(m.tree().nq), y.tail(m.tree().nu)};
  };
  ASSERT_GT(violation(m, state(x)), 1e-5);
  ASSERT_EQ(ss->project(x, 0.0, d), SolveStatus::Ok) << d.diagnostics.message;
  EXPECT_LE(violation(m, state(x)), 1e-12);
}

TEST_P(JointSpaceLoops, VelocityProjectionIsTheMaximalOne) {
  const Model m = compile(load_scene(example(GetParam())));
  const State s0 = m.initial_state();
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  Eigen::VectorXd u = s0.u;
  for (int i = 0; i < u.size(); ++i) u(i) += U(rng);  // the loops' velocity rows violated
  // maximal coordinates, every row (P3)
  Data dm(m);
  set_state(m, dm, State{0.0, s0.q, u});
  ProjectionReport maximal;
  ASSERT_EQ(project_velocities(m, dm, &maximal), SolveStatus::Ok);
  // joint coordinates, the extra rows (J-P2)
  Data dj(m);
  dj.t = 0.0;
  Eigen::VectorXd uj = u;
  ProjectionReport joint;
  ASSERT_EQ(project_joint_velocities(m, dj, s0.q, uj, &joint), SolveStatus::Ok);
  EXPECT_GT(joint.correction, 1e-2);  // it moved
  // the same velocities, and the same (least) change in the mass metric
  const Eigen::VectorXd uj_max = maximal_u(m, s0.q, uj);
  EXPECT_LE((uj_max - dm.u).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + dm.u.cwiseAbs().maxCoeff()));
  EXPECT_NEAR(joint.correction, maximal.correction, 1e-9 * maximal.correction);
  EXPECT_LE(joint.residual, 1e-12 * (1.0 + uj.cwiseAbs().maxCoeff()));
}

INSTANTIATE_TEST_SUITE_P(Scenes, JointSpaceLoops,
                         ::testing::Values("four_bar.json", "robots/delta.json"),
                         [](const auto& info) {
                           std::string n = info.param;
                           n = n.substr(n.find('/') + 1);
                           return n.substr(0, n.find('.'));
                         });

// the four-bar with a rocker spinning the wrong way: velocities the loop does not allow
std::string inconsistent_four_bar() {
  std::string text = read_file(example("four_bar.json"));
  const std::string from = "\"angular_velocity\": [0, 2, 0]";
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos);
  text.replace(at, from.size(), "\"angular_velocity\": [0, -1, 0]");
  return text;
}

TEST(InitialConditions, SimulationEvalAndSceneLoadingStartAlike) {
  const std::string path = write_temp("jspace_four_bar.json", inconsistent_four_bar());
  const Model m = compile(load_scene(path));  // scene loading accepts it (projectable)
  Data d(m);
  InitialConditions ic;
  ASSERT_EQ(initial_conditions(m, d, m.initial_state(), with(Formulation::Recursive), &ic),
            SolveStatus::Ok);
  ASSERT_GT(ic.velocity_correction, 1e-2);
  EXPECT_EQ(ic.state.q, m.initial_state().q);  // positions as given
  // the velocity rows hold at the start, measured in maximal coordinates
  Data check(m);
  forward(m, check, ic.state, with(Formulation::Pinv));
  EXPECT_LE(check.velocity_residual.cwiseAbs().maxCoeff(), 1e-12);

  for (Formulation f : {Formulation::Recursive, Formulation::Pinv}) {
    SimulationOptions o;
    o.formulation = f;
    o.integrator.method = "rk4";
    o.integrator.dt = 1e-3;
    o.integrator.duration = 1e-3;
    std::vector<BodyState> first;
    bool has_state = false;
    const SimulationResult r = simulate(m, o, [&](const Sample& s) {
      if (s.index != 0) return;
      first = s.data.body;
      has_state = s.state != nullptr;
      if (s.state) {
        EXPECT_EQ(s.state->q, ic.state.q);
        EXPECT_LE((s.state->u - ic.state.u).cwiseAbs().maxCoeff(), 1e-14);
      }
    });
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(has_state, f == Formulation::Recursive);  // a joint-space run carries its state
    EXPECT_NEAR(r.initial_velocity_correction, ic.velocity_correction, 1e-12);
    for (int i = 0; i < m.nbody(); ++i) {
      EXPECT_LE((first[i].v - d.body[i].v).norm(), 1e-12) << i;
      EXPECT_LE((first[i].w - d.body[i].w).norm(), 1e-12) << i;
    }
  }

  // `appell eval`: the accelerations at the same start
  const CliResult e = run_cli("eval --json --formulation recursive " + path);
  ASSERT_EQ(e.status, 0) << e.err;
  const nlohmann::json j = nlohmann::json::parse(e.out);
  for (int i = 0; i < m.nbody(); ++i) {
    Vec3 a, alpha;
    body_acceleration(m, d, i, a, alpha);
    const auto& b = j["bodies"][m.bodies()[i].name];
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(b["linear_acceleration"][k].get<double>(), a(k), 1e-9 * (1 + a.norm()));
      EXPECT_NEAR(b["angular_acceleration"][k].get<double>(), alpha(k), 1e-9 * (1 + alpha.norm()));
    }
  }
}

TEST(InitialConditions, OpenLoopsAreRefusedAlikeByRunsAndInitialConditions) {
  const Model m = compile(load_scene(example("four_bar.json")));
  ASSERT_EQ(m.tree().extra.size(), 1u);
  const std::string loop = m.constraints()[m.tree().extra[0]]->name();
  State s = m.initial_state();
  s.q(0) += 0.01;  // the crank turns, the loop opens
  Data d(m);
  InitialConditions ic;
  EXPECT_EQ(initial_conditions(m, d, s, {}, &ic), SolveStatus::Inconsistent);
  EXPECT_EQ(ic.violated_constraint, m.tree().extra[0]);
  EXPECT_NEAR(ic.position_violation, violation(m, s), 1e-12);
  EXPECT_NE(d.diagnostics.message.find("'" + loop + "'"), std::string::npos)
      << d.diagnostics.message;
  SimulationOptions o;
  o.integrator.duration = 0.01;
  const SimulationResult r = simulate(m, s, o);
  EXPECT_EQ(r.status, SimulationStatus::Inconsistent);
  EXPECT_EQ(r.message, d.diagnostics.message);
}

// traj.csv's and forces.csv's joint columns from the state equal those from the bodies
TEST(JointColumnsFromState, EqualTheColumnsOfTheBodyStates) {
  for (const char* scene : {"robots/quadruped.json", "robots/seven_dof_arm.json", "four_bar.json",
                            "joint_actuators.json"}) {
    const Model m = compile(load_scene(example(scene)));
    SampleRows state_rows(m, JointFrame::Child), body_rows(m, JointFrame::Child);
    SimulationOptions o;
    o.formulation = Formulation::Recursive;
    o.integrator.method = "rk4";
    o.integrator.dt = 1e-3;
    o.integrator.duration = 0.05;
    std::vector<double> from_state, from_bodies, row;
    double worst = 0.0;
    int samples = 0;
    const SimulationResult r = simulate(m, o, [&](const Sample& s) {
      ASSERT_NE(s.state, nullptr);
      Sample bodies_only = s;
      bodies_only.state = nullptr;  // the joint columns from the body states
      state_rows.traj(s, from_state);
      state_rows.forces(s, row);
      from_state.insert(from_state.end(), row.begin(), row.end());
      body_rows.traj(bodies_only, from_bodies);
      body_rows.forces(bodies_only, row);
      from_bodies.insert(from_bodies.end(), row.begin(), row.end());
      ASSERT_EQ(from_state.size(), from_bodies.size());
      for (size_t k = 0; k < from_state.size(); ++k)
        worst = std::max(
            worst, std::abs(from_state[k] - from_bodies[k]) / (1.0 + std::abs(from_bodies[k])));
      ++samples;
    });
    ASSERT_TRUE(r.ok()) << scene << ": " << r.message;
    EXPECT_GT(samples, 10);
    EXPECT_LE(worst, 1e-12) << scene;
  }
}

}  // namespace
