// The command line's joint-space inputs and outputs: strict comma lists and joints by name
// in `inverse` (cli/inverse.cpp), eval's joints table (cli/table.cpp), the summary's final
// joint state (cli/recorder.cpp), and the check table's spacing and base
// (cli_joint_frame_test.cpp: --joint-frame).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "cli_joint_scenes.hpp"
#include "cli_util.hpp"
#include "two_link_arm.hpp"

namespace appell {
namespace {

using cli_joints::expect_usage_error;
using cli_joints::kFloating;
using cli_joints::numbers;
using testing::CliResult;
using testing::run_cli;
using testing::write_temp;
using json = nlohmann::json;

// the arm of two_link_arm.hpp (straight along x at q = 0)
const char kArm[] = R"j({"gravity": [0, -9.81, 0],
 "bodies": [
  {"name": "upper", "mass": 1.3, "inertia": {"principal": [0.05, 0.05, 0.05]}, "position": [0.25, 0, 0]},
  {"name": "fore", "mass": 0.8, "inertia": {"principal": [0.02, 0.02, 0.02]}, "position": [0.9, 0, 0]}],
 "constraints": [
  {"name": "shoulder", "type": "revolute", "bodies": ["world", "upper"], "anchor": [0, 0, 0], "axis": [0, 0, 1]},
  {"name": "elbow", "type": "revolute", "bodies": ["upper", "fore"], "anchor": [0.6, 0, 0], "axis": [0, 0, 1]}],
 "integrator": {"method": "rk4", "duration": 1, "dt": 0.01}, "output": {"every": 10}})j";

// ---- 1. strict lists and numbers -------------------------------------------------------

TEST(CliJointInputs, TimeMustBeAFiniteNumber) {
  const std::string scene = write_temp("strict_arm.json", kArm);
  for (const char* bad : {"nan", "inf", "-inf", "0x10", "1e999", "1,2", "''"})
    expect_usage_error(run_cli("inverse " + scene + " --t " + bad),
                       std::string("error: --t: expected a finite number (got ") +
                           (std::string(bad) == "''" ? "nothing" : bad) + ")\n");
  EXPECT_EQ(run_cli("inverse " + scene + " --t 1e-3").status, 0);
}

TEST(CliJointInputs, ListItemsAreLocated) {
  const std::string scene = write_temp("strict_arm.json", kArm);
  const std::string inv = "inverse " + scene;
  expect_usage_error(run_cli(inv + " --q 0.1,0.2,"),
                     "error: --q: item 3 is empty (in '0.1,0.2,')\n");
  expect_usage_error(run_cli(inv + " --qd 0.1,,0.2"),
                     "error: --qd: item 2 is empty (in '0.1,,0.2')\n");
  expect_usage_error(run_cli(inv + " --qdd ''"), "error: --qdd: item 1 is empty (in '')\n");
  expect_usage_error(run_cli(inv + " --q 0.1,nan"),
                     "error: --q: item 2: expected a finite number (got nan)\n");
  expect_usage_error(run_cli(inv + " --qd inf,0"),
                     "error: --qd: item 1: expected a finite number (got inf)\n");
  expect_usage_error(run_cli(inv + " --qdd 0x1p3,0"),
                     "error: --qdd: item 1: expected a finite number (got 0x1p3)\n");
  expect_usage_error(run_cli(inv + " --q 0.1,0.2,0.3"),
                     "error: --q: expected 2 values, the tree's joint coordinates in tree order "
                     "(shoulder, elbow), got 3\n");
  expect_usage_error(run_cli(inv + " --q 0.1"),
                     "error: --q: expected 2 values, the tree's joint coordinates in tree order "
                     "(shoulder, elbow), got 1\n");
  expect_usage_error(run_cli(inv + " --actuated shoulder,"),
                     "error: --actuated: item 2 is empty (in 'shoulder,')\n");
  expect_usage_error(run_cli(inv + " --actuated shoulder,shoulder"),
                     "error: --actuated: item 2 ('shoulder'): joint 'shoulder' is given twice "
                     "(also item 1)\n");
  // spaces around items are allowed; the values are the closed form's
  const CliResult r = run_cli(inv + " --q ' 0.4, -0.7 ' --qd '1.1 ,-0.3' --qdd 2,5e-1");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  const Eigen::Vector2d tau = test_arm::TwoLinkArm{}.torques(
      Eigen::Vector2d(0.4, -0.7), Eigen::Vector2d(1.1, -0.3), Eigen::Vector2d(2, 0.5));
  EXPECT_NEAR(j["joints"]["shoulder"]["force"][0].get<double>(), tau(0), 1e-12);
  EXPECT_NEAR(j["joints"]["elbow"]["force"][0].get<double>(), tau(1), 1e-12);
}

