// `appell simulate` with unilateral rows: joint limits from the scene, the moreau method
// chosen for them, and the errors of asking otherwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace appell::testing {
namespace {

const std::string kScene = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/limits_pendulum.json";

TEST(ContactCli, LimitedPendulumRestsOnItsLimit) {
  const std::string summary = write_temp("limits_summary.json", "");
  const CliResult r = run_cli("simulate " + kScene + " --quiet --summary " + summary);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto s = nlohmann::json::parse(read_file(summary));
  EXPECT_EQ(s["integrator"], "moreau");
  EXPECT_GE(s["contact"]["impacts"].get<long>(), 1);
  EXPECT_EQ(s["contact"]["unconverged_steps"].get<long>(), 0);
  // the rod falls towards negative angles and stops on lower = −1 rad (the input)
  EXPECT_NEAR(s["final_state"]["joints"]["hinge"]["q"][0].get<double>(), -1.0, 1e-6);
  // no energy gained: the impact takes energy out (initial energy 0 at rest at z = 0)
  EXPECT_LT(s["energy"]["final"].get<double>(), s["energy"]["initial"].get<double>());
}

TEST(ContactCli, SmoothMethodWithLimitsIsAnError) {
  const std::string scene = read_file(kScene);
  std::string asked = scene;
  asked.replace(asked.find("\"integrator\": {"), 15, "\"integrator\": {\"method\": \"rk4\", ");
  const std::string path = write_temp("limits_rk4.json", asked);
  const std::string out = write_temp("limits_rk4_out.csv", "keep");
  const CliResult r = run_cli("simulate " + path + " --quiet --out " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("error: "), std::string::npos);
  EXPECT_NE(r.err.find("moreau"), std::string::npos);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  EXPECT_EQ(read_file(out), "keep");  // nothing written
  // limits off: the smooth method runs, and the rod swings through the old limit
  std::string off = asked;
  off.replace(off.find("\"output\""), 8, "\"contact\": {\"joint_limits\": false}, \"output\"");
  const std::string path_off = write_temp("limits_off.json", off);
  const CliResult ok = run_cli("simulate " + path_off + " --quiet");
  EXPECT_EQ(ok.status, 0) << ok.err;
  // another formulation cannot step unilateral rows yet
  const CliResult pinv = run_cli("simulate " + kScene + " --quiet --formulation pinv");
  EXPECT_EQ(pinv.status, 2);
  EXPECT_NE(pinv.err.find("recursive"), std::string::npos);
}

TEST(ContactCli, BadLimitIsLocated) {
  std::string scene = read_file(kScene);
  scene.replace(scene.find("\"lower\": -1.0"), 13, "\"lower\": 2.0");
  const std::string path = write_temp("limits_bad.json", scene);
  const CliResult r = run_cli("simulate " + path + " --quiet");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("/constraints/0/limit"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace appell::testing
