// `appell sweep` (cli/sweep.cpp): one row per run of the cartesian product, each equal to
// the C++ API's run of the scene with those values; located errors before any output.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/overrides.hpp>
#include <appell/trajectory.hpp>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_util.hpp"

namespace {

using appell::testing::run_cli;
using appell::testing::write_temp;

constexpr char kPendulum[] = R"({"name": "pendulum", "gravity": [0, 0, -9.81],
  "bodies": [{"name": "bob", "type": "particle", "mass": 1.0, "position": [0, 0, -1],
              "velocity": [0, 1, 0]}],
  "constraints": [{"name": "rod", "type": "distance", "bodies": ["world", "bob"],
                   "points": [[0, 0, 0], [0, 0, -1]]}],
  "integrator": {"method": "dopri5", "duration": 0.5, "dt": 0.05}})";

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, sep);) out.push_back(part);
  return out;
}

TEST(SweepCli, RowsEqualTheApisRuns) {
  const std::string scene = write_temp("sweep_pendulum.json", kPendulum);
  const appell::testing::CliResult r =
      run_cli("sweep " + scene + " --set /bodies/0/mass=1:3:3 --set /integrator/method=rk4,dopri5");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> lines = split(r.out, '\n');
  ASSERT_EQ(lines.size(), 7u);  // the header and 3 × 2 runs
  const std::vector<std::string> header = split(lines[0], ',');
  EXPECT_EQ(header[1], "/bodies/0/mass");
  EXPECT_EQ(header[2], "/integrator/method");
  EXPECT_EQ(header.back(), "bob.vz");
  const std::string masses[] = {"1", "2", "3"}, methods[] = {"\"rk4\"", "\"dopri5\""};
  const std::string quoted[] = {R"("""rk4""")", R"("""dopri5""")"};  // CSV-quoted JSON
  for (int i = 0; i < 6; ++i) {
    const std::vector<std::string> row = split(lines[i + 1], ',');
    ASSERT_EQ(row.size(), header.size());
    EXPECT_EQ(row[1], masses[i / 2]);  // the last --set varies fastest
    EXPECT_EQ(row[2], quoted[i % 2]);
    EXPECT_EQ(row[3], "completed");
    // the same run through the API, with the scene's values replaced
    const appell::Scene s = appell::load_scene_with_overrides(
        kPendulum, "p.json",
        {{"/bodies/0/mass", masses[i / 2]}, {"/integrator/method", methods[i % 2]}});
    const appell::Model m = appell::compile(s);
    appell::RunSummary sum;
    const appell::SimulationResult res =
        appell::simulate(m, appell::SimulationOptions::from_settings(s.settings),
                         [&](const appell::Sample& x) { sum.record(x); });
    EXPECT_EQ(std::stol(row[5]), res.steps);
    EXPECT_EQ(std::strtod(row[8].c_str(), nullptr), sum.energy_final);
    EXPECT_EQ(std::strtod(row[12].c_str(), nullptr), sum.final_bodies[0].x.x());
    EXPECT_EQ(std::strtod(row[14].c_str(), nullptr), sum.final_bodies[0].x.z());
  }
}

TEST(SweepCli, BadValuesAreLocatedAndNothingIsWritten) {
  const std::string scene = write_temp("sweep_bad.json", kPendulum);
  const std::string out = ::testing::TempDir() + "sweep_bad_out.csv";
  std::remove(out.c_str());
  appell::testing::CliResult r =
      run_cli("sweep " + scene + " --set /bodies/0/mass=1,-1 --out " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: " + scene + ": /bodies/0/mass: must be > 0, got -1\n");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(std::ifstream(out).good());
  r = run_cli("sweep " + scene + " --set /bodies/0/mass");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "error: --set: /bodies/0/mass: expected POINTER=VALUES, e.g. /bodies/0/mass=1:2:11\n");
  r = run_cli("sweep " + scene + " --set /bodies/0/mass=1 --formulation fast");
  EXPECT_EQ(r.status, 2);
  r = run_cli("sweep /nonexistent.json --set /bodies/0/mass=1");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: /nonexistent.json: cannot open the file\n");
}

TEST(SweepCli, NumericalFailuresKeepTheirRowsAndExit3) {
  // the second run's speed squared overflows: its rows are not finite at t = 0, row kept
  const std::string scene = write_temp("sweep_fail.json", kPendulum);
  const appell::testing::CliResult r =
      run_cli("sweep " + scene + " --set '/bodies/0/velocity=[0,1,0],[0,1e200,0]'");
  EXPECT_EQ(r.status, 3);
  const std::vector<std::string> lines = split(r.out, '\n');
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[1].find(",completed,"), std::string::npos);
  EXPECT_NE(lines[2].find(",not finite,0,"), std::string::npos) << lines[2];
  EXPECT_EQ(split(lines[2], ',').size(), split(lines[1], ',').size() - 1);  // empty last field
  EXPECT_EQ(r.err.rfind("error: " + scene + ": run 1: at t = 0: ", 0), 0u) << r.err;
}

}  // namespace
