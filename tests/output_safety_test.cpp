// Outputs that never lie (docs/scene-format.md, "Errors" and "Outputs"): finite rows only,
// exit 3 with the time and the reason after a numerical failure, output paths checked
// before the run, files replaced only by complete ones, failed writes reported; and the
// progress bar fits a narrow terminal.
#include <dirent.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.hpp"

namespace {

using appell::testing::read_file;
using appell::testing::run_cli;

// a fresh directory of this test's own
std::string fresh_dir() {
  const std::string d = ::testing::TempDir() + "appell_out_" + std::to_string(getpid()) + "_" +
                        ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::system(("rm -rf '" + d + "' && mkdir -p '" + d + "'").c_str());
  return d + "/";
}

std::string write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") out.push_back(e->d_name);
    closedir(d);
  }
  return out;
}

// Every row of a CSV has the header's number of columns and only finite numbers; returns
// the rows (without the header).
std::vector<std::vector<double>> finite_rows(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  EXPECT_TRUE(std::getline(in, line)) << "no header";
  const size_t columns = std::count(line.begin(), line.end(), ',') + 1;
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) {
      char* end = nullptr;
      const double v = std::strtod(cell.c_str(), &end);
      EXPECT_TRUE(end != cell.c_str() && *end == '\0') << "not a number: '" << cell << "'";
      EXPECT_TRUE(std::isfinite(v)) << line;
      row.push_back(v);
    }
    EXPECT_EQ(row.size(), columns) << line;
    rows.push_back(row);
  }
  EXPECT_EQ(csv.empty() ? '\n' : csv.back(), '\n') << "the last row is incomplete";
  return rows;
}

bool all_finite(const nlohmann::json& j) {
  if (j.is_number_float()) return std::isfinite(j.get<double>());
  if (j.is_structured())
    for (const auto& e : j)
      if (!all_finite(e)) return false;
  return true;
}

// a particle pushed by 1/(0.55 − t): the force is infinite inside the step from 0.5
constexpr char kBlowUp[] = R"json({"bodies": [{"name": "p", "type": "particle", "mass": 1}],
  "constraints": [{"name": "rail", "type": "point_on_plane", "body": "p", "point": [0, 0, 0],
                   "normal": [0, 1, 0]}],
  "forces": [{"type": "expression", "body": "p", "vector": ["1 / (0.55 - t)", "0", "0"]}],
  "integrator": {"method": "rk4", "duration": 1, "dt": 0.1}})json";

TEST(OutputSafety, NumericalFailureKeepsFiniteRowsAndSaysWhenAndWhy) {
  const std::string d = fresh_dir();
  const std::string scene = write(d + "s.json", kBlowUp);
  write(d + "t.csv", "an older file\n");
  const auto r = run_cli("simulate " + scene + " --out " + d + "t.csv --forces " + d +
                         "f.csv --summary " + d + "s_summary.json");
  EXPECT_EQ(r.status, 3) << r.err;
  // one line: the time of the failure, inside the step from 0.5 (whose stages reach 0.55)
  const std::string head = "error: " + scene + ": at t = ";
  ASSERT_EQ(r.err.rfind(head, 0), 0u) << r.err;
  const double t_fail = std::strtod(r.err.c_str() + head.size(), nullptr);
  EXPECT_GE(t_fail, 0.5);
  EXPECT_LE(t_fail, 0.55);
  EXPECT_NE(r.err.find("not finite"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // the rows until then, finite and complete: t = 0, 0.1, ..., 0.5
  const auto traj = finite_rows(read_file(d + "t.csv"));
  ASSERT_EQ(traj.size(), 6u);
  for (size_t k = 0; k < traj.size(); ++k) EXPECT_NEAR(traj[k][0], 0.1 * k, 1e-12);
  EXPECT_EQ(finite_rows(read_file(d + "f.csv")).size(), 6u);
  const auto summary = nlohmann::json::parse(read_file(d + "s_summary.json"));
  EXPECT_TRUE(all_finite(summary));
  EXPECT_NEAR(summary["duration"].get<double>(), t_fail, 1e-8);
  // no temporary is left behind
  EXPECT_EQ(entries(d).size(), 4u);
}

TEST(OutputSafety, NonFiniteEnergyWithAFiniteStateStopsAtTheStart) {
  // V = −m g·x̄ = 9.81 × 1e308 overflows although every coordinate is finite
  const std::string d = fresh_dir();
  const std::string scene = write(d + "s.json", R"({"gravity": [0, 0, -9.81],
    "bodies": [{"name": "p", "type": "particle", "mass": 1, "position": [0, 0, 1e308]}]})");
  const auto r = run_cli("simulate " + scene + " --quiet --out " + d + "t.csv");
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err, "error: " + scene + ": at t = 0: the energy is not finite\n");
  EXPECT_TRUE(finite_rows(read_file(d + "t.csv")).empty());
}

TEST(OutputSafety, OutputPathsAreCheckedBeforeAnythingIsWritten) {
  const std::string d = fresh_dir();
  const std::string text = R"({"bodies": [{"name": "p", "type": "particle", "mass": 1}]})";
  const std::string scene = write(d + "s.json", text);
  // the scene itself, also spelled differently
  for (const std::string& out : {scene, d + "./s.json"}) {
    const auto r = run_cli("simulate " + scene + " --out " + out);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("is the scene file"), std::string::npos) << r.err;
  }
  EXPECT_EQ(read_file(scene), text);
  // two outputs on one path
  auto r = run_cli("simulate " + scene + " --out " + d + "a.csv --summary " + d + "a.csv");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind("error: --summary: '" + d + "a.csv' is also the file of --out", 0), 0u)
      << r.err;
  // an unwritable summary: found before the run, the existing trajectory untouched
  write(d + "t.csv", "keep me\n");
  r = run_cli("simulate " + scene + " --out " + d + "t.csv --summary " + d + "no/such/dir.json");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(d + "t.csv"), "keep me\n");
  // a directory
  r = run_cli("simulate " + scene + " --forces " + d);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  EXPECT_EQ(entries(d).size(), 2u) << "nothing but the scene and t.csv";
}