// ---- 2. joints by name -----------------------------------------------------------------

TEST(CliJointInputs, NamedValuesMatchTheClosedForm) {
  const std::string scene = write_temp("named_arm.json", kArm);
  // in any order; the elbow's q not named keeps the scene's 0, q̈ not named is 0
  const CliResult r = run_cli("inverse " + scene +
                              " --q shoulder=0.4 --qd elbow=-0.3,shoulder=1.1 --qdd elbow=0.5");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  const Eigen::Vector2d tau = test_arm::TwoLinkArm{}.torques(
      Eigen::Vector2d(0.4, 0), Eigen::Vector2d(1.1, -0.3), Eigen::Vector2d(0, 0.5));
  EXPECT_NEAR(j["joints"]["shoulder"]["force"][0].get<double>(), tau(0), 1e-12);
  EXPECT_NEAR(j["joints"]["elbow"]["force"][0].get<double>(), tau(1), 1e-12);
  EXPECT_EQ(j["joints"]["shoulder"]["q"][0].get<double>(), 0.4);
  EXPECT_EQ(j["joints"]["elbow"]["q"][0].get<double>(), 0.0);
  EXPECT_EQ(j["joints"]["shoulder"]["qdd"][0].get<double>(), 0.0);
}

TEST(CliJointInputs, NamedValueErrorsAreLocated) {
  const std::string scene = write_temp("named_arm.json", kArm);
  const std::string inv = "inverse " + scene;
  expect_usage_error(run_cli(inv + " --q elbw=0.3"),
                     "error: --q: item 1 ('elbw=0.3'): 'elbw' is not a joint of the scene's "
                     "spanning tree (its joints: shoulder, elbow)\n");
  expect_usage_error(run_cli(inv + " --qd elbow=1,shoulder=2,elbow=3"),
                     "error: --qd: item 3 ('elbow=3'): joint 'elbow' is given twice (also item "
                     "1)\n");
  expect_usage_error(run_cli(inv + " --q 0.1,elbow=0.2"),
                     "error: --q: item 2 ('elbow=0.2') names a joint after positional values; "
                     "give every value by name or none\n");
  expect_usage_error(run_cli(inv + " --q shoulder=0.1,0.2"),
                     "error: --q: item 1 ('shoulder=0.1'): joint 'shoulder' (revolute) takes 1 "
                     "value, got 2\n");
  expect_usage_error(run_cli(inv + " --q =0.1"), "error: --q: item 1 ('=0.1') names no joint\n");
  expect_usage_error(run_cli(inv + " --qdd elbow=nan"),
                     "error: --qdd: item 1: expected a finite number (got nan)\n");
  expect_usage_error(run_cli(inv + " --qdd shoulder=1,elbow="),
                     "error: --qdd: item 2: expected a finite number (got nothing)\n");
}

