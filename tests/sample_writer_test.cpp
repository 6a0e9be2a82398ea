// The rows of `appell simulate` written on a writer thread (cli/sample_writer.hpp): byte for
// byte those of the synchronous writer and those printf("%.17g") gives for the run's
// in-memory Trajectory, over runs that cycle the ring of batches many times; a failing
// write is reported as before.  `make test-tsan` runs this file under ThreadSanitizer.
#include "cli/sample_writer.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <appell/appell.hpp>
#include <appell/trajectory.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "printed_csv.hpp"

namespace {

using appell::Model;
using appell::Sample;
using appell::SimulationOptions;
using appell::cli::Csv;
using appell::cli::SampleWriter;

struct Texts {
  std::string traj, forces;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string temp(const std::string& name) {
  return ::testing::TempDir() + "sample_writer_" + std::to_string(getpid()) + "_" + name;
}

// the scene's run with its joint actuators (PD servo on t, prescribed elbow): a sample every
// 1 ms for 3 s, 3001 rows, many times the ring's kBatches × 256 samples
struct ArmRun {
  Model m;
  SimulationOptions o;
};
ArmRun arm() {
  const appell::Scene scene =
      appell::load_scene(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/joint_actuators.json");
  ArmRun r{appell::compile(scene), SimulationOptions::from_settings(scene.settings)};
  r.o.every = 1;
  return r;
}

// traj.csv and forces.csv of the run, written through a SampleWriter
Texts written(const ArmRun& run, bool threaded, const std::string& name) {
  Csv traj, forces;
  EXPECT_TRUE(traj.open(temp(name + "_traj.csv"))) << traj.error();
  EXPECT_TRUE(forces.open(temp(name + "_forces.csv"))) << forces.error();
  traj.text(appell::traj_schema(run.m).header());
  forces.text(appell::forces_schema(run.m).header());
  {
    SampleWriter w(run.m, traj, forces, threaded);
    const auto r = appell::simulate(run.m, run.o, [&](const Sample& s) { w.observe(s); });
    EXPECT_TRUE(r.ok()) << r.message;
    w.finish();
    EXPECT_FALSE(w.failed());
  }
  EXPECT_TRUE(traj.commit()) << traj.error();
  EXPECT_TRUE(forces.commit()) << forces.error();
  const Texts t{slurp(temp(name + "_traj.csv")), slurp(temp(name + "_forces.csv"))};
  std::remove(temp(name + "_traj.csv").c_str());
  std::remove(temp(name + "_forces.csv").c_str());
  return t;
}

// the same files from the run kept in memory, every number printed by printf("%.17g")
Texts printed(const ArmRun& run) {
  appell::Trajectory tr(run.m);
  const auto r = appell::simulate(run.m, run.o, [&](const Sample& s) { tr.record(s); });
  EXPECT_TRUE(r.ok()) << r.message;
  return {appell::testing::printed_csv(tr, false), appell::testing::printed_csv(tr, true)};
}

TEST(SampleWriter, ThreadedRowsAreTheSynchronousAndThePrintedOnes) {
  const ArmRun run = arm();
  const Texts threaded = written(run, true, "threaded");
  const Texts synchronous = written(run, false, "synchronous");
  const Texts expected = printed(run);
  EXPECT_EQ(std::count(expected.traj.begin(), expected.traj.end(), '\n'), 3002);
  EXPECT_NE(expected.forces.find(",shoulder.tau,shoulder.power"), std::string::npos);
  EXPECT_TRUE(threaded.traj == expected.traj);
  EXPECT_TRUE(threaded.forces == expected.forces);
  EXPECT_TRUE(synchronous.traj == expected.traj);
  EXPECT_TRUE(synchronous.forces == expected.forces);
}

TEST(SampleWriter, AFailedWriteIsRaisedAndCommitNamesIt) {
  const ArmRun run = arm();
  for (const bool threaded : {true, false}) {
    Csv traj, forces;  // forces closed
    ASSERT_TRUE(traj.open("/dev/full")) << traj.error();
    SampleWriter w(run.m, traj, forces, threaded);
    long after = 0;  // samples observed once the failure was raised
    const auto r = appell::simulate(run.m, run.o, [&](const Sample& s) {
      after += w.failed();
      w.observe(s);
    });
    EXPECT_TRUE(r.ok()) << r.message;
    w.finish();
    EXPECT_TRUE(w.failed()) << threaded;
    EXPECT_GT(after, 0) << threaded;  // raised during the run, not only at the end
    EXPECT_FALSE(traj.commit());
    EXPECT_EQ(traj.error(), "cannot write '/dev/full': No space left on device");
  }
}

}  // namespace
