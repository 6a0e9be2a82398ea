// Simulation runs (appell/simulation.hpp): the initial velocity projected, the output
// times, the stops and their status, refused options, the examples, and stepping by hand.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/trajectory.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "tests/simulation_scenes.hpp"

namespace {

using appell::compile;
using appell::Formulation;
using appell::Model;
using appell::Sample;
using appell::Scene;
using appell::SimulationOptions;
using appell::SimulationResult;
using appell::SimulationStatus;
using appell::Vec3;
using appell::testing::angular_momentum;
using appell::testing::double_pendulum;
using appell::testing::options;
using appell::testing::pendulum;

// Initial velocities off the constraint are projected in the mass metric: for the
// pendulum only the radial component is removed, ‖Δu‖_M = sqrt(m) |v_r|.
TEST(Simulation, InitialVelocityProjection) {
  const Vec3 x0(0.6, 0.0, -0.8), tangential(0.8, 0.3, 0.6), radial = 0.5 * x0;
  const Model m = compile(pendulum(x0, tangential + radial));
  Vec3 v_first;
  double pi_first = 1;
  const SimulationResult r = appell::simulate(m, options("rk4", 0.01, 0.01), [&](const Sample& s) {
    if (s.index == 0) v_first = s.data.body[0].v, pi_first = s.violation_velocity;
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_NEAR(r.initial_velocity_correction, std::sqrt(0.7) * radial.norm(), 1e-14);
  EXPECT_LT((v_first - tangential).norm(), 1e-14);
  EXPECT_LT(pi_first, 1e-14);
}

// Output instants: t = 0, every N-th step or instant, and the final time.
TEST(Simulation, OutputEverySemantics) {
  const Model m = compile(pendulum(Vec3(0.6, 0.0, -0.8), Vec3(0.0, 1.3, 0.0)));
  for (const char* method : {"rk4", "dopri5", "rkf78"}) {
    SimulationOptions o = options(method, 1.05, 0.1);
    o.every = 3;
    std::vector<double> times;
    const SimulationResult r =
        appell::simulate(m, o, [&](const Sample& s) { times.push_back(s.t); });
    ASSERT_TRUE(r.ok()) << r.message;
    const std::vector<double> expected = {0.0, 0.3, 0.6, 0.9, 1.05};
    ASSERT_EQ(times.size(), expected.size()) << method;
    for (size_t i = 0; i < times.size(); ++i) EXPECT_NEAR(times[i], expected[i], 1e-15) << method;
    if (std::string(method) == "rk4") {
      EXPECT_EQ(r.steps, 11);
      EXPECT_EQ(r.rhs_evaluations, 44);
    }
  }
}

// A stiff spring with a coarse rk4 step blows up: the run stops, says when and why, and
// the samples before the failure were delivered.
TEST(Simulation, BlowUpStopsWithStatus) {
  const Model m = appell::load_model_from_string(R"({"bodies": [
      {"name": "p", "type": "particle", "mass": 1, "position": [0, 0, -1.1]}],
    "forces": [{"type": "spring", "bodies": ["world", "p"], "points": [[0, 0, 0], [0, 0, -1.1]],
                "stiffness": 1e8, "rest_length": 1.0}]})");
  long samples = 0;
  double last_t = -1;
  const SimulationResult r = appell::simulate(m, options("rk4", 10.0, 0.01), [&](const Sample& s) {
    ++samples;
    last_t = s.t;
  });
  EXPECT_EQ(r.status, SimulationStatus::NotFinite);
  EXPECT_GT(r.t, 0.0);
  EXPECT_LT(r.t, 10.0);
  EXPECT_GT(samples, 2);
  EXPECT_LE(last_t, r.t);
  EXPECT_FALSE(r.message.empty());
}

// A force that becomes infinite at t = 0.5: the adaptive steppers shrink the step and
// stop there.
TEST(Simulation, SingularForceStopsAdaptiveStepper) {
  appell::ModelBuilder m;
  appell::Body b;
  b.name = "p";
  b.type = appell::BodyType::Particle;
  m.add_body(b);
  m.add_force(std::make_shared<appell::CallableForce>(
      [](const appell::StateView& s, appell::SpatialForce* out) {
        out[0].force.x() += 1.0 / std::pow(0.5 - s.t, 3);
      }));
  for (const char* method : {"dopri5", "rkf78"}) {
    const SimulationResult r = appell::simulate(compile(m), options(method, 1.0, 0.1));
    EXPECT_NE(r.status, SimulationStatus::Completed) << method;
    EXPECT_NEAR(r.t, 0.5, 1e-3) << method << ": " << r.message;
  }
}

TEST(Simulation, BadOptionsThrow) {
  const Model m = compile(pendulum(Vec3(0.6, 0.0, -0.8), Vec3::Zero()));
  EXPECT_THROW(appell::Simulation(m, options("euler", 1, 0.1)), std::invalid_argument);
  EXPECT_THROW(appell::Simulation(m, options("rk4", 1, 0.0)), std::invalid_argument);
}

}  // namespace