TEST(CliJointInputs, AJointWithSeveralCoordinatesTakesThemAfterItsName) {
  const std::string scene = write_temp("named_floating.json", kFloating);
  const std::string inv = "inverse " + scene;
  // the base's seven coordinates and the hip's four: a resting pose, both unit quaternions
  const CliResult r = run_cli(inv + " --q hip=1,0,0,0,root_joint=0,0,2,1,0,0,0 --qd hip=0,0,3");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(numbers(j["joints"]["root_joint"]["q"]), (std::vector<double>{0, 0, 2, 1, 0, 0, 0}));
  EXPECT_EQ(numbers(j["joints"]["hip"]["qd"]), (std::vector<double>{0, 0, 3}));
  // the base's rates not named keep the scene's
  const std::vector<double> qd = numbers(j["joints"]["root_joint"]["qd"]);
  for (int k = 0; k < 6; ++k)
    EXPECT_NEAR(qd[k], (std::vector<double>{0.3, -0.2, 0.5, 0.7, -1.1, 0.4})[k], 1e-12);
  expect_usage_error(run_cli(inv + " --q root_joint=0,0,2"),
                     "error: --q: item 1 ('root_joint=0'): joint 'root_joint' (free) takes 7 "
                     "values, got 3\n");
  expect_usage_error(run_cli(inv + " --q hip=0,0,0,0"),
                     "error: --q: joint 'hip' (spherical): its quaternion is zero\n");
}

// ---- 3. eval's joints table ------------------------------------------------------------

TEST(CliJointOutputs, EvalTableShowsTheJoints) {
  // the arm released at rest, straight: q̈ = M⁻¹ (−G), M and G from the closed form
  const std::string scene = write_temp("table_arm.json", kArm);
  const CliResult r = run_cli("eval --table " + scene);
  ASSERT_EQ(r.status, 0) << r.err;
  const test_arm::TwoLinkArm arm;
  const Eigen::Vector2d zero(0, 0), G = arm.torques(zero, zero, zero);
  Eigen::Matrix2d M;
  M.col(0) = arm.torques(zero, zero, Eigen::Vector2d(1, 0)) - G;
  M.col(1) = arm.torques(zero, zero, Eigen::Vector2d(0, 1)) - G;
  const Eigen::Vector2d qdd = M.lu().solve(-G);
  const auto brief = [](double x) {
    std::ostringstream os;
    os.precision(4);
    os << x;
    return os.str();
  };
  const size_t header = r.out.find("\n  joint  ");
  ASSERT_NE(header, std::string::npos) << r.out;
  for (const char* c : {"q", "qd", "qdd", "reaction force (N)", "actuator"})
    EXPECT_NE(r.out.find(c, header), std::string::npos) << c;
  for (int k = 0; k < 2; ++k) {
    const std::string name = k == 0 ? "shoulder" : "elbow";
    const size_t row = r.out.find("\n  " + name + " ", header);
    ASSERT_NE(row, std::string::npos) << r.out;
    const std::string line = r.out.substr(row + 1, r.out.find('\n', row + 1) - row - 1);
    EXPECT_NE(line.find("  [" + brief(qdd(k)) + "]  "), std::string::npos)
        << line << " lacks q̈ = " << qdd(k);
  }
}

// ---- 4. the summary's final joint state ------------------------------------------------

