// The integrators' registry (appell/integrators.hpp): every registered method runs a
// falling body to its closed form, the scene reader, Simulation and the CLI accept exactly
// the registered names and list them when refusing another, and the one that steps
// unilateral rows is the default of a scene with a joint limit.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/integrators.hpp>
#include <appell/lagrangian_scene.hpp>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.hpp"

namespace {

using appell::testing::CliResult;
using appell::testing::run_cli;
using appell::testing::write_temp;

// a body thrown upwards under gravity: x(t) = x0 + v0 t + ½ g t²
const char* kThrown = R"({
  "gravity": [0, 0, -9.81],
  "bodies": [{"name": "b", "mass": 1, "inertia": {"principal": [1, 1, 1]},
              "position": [0, 0, 1], "velocity": [0.5, 0, 3]}]
})";

TEST(Integrators, TheRegistryListsEachOnce) {
  std::string names;
  for (const appell::IntegratorInfo& i : appell::integrators()) {
    EXPECT_EQ(appell::find_integrator(i.name), &i);
    names += std::string(names.empty() ? "" : " ") + i.name;
  }
  EXPECT_EQ(names, "rk4 dopri5 rkf78 rosenbrock moreau");
  EXPECT_EQ(appell::integrator_names(), "rk4, dopri5, rkf78, rosenbrock or moreau");
  EXPECT_EQ(appell::integrator_names(true), "rk4 or dopri5");
  EXPECT_EQ(appell::find_integrator("euler"), nullptr);
}

TEST(Integrators, EveryRegisteredMethodFollowsTheClosedForm) {
  const appell::Model m = appell::load_model_from_string(kThrown, "thrown.json");
  for (const appell::IntegratorInfo& i : appell::integrators()) {
    appell::SimulationOptions o;
    o.integrator.method = i.name;
    o.integrator.method_given = true;
    o.integrator.dt = 1e-3;
    o.integrator.duration = 0.5;
    appell::Simulation sim(m, o);
    double worst = 0.0;
    const appell::SimulationResult r = sim.run([&](const appell::Sample& s) {
      const double t = s.t;
      const Eigen::Vector3d x(0.5 * t, 0, 1 + 3 * t - 0.5 * 9.81 * t * t);
      worst = std::max(worst, (s.data.body[0].x - x).norm());
    });
    ASSERT_TRUE(r.ok()) << i.name << ": " << r.message;
    EXPECT_EQ(sim.method(), i.name);
    // the smooth methods are exact on a quadratic to round-off; a velocity-level time
    // stepping scheme is first order in dt
    EXPECT_LE(worst, i.unilateral ? 5e-3 : 1e-10) << i.name;
  }
}

TEST(Integrators, UnknownMethodsAreRefusedWithTheRegisteredNames) {
  // the scene reader
  const std::string scene = std::string(kThrown).insert(std::string(kThrown).rfind('}'),
                                                        R"(, "integrator": {"method": "euler"})");
  try {
    appell::load_scene_from_string(scene, "thrown.json");
    ADD_FAILURE() << "an unknown method was accepted";
  } catch (const appell::SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("/integrator/method: unknown method 'euler'; expected " +
                                         appell::integrator_names()),
              std::string::npos)
        << e.what();
  }
  // Simulation
  appell::SimulationOptions o;
  o.integrator.method = "euler";
  const appell::Model m = appell::load_model_from_string(kThrown, "thrown.json");
  try {
    appell::Simulation sim(m, o);
    ADD_FAILURE() << "an unknown method was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "Simulation(): integrator.method must be " +
                                         appell::integrator_names() + ", got 'euler'");
  }
  // the CLI, and a Lagrangian system (the methods that integrate quasi-velocities)
  const std::string path = write_temp("thrown.json", kThrown);
  CliResult r = run_cli("simulate " + path + " --integrator euler --quiet");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("expected " + appell::integrator_names()), std::string::npos) << r.err;
  for (const appell::IntegratorInfo& i : appell::integrators()) {
    r = run_cli("simulate " + path + " --integrator " + i.name + " --duration 0.01 --quiet");
    EXPECT_EQ(r.status, 0) << i.name << ": " << r.err;
  }
  const std::string lagrangian =
      std::string(APPELL_SOURCE_DIR) + "/scenes/examples/lagrangian/spherical_pendulum.json";
  r = run_cli("simulate " + lagrangian + " --integrator rkf78 --quiet");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("integrates with " + appell::integrator_names(true) + ", got 'rkf78'"),
            std::string::npos)
      << r.err;
}

// a Lagrangian system run by dopri5 for one output interval (it crashed: odeint's
// integrate_const interpolated before its first step); the energy is conserved
TEST(Integrators, ADenseOutputRunOfOneIntervalConservesEnergy) {
  const std::string scene =
      std::string(APPELL_SOURCE_DIR) + "/scenes/examples/lagrangian/spherical_pendulum.json";
  for (const char* duration : {"0.01", "0.015"}) {
    const std::string out = write_temp("one_interval.csv", "");
    const CliResult r =
        run_cli("simulate " + scene + " --duration " + duration + " --quiet --out " + out);
    ASSERT_EQ(r.status, 0) << duration << ": " << r.err;
    std::istringstream csv(appell::testing::read_file(out));
    std::string header, row;
    std::getline(csv, header);
    std::vector<double> energy;
    while (std::getline(csv, row)) {
      // energy is the third column from the end
      size_t at = row.size();
      for (int k = 0; k < 3; ++k) at = row.rfind(',', at - 1);
      energy.push_back(std::stod(row.substr(at + 1)));
    }
    ASSERT_EQ(energy.size(), 2u) << duration;
    EXPECT_NEAR(energy[1], energy[0], 1e-9) << duration;
  }
}

TEST(Integrators, UnilateralRowsDefaultToTheMethodThatStepsThem) {
  const appell::Model m = appell::compile(
      appell::load_scene(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/limits_pendulum.json"));
  appell::SimulationOptions o;
  o.integrator.duration = 0.01;
  const appell::Simulation sim(m, o);
  const appell::IntegratorInfo* used = appell::find_integrator(sim.method());
  ASSERT_NE(used, nullptr);
  EXPECT_TRUE(used->unilateral);
}

}  // namespace
