// The whole `appell simulate` program on the standard chain (bench/chain_scenes.hpp), part of
// engines_bench (README, Benchmarks):
//   BM_SimulateCommand/n          rk4, dt 1 ms, 2 s, a traj.csv row every step (--out)
//   BM_SimulateCommandNoOutput/n  the same run with the summary only
// Each iteration runs the built program once, from reading the scene to renaming its
// outputs; the time reported to the ratio table is wall time per step (the program writes its
// rows on a second thread, so CPU time of this process would say nothing).  The scene is the
// chain in joint space (docs/scene-format.md, "Joint space"), checked against
// appell::standard_chain(n): the same body states at t = 0 to 1e-12, or the benchmark is
// skipped with an error.
#include <benchmark/benchmark.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "appell/appell.hpp"
#include "appell/standard_chain.hpp"

extern char** environ;

namespace appell {
namespace {

constexpr double kDuration = 2.0, kDt = 1e-3;
const long kSteps = std::lround(kDuration / kDt);

// the standard chain of n links as a scene: each joint places its link (origin, axis, q, qd)
std::string chain_scene(int n) {
  nlohmann::ordered_json bodies = nlohmann::ordered_json::array();
  nlohmann::ordered_json joints = nlohmann::ordered_json::array();
  for (int i = 1; i <= n; ++i) {
    const std::string link = "link" + std::to_string(i);
    bodies.push_back({{"name", link},
                      {"mass", 1.0},
                      {"inertia", {{"box", {0.05, 0.05, 0.2}}}},
                      {"com", {0, 0, -0.1}}});
    joints.push_back({{"name", "joint" + std::to_string(i)},
                      {"type", "revolute"},
                      {"bodies", {i == 1 ? "world" : "link" + std::to_string(i - 1), link}},
                      {"origin", {{"xyz", {0, 0, i == 1 ? 0.0 : -0.2}}}},
                      {"axis", i % 2 ? std::vector<int>{1, 0, 0} : std::vector<int>{0, 1, 0}},
                      {"q", 0.1 * std::sin(i)},
                      {"qd", 0.05 * std::cos(i)}});
  }
  nlohmann::ordered_json scene = {
      {"name", "standard chain " + std::to_string(n)},
      {"gravity", {0, 0, -9.81}},
      {"bodies", bodies},
      {"constraints", joints},
      {"integrator", {{"method", "rk4"}, {"duration", kDuration}, {"dt", kDt}}}};
  return scene.dump(1);
}

// the largest difference between the two models' body states at t = 0
double difference_at_start(const Model& a, const Model& b) {
  Data da(a), db(b);
  set_state(a, da, a.initial_state());
  set_state(b, db, b.initial_state());
  double worst = 0;
  for (int i = 0; i < a.nbody(); ++i) {
    const BodyState &p = da.body[i], &q = db.body[i];
    worst = std::max({worst, (p.x - q.x).cwiseAbs().maxCoeff(), (p.Q - q.Q).cwiseAbs().maxCoeff(),
                      (p.v - q.v).cwiseAbs().maxCoeff(), (p.w - q.w).cwiseAbs().maxCoeff()});
  }
  return worst;
}

// runs the program with `args`; its exit status (−1 when it could not run)
int run_program(std::vector<std::string> args) {
  args.insert(args.begin(), APPELL_CLI_PATH);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawn(&pid, APPELL_CLI_PATH, nullptr, nullptr, argv.data(), environ) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

void simulate_command(benchmark::State& st, bool out) {
  const int n = static_cast<int>(st.range(0));
  const std::string dir = "/tmp/appell_bench_" + std::to_string(getpid()) + "_";
  const std::string scene = dir + "chain" + std::to_string(n) + ".json";
  std::ofstream(scene) << chain_scene(n);
  const double diff = difference_at_start(load_model(scene), standard_chain(n));
  if (!(diff < 1e-12)) {
    st.SkipWithError(("the scene is not the standard chain: " + std::to_string(diff)).c_str());
    return;
  }
  std::vector<std::string> args = {"simulate", scene, "--quiet", "--summary", dir + "summary.json"};
  if (out) args.insert(args.end(), {"--out", dir + "traj.csv"});
  for (auto _ : st) {
    // a fresh traj.csv each time: ext4 writes back a file renamed over an existing one at
    // once, a cost of the file system's, not of the program
    st.PauseTiming();
    std::remove((dir + "traj.csv").c_str());
    st.ResumeTiming();
    if (run_program(args) != 0) {
      st.SkipWithError("appell simulate failed");
      break;
    }
  }
  st.counters["bodies"] = n;
  st.counters["steps_per_iteration"] = static_cast<double>(kSteps);
  for (const char* f : {"summary.json", "traj.csv"}) std::remove((dir + f).c_str());
  std::remove(scene.c_str());
}

void BM_SimulateCommand(benchmark::State& st) {
  simulate_command(st, true);
}
void BM_SimulateCommandNoOutput(benchmark::State& st) {
  simulate_command(st, false);
}
BENCHMARK(BM_SimulateCommand)->Arg(10)->Arg(100)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulateCommandNoOutput)
    ->Arg(10)
    ->Arg(100)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace appell