TEST(OutputSafety, AnExistingFileIsReplacedByACompleteOne) {
  const std::string d = fresh_dir();
  const std::string scene =
      write(d + "s.json", R"({"bodies": [{"name": "p", "type": "particle", "mass": 1}],
                             "integrator": {"method": "rk4", "duration": 1, "dt": 0.25}})");
  write(d + "t.csv", std::string(100000, 'x'));
  const auto r = run_cli("simulate " + scene + " --quiet --out " + d + "t.csv");
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string csv = read_file(d + "t.csv");
  EXPECT_EQ(csv.rfind("t,p.x,", 0), 0u);
  EXPECT_EQ(finite_rows(csv).size(), 5u);
  EXPECT_EQ(entries(d).size(), 2u);
}

TEST(OutputSafety, FailedWritesAreErrors) {
  const std::string d = fresh_dir();
  const std::string scene =
      write(d + "s.json", R"({"bodies": [{"name": "p", "type": "particle", "mass": 1}]})");
  auto r = run_cli("simulate " + scene + " --quiet --out /dev/full");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: cannot write '/dev/full': No space left on device\n");
  // standard output on a full device
  for (const std::string cmd : {"eval", "check", "simulate"}) {
    const std::string err = d + "err.txt";
    const int raw = std::system(
        (std::string(APPELL_CLI_PATH) + " " + cmd + " " + scene + " >/dev/full 2>" + err).c_str());
    EXPECT_EQ(WEXITSTATUS(raw), 2) << cmd;
    EXPECT_EQ(read_file(err), "error: standard output: cannot write: No space left on device\n")
        << cmd;
  }
}

TEST(OutputSafety, AbsurdStepCountsAreUsageErrors) {
  const std::string d = fresh_dir();
  const std::string scene =
      write(d + "s.json", R"({"bodies": [{"name": "p", "type": "particle", "mass": 1}]})");
  const auto r = run_cli("simulate " + scene + " --dt 1e-300 --out " + d + "t.csv");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind("error: --dt, --duration: duration / dt = 1e+300 steps", 0), 0u) << r.err;
  EXPECT_EQ(entries(d).size(), 1u);
}

TEST(OutputSafety, TooFastAMotionStopsInsteadOfSeemingToHang) {
  // a spring of 1e18 N/m on 1 kg: ω = 1e9 rad/s, so dopri5's steps are ~1e-10 s, ten
  // million per output interval of 0.01 s; 1 s of it would take 10¹⁰ steps
  const std::string d = fresh_dir();
  const std::string scene = write(d + "s.json", R"({"bodies": [
      {"name": "p", "type": "particle", "mass": 1, "position": [0, 0, -1.001]}],
    "forces": [{"type": "spring", "bodies": ["world", "p"], "points": [[0, 0, 0], [0, 0, -1.001]],
                "stiffness": 1e18, "rest_length": 1.0}],
    "integrator": {"method": "dopri5", "duration": 1, "dt": 0.01}})");
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_cli("simulate " + scene + " --quiet --out " + d + "t.csv");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("step size underflow: 10000 steps in a row shorter than 1e-07 dt"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(finite_rows(read_file(d + "t.csv")).size(), 1u);  // t = 0 only
}

// Runs `simulate` on a pseudo-terminal `columns` wide and returns what it drew.
std::string on_terminal(const std::string& scene, int columns) {
  winsize w{};
  w.ws_row = 24;
  w.ws_col = static_cast<unsigned short>(columns);
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, &w);
  if (pid == 0) {
    execl(APPELL_CLI_PATH, APPELL_CLI_PATH, "simulate", scene.c_str(), "--summary", "/dev/null",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  std::string screen;
  char buf[4096];
  for (ssize_t n; (n = read(master, buf, sizeof buf)) > 0;) screen.append(buf, n);
  int status = 0;
  waitpid(pid, &status, 0);
  close(master);
  return screen;
}

TEST(OutputSafety, ProgressBarClearsItsLineAndFitsTheTerminal) {
  const std::string d = fresh_dir();
  // long enough for several redraws (one every 0.1 s)
  const std::string scene = write(d + "s.json", R"({"gravity": [0, 0, -9.81],
    "bodies": [{"name": "p", "type": "particle", "mass": 1, "position": [1, 0, 0]}],
    "constraints": [{"type": "distance", "bodies": ["world", "p"], "points": [[0, 0, 0], [1, 0, 0]]}],
    "integrator": {"method": "rk4", "duration": 60, "dt": 1e-4}, "output": {"every": 1000}})");
  for (int columns : {24, 80}) {
    const std::string screen = on_terminal(scene, columns);
    // each redraw: "\r", at most columns − 1 characters, then "clear to the end of line"
    size_t draws = 0;
    for (size_t i = screen.find('\r'); i != std::string::npos; i = screen.find('\r', i + 1)) {
      const size_t clear = screen.find("\033[K", i);
      ASSERT_NE(clear, std::string::npos);
      EXPECT_LT(static_cast<int>(clear - i - 1), columns) << screen.substr(i, clear - i);
      EXPECT_EQ(screen.substr(i + 1, clear - i - 1).find('\n'), std::string::npos);
      draws += clear > i + 1;
    }
    EXPECT_GE(draws, 2u) << columns;
  }
}

}  // namespace
