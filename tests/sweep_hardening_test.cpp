// `appell sweep` and appell::sweep() under hostile conditions: threads that cannot start,
// huge run counts, outputs that are the scene or a full device, figures that overflow,
// bad --threads; and compile() refusing row counts an int cannot hold.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <appell/appell.hpp>
#include <appell/trajectory.hpp>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "tests/cli_util.hpp"
#include "tests/sanitized.hpp"

namespace {

using namespace appell;
using appell::testing::CliResult;
using appell::testing::read_file;
using appell::testing::run_cli;
using appell::testing::write_temp;

constexpr char kPendulum[] = R"({"name": "pendulum", "gravity": [0, 0, -9.81],
  "bodies": [{"name": "bob", "type": "particle", "mass": 1.0, "position": [0, 0, -1],
              "velocity": [0, 1, 0]}],
  "constraints": [{"name": "rod", "type": "distance", "bodies": ["world", "bob"],
                   "points": [[0, 0, 0], [0, 0, -1]]}],
  "integrator": {"method": "rk4", "duration": 0.2, "dt": 0.01}})";

// A particle of mass 1e300 pushed up by a constant force of 1.1 m g: every sample is
// finite, but the work done, E(t) − E(0) = F Δz, passes 1.8e308 while E(0) ≈ −1.5e308 and
// E(t) ≈ +5e307 (KE = ½ m (a t)² with a = 0.1 g: 0.5e300·(0.981·6100)² ≈ 1.8e307).
// The energy drift is therefore infinite: simulate exits 3 for it.
constexpr char kDriftOverflow[] = R"({"name": "overflow", "gravity": [0, 0, -9.81],
  "bodies": [{"name": "p", "type": "particle", "mass": 1e300, "position": [0, 0, -1.529e7]}],
  "forces": [{"type": "force", "body": "p", "vector": [0, 0, 1.0791e301]}],
  "integrator": {"method": "rk4", "duration": 6100, "dt": 10}})";

std::vector<SweepRun> pendulum_runs(int n) {
  const Scene scene = load_scene_from_string(kPendulum);
  auto m = std::make_shared<const Model>(compile(scene));
  const SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  std::vector<SweepRun> runs;
  for (int k = 0; k < n; ++k) {
    State s = m->initial_state();
    s.u *= 0.5 + 0.25 * k;
    runs.push_back({m, s, o});
  }
  return runs;
}

// ---- 1. threads that cannot start ----

TEST(SweepHardening, ThreadsThatCannotStartLeaveTheRunsToThoseThatDid) {
  const std::vector<SweepRun> runs = pendulum_runs(6);
  for (int can_start : {0, 1, 2}) {
    SweepOptions so;
    so.threads = 4;
    std::atomic<int> started{0};
    // the hook fails as std::thread does when the system refuses a thread
    so.start_thread = [&](std::function<void()> job) {
      if (started >= can_start)
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                                "thread refused");
      ++started;
      return std::thread(std::move(job));
    };
    int told_started = -1, told_wanted = -1;
    std::string why;
    so.fewer_threads = [&](int s, int w, const std::string& y) {
      told_started = s;
      told_wanted = w;
      why = y;
    };
    size_t last_done = 0;
    so.progress = [&](size_t done, size_t) {
      last_done = done;
      return true;
    };
    const std::vector<SweepOutcome> out = sweep(runs, so);
    EXPECT_EQ(told_started, can_start);
    EXPECT_EQ(told_wanted, 4);
    EXPECT_NE(why.find("thread refused"), std::string::npos) << why;
    EXPECT_EQ(last_done, runs.size());
    ASSERT_EQ(out.size(), runs.size());
    for (size_t i = 0; i < runs.size(); ++i) {
      // the same run alone, on this thread
      RunSummary alone;
      const SimulationResult r = simulate(*runs[i].model, *runs[i].initial, runs[i].options,
                                          [&](const Sample& s) { alone.record(s); });
      ASSERT_TRUE(out[i].ran && out[i].result.ok()) << can_start << " " << i;
      EXPECT_EQ(out[i].result.steps, r.steps);
      EXPECT_EQ(out[i].summary.energy_final, alone.energy_final);
    }
  }
}

TEST(SweepHardening, AnExceptionTellingOfFewerThreadsStopsTheSweepCleanly) {
  SweepOptions so;
  so.threads = 3;
  int calls = 0;
  so.start_thread = [&](std::function<void()> job) {
    if (++calls > 1) throw std::system_error(std::make_error_code(std::errc::not_enough_memory));
    return std::thread(std::move(job));
  };
  so.fewer_threads = [](int, int, const std::string&) { throw std::runtime_error("no, thanks"); };
  EXPECT_THROW(sweep(pendulum_runs(5), so), std::runtime_error);  // the worker is joined
}

