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

// A contact solver held to two iterations on the shipped stack cannot reach 1e-10: the run
// goes to its end, keeps every output row, says how many steps missed and exits 3; the scene
// may accept them ("on_unconverged": "warn"): the same outputs, a warning, exit 0.
TEST(ContactCli, UnconvergedStepsFailTheRunUnlessTheSceneAllowsThem) {
  const std::string stack =
      read_file(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/contact_box_stack.json");
  const auto with_contact = [&](const std::string& contact) {
    auto j = nlohmann::json::parse(stack);
    j["contact"] = nlohmann::json::parse(contact);
    j["integrator"]["duration"] = 0.05;
    return j.dump();
  };
  const auto rows = [](const std::string& csv) { return std::count(csv.begin(), csv.end(), '\n'); };
  struct Run {
    CliResult r;
    std::string csv;
    nlohmann::json summary;
  };
  const auto run = [&](const std::string& name, const std::string& contact) {
    const std::string scene = write_temp(name + ".json", with_contact(contact));
    const std::string out = write_temp(name + ".csv", ""), sum = write_temp(name + "_s.json", "");
    Run x{run_cli("simulate " + scene + " --quiet --out " + out + " --summary " + sum), "", {}};
    x.csv = read_file(out);
    x.summary = nlohmann::json::parse(read_file(sum));
    return x;
  };
  const Run ok = run("stack_converged", R"({})");
  ASSERT_EQ(ok.r.status, 0) << ok.r.err;
  EXPECT_EQ(ok.r.err, "");
  // a tolerance below the rounding of the impulses' sums: no solver meets it
  const Run fail = run("stack_unconverged", R"({"max_iterations": 2, "tolerance": 1e-22})");
  EXPECT_EQ(fail.r.status, 3) << fail.r.err;
  EXPECT_NE(fail.r.err.find("error: "), std::string::npos) << fail.r.err;
  EXPECT_NE(fail.r.err.find("the contact solver missed its tolerance 1e-22 on "), std::string::npos)
      << fail.r.err;
  EXPECT_NE(fail.r.err.find("\"on_unconverged\": \"warn\""), std::string::npos) << fail.r.err;
  // everything computed is kept: every output instant of the converged run
  EXPECT_EQ(rows(fail.csv), rows(ok.csv));
  const long missed = fail.summary["contact"]["unconverged_steps"].get<long>();
  EXPECT_GT(missed, 0);
  EXPECT_NE(fail.r.err.find(" on " + std::to_string(missed) + " step"), std::string::npos);
  const Run warn =
      run("stack_warn", R"({"max_iterations": 2, "tolerance": 1e-22, "on_unconverged": "warn"})");
  EXPECT_EQ(warn.r.status, 0) << warn.r.err;
  EXPECT_EQ(warn.r.err.rfind("warning: ", 0), 0u) << warn.r.err;
  EXPECT_EQ(warn.csv, fail.csv);
  EXPECT_EQ(warn.summary["contact"]["unconverged_steps"].get<long>(), missed);
}

TEST(ContactCli, UnknownUnconvergedPolicyIsLocated) {
  auto j = nlohmann::json::parse(read_file(kScene));
  j["contact"] = {{"on_unconverged", "ignore"}};
  const CliResult r = run_cli("check " + write_temp("bad_policy.json", j.dump()));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("/contact/on_unconverged: expected \"fail\" or \"warn\", got \"ignore\""),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace appell::testing
