// The `appell` program (README, Command line): exit statuses, the one-line located error, and
// `eval` against the closed form of the spherical pendulum [UK96 eqs. 24–28].
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int status = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("appell_cli_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
  Outcome run(const std::string& args) {
    const fs::path out = dir_ / "stdout", err = dir_ / "stderr";
    const std::string cmd = std::string("'") + APPELL_CLI_PATH + "' " + args + " >'" +
                            out.string() + "' 2>'" + err.string() + "'";
    const int raw = std::system(cmd.c_str());
    Outcome r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }
  fs::path dir_;
};

TEST_F(Cli, MalformedSceneExits2WithOneLocatedLine) {
  const fs::path scene = write("bad.json", R"({"bodies": [{"name": "slab", "mass": 1,
      "inertia": {"principal": [1, 1, 3]}}]})");
  for (const char* command : {"check", "eval"}) {
    const Outcome r = run(std::string(command) + " '" + scene.string() + "'");
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_EQ(r.err, "error: " + scene.string() +
                         ": /bodies/0/inertia: principal moments [1, 1, 3] violate the "
                         "triangle inequality\n")
        << command;
    EXPECT_EQ(r.out, "") << command;  // nothing that looks like valid output
  }
}

TEST_F(Cli, UsageErrorsExit2) {
  EXPECT_EQ(run("").status, 2);
  EXPECT_EQ(run("frobnicate x.json").status, 2);
  const fs::path scene =
      write("ok.json", R"({"bodies": [{"name": "p", "type": "particle", "mass": 1}]})");
  const Outcome r = run("eval '" + scene.string() + "' --formulation banana");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("banana"), std::string::npos) << r.err;  // names the bad value
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
}

TEST_F(Cli, InconsistentConstraintsExit3) {
  // a bead on a sphere and on its tangent plane, moving tangentially (see dense_test.cpp)
  const fs::path scene = write("contradiction.json", R"({
    "bodies": [{"name": "bead", "type": "particle", "mass": 1, "position": [0, 0, -1],
                "velocity": [1, 0, 0]}],
    "constraints": [
      {"name": "sphere", "type": "distance", "bodies": ["world", "bead"],
       "points": [[0, 0, 0], [0, 0, -1]]},
      {"name": "tangent", "type": "point_on_plane", "body": "bead", "point": [0, 0, -1],
       "normal": [0, 0, 1]}]})");
  const Outcome r = run("eval '" + scene.string() + "'");
  EXPECT_EQ(r.status, 3);
  // the constraint whose rows cannot be met once the other's are
  EXPECT_NE(r.err.find("inconsistent constraints"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'tangent'"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

// `appell eval` on the spherical pendulum: ẍ = g − x (|ẋ|² + x·g)/L², rod force
// F = −m (|ẋ|² + x·g) x / L², to 1e-8 relative with both formulations (issue 2, "Done when").
TEST_F(Cli, EvalMatchesTheSphericalPendulum) {
  const double m = 0.8, L = 2.0;
  const Eigen::Vector3d g(0, 0, -9.81);
  const Eigen::Vector3d x = L * Eigen::Vector3d(0.6, 0.0, -0.8);
  const Eigen::Vector3d v = Eigen::Vector3d(0.3, 1.2, -0.5).cross(x);
  char text[1024];
  std::snprintf(text, sizeof text,
                R"({"gravity": [0, 0, -9.81],
      "bodies": [{"name": "bob", "type": "particle", "mass": 0.8,
                  "position": [%.17g, %.17g, %.17g], "velocity": [%.17g, %.17g, %.17g]}],
      "constraints": [{"name": "rod", "type": "distance", "bodies": ["world", "bob"],
                       "points": [[0, 0, 0], [%.17g, %.17g, %.17g]]}]})",
                x.x(), x.y(), x.z(), v.x(), v.y(), v.z(), x.x(), x.y(), x.z());
  const fs::path scene = write("pendulum.json", text);
  const Eigen::Vector3d acc = g - x * (v.squaredNorm() + x.dot(g)) / (L * L);
  const Eigen::Vector3d force = m * (acc - g);
  for (const char* f : {"pinv", "gibbs-appell"}) {
    const Outcome r = run("eval '" + scene.string() + "' --formulation " + f);
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["formulation"], f);
    EXPECT_EQ(j["coordinates"], 3);
    EXPECT_EQ(j["constraint_rows"], 1);
    EXPECT_EQ(j["constraint_rank"], 1);
    EXPECT_EQ(j["dof"], 2);
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(j["bodies"]["bob"]["linear_acceleration"][k].get<double>(), acc(k),
                  1e-8 * acc.norm());
      EXPECT_NEAR(j["constraints"]["rod"]["bodies"]["bob"]["force"][k].get<double>(), force(k),
                  1e-8 * force.norm());
    }
  }
}

TEST_F(Cli, CheckReportsDegreesOfFreedom) {
  const Outcome r =
      run(std::string("check '") + APPELL_SOURCE_DIR + "/scenes/examples/double_pendulum.json'");
  ASSERT_EQ(r.status, 0) << r.err;
  // an arm on a hinge (6 − 5) and a bob on a rod (3 − 1)
  EXPECT_NE(r.out.find("degrees of freedom: 3\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ok\n"), std::string::npos);
}

}  // namespace