namespace {

std::string example(const char* name) {
  return std::string(APPELL_SOURCE_DIR) + "/scenes/examples/" + name;
}

// [HO21 §7]: a cylinder on a smooth horizontal plane.  The centre of mass moves at constant
// velocity, and the spin components Ω3 = ω·E3 and ω3 = ω·e3 are constant.
TEST(Simulation, CylinderOnSmoothPlaneMatchesHO21) {
  const Scene scene = appell::load_scene(example("cylinder_on_plane.json"));
  const Model m = compile(scene);
  Vec3 v0;
  double W0 = 0, w0 = 0, dv = 0, dW = 0, dw = 0;
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.integrator.duration = 2.0;
  const SimulationResult r = appell::simulate(m, o, [&](const Sample& s) {
    const appell::BodyState& b = s.data.body[0];
    const double W = b.w.z(), w = b.w.dot(b.Q.col(2));
    if (s.index == 0) v0 = b.v, W0 = W, w0 = w;
    dv = std::max(dv, (b.v - v0).norm());
    dW = std::max(dW, std::abs(W - W0));
    dw = std::max(dw, std::abs(w - w0));
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT(dv, 1e-9);
  EXPECT_LT(dW, 1e-8);
  EXPECT_LT(dw, 1e-8);
}

// The heavy symmetric top: energy, the vertical angular momentum about the pivot and the
// spin ω·e3 are the Lagrange top's three integrals.
TEST(Simulation, HeavyTopKeepsLagrangeIntegrals) {
  const Scene scene = appell::load_scene(example("heavy_top.json"));
  const Model m = compile(scene);
  double E0 = 0, Lz0 = 0, s0 = 0, dE = 0, dLz = 0, ds = 0;
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.integrator.duration = 1.0;
  const SimulationResult r = appell::simulate(m, o, [&](const Sample& s) {
    const appell::BodyState& b = s.data.body[0];
    const double Lz = angular_momentum(m, s.data).z(), spin = b.w.dot(b.Q.col(2));
    if (s.index == 0) E0 = s.energy, Lz0 = Lz, s0 = spin;
    dE = std::max(dE, std::abs(s.energy - E0));
    dLz = std::max(dLz, std::abs(Lz - Lz0));
    ds = std::max(ds, std::abs(spin - s0));
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT(dE, 1e-8);
  EXPECT_LT(dLz, 1e-9);
  EXPECT_LT(ds, 1e-7);
}

// Every example loads, is consistent at t = 0 and runs.
TEST(Simulation, ExamplesRun) {
  for (const char* name :
       {"spherical_pendulum.json", "cylinder_on_plane.json", "double_pendulum.json",
        "chain_3d.json", "four_bar.json", "heavy_top.json"}) {
    const Scene scene = appell::load_scene(example(name));
    const Model m = compile(scene);
    SimulationOptions o = SimulationOptions::from_settings(scene.settings);
    o.integrator.duration = 0.05;
    const SimulationResult r = appell::simulate(m, o);
    EXPECT_TRUE(r.ok()) << name << ": " << r.message;
    EXPECT_LT(r.initial_velocity_correction, 1e-12) << name;
  }
}

}  // namespace

namespace {

// v_x = 0 and v_x = −1 at once: no velocity satisfies both; the run stops at t = 0.
// (built in code: the scene loader refuses such a scene, scene_loader_test.cpp)
TEST(Simulation, ContradictoryConstraintsStopAtStart) {
  appell::ModelBuilder b;
  appell::Body p;
  p.name = "p";
  p.type = appell::BodyType::Particle;
  p.mass = 1;
  const int i = b.add_body(p);
  using appell::LinearConstraint;
  for (const auto& [name, e] : {std::make_pair("still", 0.0), std::make_pair("moving", 1.0)})
    b.add_constraint(std::make_shared<LinearConstraint>(name, i, b.initial_state(i), Vec3::Zero(),
                                                        Vec3::UnitX(), Vec3::Zero(), e,
                                                        LinearConstraint::Frame::World));
  const Model m = appell::compile(b);
  const SimulationResult r = appell::simulate(m, options("rk4", 1.0, 0.1));
  EXPECT_EQ(r.status, SimulationStatus::Inconsistent) << r.message;
  EXPECT_EQ(r.t, 0.0);
  EXPECT_NE(r.message.find("velocit"), std::string::npos) << r.message;
}

}  // namespace

namespace {

// Driving the loop by hand gives exactly what run() gives.
TEST(Simulation, SteppingMatchesRun) {
  const Model m = compile(double_pendulum(R"({"type": "projection"})"));
  for (const char* method : {"rk4", "dopri5", "rkf78"}) {
    const SimulationOptions o = options(method, 0.5, 0.01);
    appell::Simulation a(m, o), b(m, o);
    std::vector<double> ta, tb;
    const SimulationResult ra = a.run([&](const Sample& s) { ta.push_back(s.t); });
    ASSERT_TRUE(b.start([&](const Sample& s) { tb.push_back(s.t); }));
    long steps = 0;
    while (b.step([&](const Sample& s) { tb.push_back(s.t); })) {
      ++steps;
      EXPECT_TRUE(b.running() || b.time() == 0.5);
    }
    EXPECT_FALSE(b.running());
    EXPECT_TRUE(b.result().ok()) << b.result().message;
    EXPECT_EQ(steps, ra.steps) << method;
    EXPECT_EQ(b.result().rhs_evaluations, ra.rhs_evaluations) << method;
    EXPECT_EQ(ta, tb) << method;
    EXPECT_EQ(a.state(), b.state()) << method;
    EXPECT_EQ(b.time(), 0.5);
  }
}

}  // namespace