// The real thing: a default thread stack (RLIMIT_STACK, 4 GB) larger than the address
// space allowed (RLIMIT_AS, 3 GB), so that every pthread_create fails with EAGAIN, root
// or not (RLIMIT_NPROC does not bind root).  The CLI runs on its main thread, says so,
// and writes the same rows as an unlimited run.
TEST(SweepHardening, CliRunsOnTheMainThreadWhenNoWorkerCanStart) {
#if APPELL_SANITIZED
  GTEST_SKIP() << "the sanitizers reserve more address space than RLIMIT_AS allows";
#else
  const std::string scene = write_temp("hard_threads.json", kPendulum);
  const std::string out = ::testing::TempDir() + "hard_threads.csv";
  const std::string args = "sweep " + scene + " --set /bodies/0/mass=1:2:3 --threads 2 --quiet";
  const CliResult free_run = run_cli(args);
  ASSERT_EQ(free_run.status, 0) << free_run.err;
  std::ofstream(out) << "old\n";
  const std::string cmd = "ulimit -s 4000000 && ulimit -v 3000000 && exec " +
                          std::string(APPELL_CLI_PATH) + " " + args + " --out " + out + " 2>" +
                          out + ".err";
  const int raw = std::system(("sh -c '" + cmd + "'").c_str());
  const std::string err = read_file(out + ".err");
  ASSERT_TRUE(WIFEXITED(raw)) << err;  // no abort
  EXPECT_EQ(WEXITSTATUS(raw), 0) << err;
  EXPECT_EQ(err.rfind("note: 0 of 2 worker threads could start (", 0), 0u) << err;
  EXPECT_NE(err.find("the runs go on on the main thread"), std::string::npos) << err;
  EXPECT_EQ(read_file(out), free_run.out);
  std::remove(out.c_str());
  std::remove((out + ".err").c_str());
#endif
}

// ---- 2. runs made lazily; counts checked in full ----

TEST(SweepHardening, LazyRunsHoldOneModelPerThreadAtMost) {
  const Scene scene = load_scene_from_string(kPendulum);
  const SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  std::mutex mutex;
  int alive = 0, most = 0;
  std::vector<int> made;
  const auto make_run = [&](size_t i) {
    std::lock_guard<std::mutex> lock(mutex);
    made.push_back(static_cast<int>(i));
    most = std::max(most, ++alive);
    // the model's deleter counts it out
    std::shared_ptr<const Model> m(new Model(compile(scene)), [&](const Model* p) {
      std::lock_guard<std::mutex> l(mutex);
      --alive;
      delete p;
    });
    return SweepRun{m, std::nullopt, o};
  };
  SweepOptions so;
  so.threads = 2;
  const std::vector<SweepOutcome> out = sweep(40, make_run, so);
  ASSERT_EQ(out.size(), 40u);
  EXPECT_EQ(made.size(), 40u);
  EXPECT_LE(most, 2);
  EXPECT_EQ(alive, 0);
  for (const SweepOutcome& x : out) EXPECT_TRUE(x.ran && x.result.ok());
  // and a bad run stops the sweep with its error
  EXPECT_THROW(sweep(
                   5,
                   [&](size_t i) -> SweepRun {
                     if (i == 3) throw SceneError("s.json", "/bodies/0/mass", "bad");
                     return make_run(i);
                   },
                   so),
               SceneError);
}

TEST(SweepHardening, RangeCountsAreCheckedInFull) {
  const std::string scene = write_temp("hard_count.json", kPendulum);
  CliResult r = run_cli("sweep " + scene + " --set /bodies/0/mass=1:2:99999999999");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "error: --set: /bodies/0/mass: '1:2:99999999999': count 99999999999 out of range "
            "(1..1000000)\n");
  r = run_cli("sweep " + scene + " --set /bodies/0/mass=1:2:99999999999999999999999");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("out of range (1..1000000)"), std::string::npos) << r.err;
  r = run_cli("sweep " + scene + " --set /bodies/0/mass=1:2:0");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("count 0 out of range"), std::string::npos) << r.err;
  r = run_cli("sweep " + scene + " --set /bodies/0/mass=1:2:3x");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("the count '3x' is not a whole number"), std::string::npos) << r.err;
  // 1001 × 1000 runs: over the limit, refused before any scene is loaded
  r = run_cli("sweep " + scene +
              " --set /bodies/0/mass=1:2:1001 --set /integrator/duration=0.1:0.2:1000");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "error: --set: /integrator/duration: the sets make more than 1000000 runs; split "
            "the sweep\n");
  EXPECT_EQ(r.out, "");
}

// ---- 3. outputs ----

