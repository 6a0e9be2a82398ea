// sweep() (appell/sweep.hpp) against serial simulate() calls, and the JSON-Pointer
// overrides (appell/overrides.hpp) against the scenes written out by hand.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/overrides.hpp>
#include <appell/trajectory.hpp>
#include <atomic>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace appell;

// a pendulum on a rod of length 1; the bob's velocity and the run's settings in the text
constexpr char kPendulum[] = R"({"name": "pendulum", "gravity": [0, 0, -9.81],
  "bodies": [{"name": "bob", "type": "particle", "mass": 1.0, "position": [0, 0, -1],
              "velocity": [0, 1, 0]}],
  "constraints": [{"name": "rod", "type": "distance", "bodies": ["world", "bob"],
                   "points": [[0, 0, 0], [0, 0, -1]]}],
  "solver": {"formulation": "pinv"},
  "integrator": {"method": "dopri5", "duration": 0.7, "dt": 0.05}})";

std::shared_ptr<const Model> model_of(const Scene& s) {
  return std::make_shared<const Model>(compile(s));
}

// every sample of one run, recorded by a plain simulate()
std::vector<double> serial(const Model& m, const State& s, const SimulationOptions& o) {
  Trajectory tr(m);
  simulate(m, s, o, [&](const Sample& x) { tr.record(x); });
  return tr.values();
}

TEST(Sweep, EqualsSerialRunsBitForBitOnAnyNumberOfThreads) {
  const Scene scene = load_scene_from_string(kPendulum);
  const auto m = model_of(scene);
  const SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  std::vector<SweepRun> runs;
  for (int k = 0; k < 16; ++k) {
    State s = m->initial_state();
    s.u *= 0.5 + 0.3 * k;  // from a gentle swing to going over the top
    runs.push_back({m, s, o});
  }
  for (int threads : {1, 2, 3}) {
    SweepOptions so;
    so.threads = threads;
    so.record = true;
    const std::vector<SweepOutcome> out = sweep(runs, so);
    ASSERT_EQ(out.size(), runs.size());
    for (size_t i = 0; i < runs.size(); ++i) {
      ASSERT_TRUE(out[i].ran && out[i].result.ok());
      EXPECT_EQ(out[i].trajectory->values(), serial(*m, *runs[i].initial, o)) << i;
      // the summary's final state is the last sample's
      const std::vector<double> x = out[i].trajectory->column("bob.x");
      EXPECT_EQ(out[i].summary.final_bodies[0].x.x(), x.back());
    }
  }
}

TEST(Sweep, SummaryFollowsTheSamples) {
  const Scene scene = load_scene_from_string(kPendulum);
  const auto m = model_of(scene);
  SweepOptions so;
  so.record = true;
  const SweepOutcome o =
      sweep({{m, std::nullopt, SimulationOptions::from_settings(scene.settings)}}, so)[0];
  const std::vector<double> E = o.trajectory->column("energy");
  double drift = 0;
  for (double e : E) drift = std::max(drift, std::abs(e - E[0]));
  EXPECT_EQ(o.summary.energy_initial, E.front());
  EXPECT_EQ(o.summary.energy_final, E.back());
  EXPECT_EQ(o.summary.max_abs_energy_drift, drift);
  EXPECT_EQ(o.summary.samples, static_cast<long>(E.size()));
  // the rod does no work: energy is conserved to the integrator's tolerance
  EXPECT_LT(drift, 1e-6);
}

TEST(Sweep, BadRunsAreRefusedBeforeAnyStarts) {
  const Scene scene = load_scene_from_string(kPendulum);
  SimulationOptions bad = SimulationOptions::from_settings(scene.settings);
  bad.integrator.dt = -1;
  std::vector<SweepRun> runs{{model_of(scene), std::nullopt, bad}};
  EXPECT_THROW(sweep(runs), std::invalid_argument);
  runs[0].model = nullptr;
  EXPECT_THROW(sweep(runs), std::invalid_argument);
}

TEST(Sweep, AnExceptionInARunStopsTheSweepAndIsRethrown) {
  ModelBuilder b;
  Body bob;
  bob.name = "bob";
  bob.type = BodyType::Particle;
  b.add_body(bob);
  std::atomic<int> calls{0};
  b.add_force(std::make_shared<CallableForce>([&](const StateView&, SpatialForce*) {
    if (++calls > 50) throw std::runtime_error("force failed");
  }));
  const auto m = std::make_shared<const Model>(compile(b));
  std::vector<SweepRun> runs(20, SweepRun{m, std::nullopt, SimulationOptions{}});
  SweepOptions so;
  so.threads = 2;
  EXPECT_THROW(sweep(runs, so), std::runtime_error);
}

