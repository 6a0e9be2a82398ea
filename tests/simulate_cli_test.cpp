// `appell simulate` (README, Command line): output columns and keys exactly, exit statuses, files
// kept on a numerical failure.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <appell/appell.hpp>
#include <appell/trajectory.hpp>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "printed_csv.hpp"

namespace {

struct CliRun {
  int status;
  std::string out, err;
};

// a per-test prefix in the temporary directory: ctest runs the tests in parallel
std::string dir() {
  return ::testing::TempDir() + "appell_" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_";
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string write(const std::string& name, const std::string& text) {
  const std::string path = dir() + name;
  std::ofstream(path) << text;
  return path;
}

CliRun run(const std::string& args) {
  const std::string out = dir() + "cli_stdout.txt", err = dir() + "cli_stderr.txt";
  const std::string cmd =
      std::string(APPELL_CLI_PATH) + " simulate " + args + " > " + out + " 2> " + err;
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::stringstream s(text);
  for (std::string l; std::getline(s, l);) v.push_back(l);
  return v;
}

size_t fields(const std::string& line) {
  return std::count(line.begin(), line.end(), ',') + 1;
}

constexpr char kScene[] = R"({"name": "arm and bob", "gravity": [0, 0, -9.81],
  "bodies": [
    {"name": "arm", "mass": 1.0, "inertia": {"principal": [0.0034, 0.0034, 0.0004]},
     "position": [0, 0.1, 0], "orientation": {"axis_angle": [1, 0, 0, -1.5707963267948966]}},
    {"name": "bob", "type": "particle", "mass": 0.5, "position": [0, 0.3, 0]}],
  "constraints": [
    {"name": "hinge", "type": "revolute", "bodies": ["world", "arm"], "anchor": [0, 0, 0], "axis": [1, 0, 0]},
    {"name": "rod", "type": "distance", "bodies": ["arm", "bob"], "points": [[0, 0.2, 0], [0, 0.3, 0]]}],
  "integrator": {"method": "dopri5", "duration": 5.0, "dt": 0.01}})";

TEST(SimulateCli, OutputsHaveExactlyTheSpecColumnsAndKeys) {
  const std::string scene = write("cli_scene.json", kScene);
  const std::string traj = dir() + "cli_traj.csv", summary = dir() + "cli_summary.json",
                    forces = dir() + "cli_forces.csv";
  const CliRun r = run(scene + " --integrator rk4 --dt 0.01 --duration 0.1 --out " + traj +
                       " --summary " + summary + " --forces " + forces + " --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");

  const auto t = lines(slurp(traj));
  ASSERT_EQ(t.size(), 12u);  // header + t = 0, 0.01, ..., 0.1
  EXPECT_EQ(t[0],
            "t,arm.x,arm.y,arm.z,arm.qw,arm.qx,arm.qy,arm.qz,arm.vx,arm.vy,arm.vz,arm.wx,arm.wy,"
            "arm.wz,bob.x,bob.y,bob.z,bob.vx,bob.vy,bob.vz,energy,violation_position,"
            "violation_velocity,hinge.q,hinge.qd");
  for (const std::string& l : t) EXPECT_EQ(fields(l), 25u) << l;
  EXPECT_EQ(t[1].substr(0, 2), "0,");
  EXPECT_EQ(std::stod(t.back().substr(0, t.back().find(','))), 0.1);
  // full precision: the initial y of the arm's centre
  EXPECT_NE(t[1].find("0.10000000000000001"), std::string::npos) << t[1];

  const auto f = lines(slurp(forces));
  ASSERT_EQ(f.size(), 12u);
  EXPECT_EQ(f[0],
            "t,hinge.arm.fx,hinge.arm.fy,hinge.arm.fz,hinge.arm.mx,hinge.arm.my,hinge.arm.mz,"
            "rod.arm.fx,rod.arm.fy,rod.arm.fz,rod.arm.mx,rod.arm.my,rod.arm.mz,"
            "rod.bob.fx,rod.bob.fy,rod.bob.fz");
  for (const std::string& l : f) EXPECT_EQ(fields(l), 16u) << l;

  const auto s = nlohmann::ordered_json::parse(slurp(summary));
  std::vector<std::string> keys;
  for (const auto& item : s.items()) keys.push_back(item.key());
  EXPECT_EQ(keys,
            (std::vector<std::string>{
                "formulation", "integrator", "duration", "steps", "rhs_evaluations", "wall_seconds",
                "energy", "constraint_violation", "initial_velocity_correction", "final_state"}));
  EXPECT_EQ(s["integrator"], "rk4");
  EXPECT_EQ(s["formulation"], "recursive");
  EXPECT_DOUBLE_EQ(s["duration"].get<double>(), 0.1);
  EXPECT_EQ(s["steps"], 10);
  EXPECT_EQ(s["rhs_evaluations"], 40);
  for (const char* k : {"initial", "final", "max_abs_drift", "max_rel_drift"})
    EXPECT_TRUE(s["energy"][k].is_number()) << k;
  EXPECT_EQ(s["energy"].size(), 4u);
  EXPECT_EQ(s["constraint_violation"].size(), 2u);
  EXPECT_LT(s["constraint_violation"]["position_max"].get<double>(), 1e-6);
  EXPECT_TRUE(s["constraint_violation"]["velocity_max"].is_number());
  const auto& arm = s["final_state"]["bodies"]["arm"];
  EXPECT_EQ(arm["quaternion"].size(), 4u);
  EXPECT_EQ(arm["angular_velocity"].size(), 3u);
  EXPECT_EQ(s["final_state"]["bodies"]["bob"]["velocity"].size(), 3u);
  EXPECT_FALSE(s["final_state"]["bodies"]["bob"].contains("quaternion"));
}