TEST(SweepHardening, OutIsNeverTheSceneAndFailedWritesExit2) {
  const std::string scene = write_temp("hard_out.json", kPendulum);
  CliResult r = run_cli("sweep " + scene + " --set /bodies/0/mass=1,2 --out " + scene);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: --out: '" + scene + "' is the scene file; it is not overwritten\n");
  EXPECT_EQ(read_file(scene), kPendulum);
  // the same file by another name
  const std::string link = scene + ".link";
  std::remove(link.c_str());
  ASSERT_EQ(::symlink(scene.c_str(), link.c_str()), 0);
  r = run_cli("sweep " + scene + " --set /bodies/0/mass=1,2 --out " + link);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(read_file(scene), kPendulum);
  std::remove(link.c_str());

  r = run_cli("sweep " + scene + " --set /bodies/0/mass=1,2 --out /dev/full");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: --out: cannot write '/dev/full': No space left on device\n");

  // a bad value leaves an existing --out as it was
  const std::string out = ::testing::TempDir() + "hard_out.csv";
  std::ofstream(out) << "before\n";
  r = run_cli("sweep " + scene + " --set /bodies/0/mass=1,2,-3 --out " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: " + scene + ": /bodies/0/mass: must be > 0, got -3\n");
  EXPECT_EQ(read_file(out), "before\n");
  std::remove(out.c_str());
}

// ---- 4. figures that are not finite ----

TEST(SweepHardening, AnInfiniteDriftFailsAsInSimulate) {
  // the rule itself: a completed run with an infinite figure is NotFinite
  const Scene scene = load_scene_from_string(kDriftOverflow);
  const Model m = compile(scene);
  RunSummary s;
  SimulationResult r = simulate(m, SimulationOptions::from_settings(scene.settings),
                                [&](const Sample& x) { s.record(x); });
  ASSERT_TRUE(r.ok()) << r.message;  // every sample finite
  ASSERT_TRUE(std::isfinite(s.energy_initial) && std::isfinite(s.energy_final));
  EXPECT_LT(s.energy_initial, -1e308);
  EXPECT_GT(s.energy_final, 1e307);
  EXPECT_FALSE(std::isfinite(s.max_abs_energy_drift));
  EXPECT_FALSE(s.finite());
  check_figures(s, r);
  EXPECT_EQ(r.status, SimulationStatus::NotFinite);
  EXPECT_EQ(r.message, "the summary's figures are not finite");

  // simulate and sweep agree: exit 3, the same words
  const std::string file = write_temp("hard_drift.json", kDriftOverflow);
  const CliResult sim = run_cli("simulate " + file + " --quiet");
  EXPECT_EQ(sim.status, 3);
  EXPECT_NE(sim.err.find("the summary's figures are not finite"), std::string::npos) << sim.err;
  const CliResult sw = run_cli("sweep " + file + " --set /bodies/0/position/0=0,1 --quiet");
  EXPECT_EQ(sw.status, 3);
  std::istringstream rows(sw.out);
  std::string line;
  std::getline(rows, line);  // the header
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(std::getline(rows, line));
    EXPECT_NE(line.find(",not finite,"), std::string::npos) << line;
  }
  EXPECT_NE(sw.err.find("run 1: at t = 6100: the summary's figures are not finite"),
            std::string::npos)
      << sw.err;
}

// ---- 5. --threads ----

TEST(SweepHardening, ThreadsMustBeAWholeNumberInRange) {
  const std::string scene = write_temp("hard_nthreads.json", kPendulum);
  for (const char* bad : {"-1", "0", "1025", "99999999999999999999", "two", "2.5"}) {
    const CliResult r =
        run_cli("sweep " + scene + " --set /bodies/0/mass=1 --threads=" + std::string(bad));
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_EQ(r.err, "error: --threads: expected a whole number from 1 to 1024 (got " +
                         std::string(bad) + ")\n")
        << bad;
    EXPECT_EQ(r.out, "");
  }
  const CliResult ok = run_cli("sweep " + scene + " --set /bodies/0/mass=1 --threads 1024");
  EXPECT_EQ(ok.status, 0) << ok.err;
}

// ---- 6. row counts an int cannot hold ----

TEST(SweepHardening, CompileRefusesRowCountsPastInt) {
  ModelBuilder b;
  Body p;
  p.name = "p";
  p.type = BodyType::Particle;
  p.mass = 1;
  b.add_body(p);
  const auto rows = [](const StateView&, const RowSpan&) {};
  const int big = 1 << 30;  // two of them: 2^31 rows, one past INT_MAX
  b.add_constraint(std::make_shared<CallableConstraint>("a", std::vector<int>{0}, big, true, rows));
  b.add_constraint(std::make_shared<CallableConstraint>("b", std::vector<int>{0}, big, true, rows));
  try {
    compile(b);
    FAIL() << "compiled 2^31 rows";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "compile(): the constraints have more than 2147483647 rows (or rows × bodies) in "
              "all, at constraint 'b'");
  }
}

}  // namespace