TEST(CliJointOutputs, SummaryFinalStateHasTheJoints) {
  // a wheel spinning at 5 rad/s about its hinge for 2 s ends at q = 10 (whole turns kept)
  const std::string scene = write_temp("final_wheel.json", R"j({
    "bodies": [{"name": "wheel", "mass": 1, "inertia": {"cylinder": [0.2, 0.05]},
                "angular_velocity": [0, 0, 5]}],
    "constraints": [{"name": "axle", "type": "revolute", "bodies": ["world", "wheel"],
                     "anchor": [0, 0, 0], "axis": [0, 0, 1]}],
    "integrator": {"method": "rk4", "duration": 2, "dt": 0.01}, "output": {"every": 20}})j");
  const std::string traj = write_temp("final_wheel.csv", "");
  for (const std::string& extra : {std::string(), " --out " + traj}) {
    const CliResult r = run_cli("simulate " + scene + extra);
    ASSERT_EQ(r.status, 0) << r.err;
    const json axle = json::parse(r.out)["final_state"]["joints"]["axle"];
    EXPECT_NEAR(axle["q"][0].get<double>(), 10.0, 1e-9) << extra;
    EXPECT_NEAR(axle["qd"][0].get<double>(), 5.0, 1e-9) << extra;
  }
  // the arm: the joint angles are the bodies' relative turns about z
  const std::string arm = write_temp("final_arm.json", kArm);
  const CliResult r = run_cli("simulate " + arm);
  ASSERT_EQ(r.status, 0) << r.err;
  const json f = json::parse(r.out)["final_state"];
  const auto angle = [&](const char* body) {
    const std::vector<double> q = numbers(f["bodies"][body]["quaternion"]);
    return 2 * std::atan2(q[3], q[0]);
  };
  const auto wz = [&](const char* body) {
    return f["bodies"][body]["angular_velocity"][2].get<double>();
  };
  const auto same_angle = [](double a, double b) {
    return std::abs(std::remainder(a - b, 2 * M_PI));
  };
  EXPECT_LT(same_angle(f["joints"]["shoulder"]["q"][0].get<double>(), angle("upper")), 1e-9);
  EXPECT_LT(same_angle(f["joints"]["elbow"]["q"][0].get<double>(), angle("fore") - angle("upper")),
            1e-9);
  EXPECT_NEAR(f["joints"]["elbow"]["qd"][0].get<double>(), wz("fore") - wz("upper"), 1e-9);
}

// ---- 5. columns never touch; 7. the base -----------------------------------------------

TEST(CliJointOutputs, CheckColumnsStayApartAndTheBaseIsStated) {
  const std::string name = "panda_leftfinger_rigid_body_of_a_long_name";
  const std::string joint = "panda_finger_joint_with_a_name_longer_than_any_column";
  const std::string scene = write_temp("long_names.json", R"j({
    "bodies": [{"name": ")j" + name + R"j(", "mass": 1, "inertia": {"principal": [1, 1, 1]}}],
    "constraints": [{"name": ")j" + joint + R"j(", "type": "revolute", "bodies": ["world", ")j" +
                                                              name + R"j("],
                     "anchor": [0, 0, 0], "axis": [0, 0, 1]}]})j");
  const CliResult plain = run_cli("check " + scene);
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_NE(plain.out.find("  " + name + "  rigid"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("  " + joint + "  revolute"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("base: fixed (joint '" + joint + "', revolute, holds body '" + name +
                           "' to the world)\n"),
            std::string::npos)
      << plain.out;
  const CliResult table = run_cli("check --table " + scene);
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("  " + name + "  rigid"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("  " + joint + "  revolute"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("\nbase: fixed"), std::string::npos) << table.out;
  const json j = json::parse(run_cli("check --json " + scene).out);
  EXPECT_EQ(j["bases"][0]["base"], "fixed");
  EXPECT_EQ(j["bases"][0]["joint"], joint);

  // a floating base: a free joint to the world, or no joint at all
  const CliResult floating = run_cli("check " + write_temp("base_floating.json", kFloating));
  EXPECT_NE(floating.out.find("base: floating (body 'base' on free joint 'root_joint')\n"),
            std::string::npos)
      << floating.out;
  const CliResult loose = run_cli("check " + write_temp("base_loose.json",
                                                        R"j({"bodies": [{"name": "box", "mass": 1,
                                  "inertia": {"principal": [1, 1, 1]}}]})j"));
  EXPECT_NE(loose.out.find("base: floating (body 'box', no joint to the world)\n"),
            std::string::npos)
      << loose.out;
}

}  // namespace
}  // namespace appell