TEST(SimulateCli, SummaryGoesToStdoutWithoutSummaryFile) {
  const std::string scene = write("cli_scene.json", kScene);
  const CliRun r = run(scene + " --duration 0.05 --formulation gibbs-appell");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto s = nlohmann::json::parse(r.out);
  EXPECT_EQ(s["formulation"], "gibbs-appell");
  EXPECT_EQ(s["integrator"], "dopri5");
  EXPECT_EQ(r.err, "");  // not a terminal: no progress bar
}

// usage errors are one line too, the pointer to the usage at its end
TEST(SimulateCli, UsageErrorsAreOneLine) {
  const std::string scene = write("cli_usage.json", R"({"bodies": [
      {"name": "p", "type": "particle", "mass": 1}]})");
  for (const std::string& args : {scene + " --no-such-option", scene + " --dt -1",
                                  scene + " --out " + scene, scene + " --formulation magic"}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
}

TEST(SimulateCli, NumericalFailureExits3AndKeepsRows) {
  const std::string scene = write("cli_stiff.json", R"({"bodies": [
      {"name": "p", "type": "particle", "mass": 1, "position": [0, 0, -1.1]}],
    "forces": [{"type": "spring", "bodies": ["world", "p"], "points": [[0, 0, 0], [0, 0, -1.1]],
                "stiffness": 1e8, "rest_length": 1.0}]})");
  const std::string traj = dir() + "cli_stiff.csv";
  const CliRun r = run(scene + " --integrator rk4 --dt 0.01 --duration 10 --quiet --out " + traj);
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err.rfind("error: " + scene + ": at t = ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("not finite"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  const auto t = lines(slurp(traj));
  EXPECT_GT(t.size(), 3u);
  EXPECT_EQ(t[0], "t,p.x,p.y,p.z,p.vx,p.vy,p.vz,energy,violation_position,violation_velocity");
}

// A run that fails after thousands of rows keeps every row computed until then, in order,
// through the writer thread's batches (cli/sample_writer.hpp): a force 1/(2 − t) is
// infinite at t = 2, which the step from 1.999 evaluates, so 2000 rows (t = 0 .. 1.999) are
// kept.  Both files are, byte for byte, what printf("%.17g") prints for the same run kept in
// memory.
TEST(SimulateCli, ALongFailingRunKeepsEveryRowInOrder) {
  const std::string scene = write("cli_pole.json", R"json({"gravity": [-9.81, 0, 0],
    "bodies": [{"name": "p", "type": "particle", "mass": 1, "position": [0, 0, -1.1]}],
    "forces": [{"type": "expression", "body": "p", "vector": ["0", "0", "1 / (2 - t)"]}],
    "constraints": [{"name": "wall", "type": "point_on_plane", "body": "p", "point": [0, 0, -1.1],
                     "normal": [1, 0, 0]}],
    "integrator": {"method": "rk4", "duration": 10, "dt": 0.001}})json");
  const std::string traj = dir() + "pole.csv", forces = dir() + "pole_forces.csv";
  const CliRun r = run(scene + " --quiet --out " + traj + " --forces " + forces);
  EXPECT_EQ(r.status, 3) << r.err;

  const appell::Model m = appell::load_model(scene);
  appell::Trajectory tr(m);
  const auto result = appell::simulate(
      m, appell::SimulationOptions::from_settings(appell::load_scene(scene).settings),
      [&](const appell::Sample& s) { tr.record(s); });
  EXPECT_EQ(result.status, appell::SimulationStatus::NotFinite);
  EXPECT_EQ(tr.rows(), 2000u);
  EXPECT_TRUE(slurp(traj) == appell::testing::printed_csv(tr, false));
  EXPECT_TRUE(slurp(forces) == appell::testing::printed_csv(tr, true));
}

TEST(SimulateCli, UsageErrorsExit2) {
  const std::string scene = write("cli_scene.json", kScene);
  EXPECT_EQ(run(scene + " --integrator euler").status, 2);
  EXPECT_EQ(run(scene + " --dt -1").status, 2);
  EXPECT_EQ(run(scene + " --duration nan").status, 2);
  EXPECT_EQ(run(scene + " --formulation lagrange").status, 2);
  EXPECT_EQ(run(scene + " --dt 0").status, 2);
  EXPECT_EQ(run(scene + " --bogus").status, 2);
  EXPECT_EQ(run(dir() + "no_such_scene.json").status, 2);
  const CliRun bad = run(write("cli_bad.json", R"({"bodies": [{"name": "b", "mass": -1}]})"));
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err.rfind("error: ", 0), 0u);
  EXPECT_EQ(bad.out, "");
}

}  // namespace