TEST(Sweep, ProgressReachesTheTotal) {
  const Scene scene = load_scene_from_string(kPendulum);
  const auto m = model_of(scene);
  std::vector<SweepRun> runs(
      6, SweepRun{m, std::nullopt, SimulationOptions::from_settings(scene.settings)});
  size_t last = 0;
  SweepOptions so;
  so.progress = [&](size_t done, size_t total) {
    EXPECT_EQ(total, 6u);
    last = done;
    return true;
  };
  sweep(runs, so);
  EXPECT_EQ(last, 6u);
}

TEST(Overrides, EqualTheSceneWrittenByHand) {
  std::string by_hand = kPendulum;
  by_hand.replace(by_hand.find(R"("mass": 1.0)"), 11, R"("mass": 2.5)");
  by_hand.replace(by_hand.find(R"("velocity": [0, 1, 0])"), 21, R"("velocity": [0, 3, 0])");
  const Scene a = load_scene_with_overrides(
      kPendulum, "p.json",
      {{"/bodies/0/mass", "2.5"}, {"/bodies/0/velocity", "[0, 3, 0]"}, {"/output/every", "2"}});
  const Scene b = load_scene_from_string(by_hand);
  EXPECT_EQ(a.model.bodies()[0].mass, b.model.bodies()[0].mass);
  EXPECT_EQ(a.model.bodies()[0].velocity, b.model.bodies()[0].velocity);
  EXPECT_EQ(a.settings.output.every, 2);  // a key made in an object made on the way
  // "~1" is "/" in a pointer (RFC 6901 §4): a body named "a/b"
  std::string slash = kPendulum;
  slash.replace(slash.find(R"("name": "pendulum")"), 18, R"("name": "x", "a/b": 1)");
  try {
    load_scene_with_overrides(slash, "p.json", {{"/a~1b", "2"}});
    FAIL();
  } catch (const SceneError& e) {
    // the loader refuses the unknown key, where it is, with the key escaped (RFC 6901)
    EXPECT_EQ(e.pointer(), "/a~1b");
  }
}

TEST(Overrides, ErrorsNameThePointer) {
  const auto message = [](const std::string& ptr, const std::string& value) {
    try {
      load_scene_with_overrides(kPendulum, "p.json", {{ptr, value}});
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("/bodies/0/mass", "-1"), "p.json: /bodies/0/mass: must be > 0, got -1");
  EXPECT_EQ(message("/bodies/1/mass", "1"),
            "p.json: /bodies/1/mass: no element '1' in the array at /bodies (it has 1)");
  EXPECT_EQ(message("/bodies/01/mass", "1"),
            "p.json: /bodies/01/mass: no element '01' in the array at /bodies (it has 1)");
  EXPECT_EQ(message("/name/x", "1"),
            "p.json: /name/x: the value at /name is a string, not an object or an array");
  EXPECT_EQ(message("bodies", "1"),
            "p.json: bodies: malformed JSON Pointer: must start with '/', e.g. /bodies/0/mass");
  EXPECT_EQ(message("/bodies/0/mass", "1..2"),
            "p.json: /bodies/0/mass: the new value '1..2' is not JSON");
  EXPECT_EQ(message("/a~2", "1"),
            "p.json: /a~2: malformed JSON Pointer: '~' must be followed by 0 or 1");
}

TEST(Overrides, SetValues) {
  EXPECT_EQ(parse_set_values("/m", "1:2:5"),
            (std::vector<std::string>{"1", "1.25", "1.5", "1.75", "2"}));
  EXPECT_EQ(parse_set_values("/m", "3:4:1"), std::vector<std::string>{"3"});
  EXPECT_EQ(parse_set_values("/v", "[0,1,0],[0,2,0]"),
            (std::vector<std::string>{"[0,1,0]", "[0,2,0]"}));
  EXPECT_EQ(parse_set_values("/f", "pinv,sparse"),
            (std::vector<std::string>{"\"pinv\"", "\"sparse\""}));
  EXPECT_EQ(parse_set_values("/s", R"("a,b")"), std::vector<std::string>{R"("a,b")"});
  EXPECT_THROW(parse_set_values("/m", "1:2"), SceneError);
  EXPECT_THROW(parse_set_values("/m", "1:2:0"), SceneError);
  EXPECT_THROW(parse_set_values("/m", "1:inf:3"), SceneError);
  EXPECT_THROW(parse_set_values("/m", "1,,2"), SceneError);
  EXPECT_THROW(parse_set_values("/m", ""), SceneError);
  EXPECT_THROW(parse_set_values("/v", "[0,1"), SceneError);
}

}  // namespace
