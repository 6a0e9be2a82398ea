// `appell inverse`, eval's joints and the joint columns of traj.csv and forces.csv
// (cli/inverse.cpp, cli/joint_outputs.cpp), against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "cli_util.hpp"
#include "two_link_arm.hpp"

namespace appell {
namespace {

using testing::run_cli;
using testing::write_temp;

// the arm of two_link_arm.hpp as a scene (straight along x at q = 0), plus `extra`
// constraints and `forces`
std::string arm_scene(const std::string& extra, const std::string& forces) {
  return R"j({"gravity": [0, -9.81, 0],
 "bodies": [
  {"name": "upper", "mass": 1.3, "inertia": {"principal": [0.05, 0.05, 0.05]}, "position": [0.25, 0, 0]},
  {"name": "fore", "mass": 0.8, "inertia": {"principal": [0.02, 0.02, 0.02]}, "position": [0.9, 0, 0]}],
 "constraints": [
  {"name": "shoulder", "type": "revolute", "bodies": ["world", "upper"], "anchor": [0, 0, 0], "axis": [0, 0, 1]},
  {"name": "elbow", "type": "revolute", "bodies": ["upper", "fore"], "anchor": [0.6, 0, 0], "axis": [0, 0, 1]})j" +
         extra + R"j(],
 "forces": [)j" +
         forces +
         R"j(],
 "integrator": {"method": "rk4", "duration": 1, "dt": 0.01}, "output": {"every": 10}})j";
}

std::vector<std::vector<std::string>> csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) {
    rows.emplace_back();
    std::stringstream l(line);
    for (std::string f; std::getline(l, f, ',');) rows.back().push_back(f);
  }
  return rows;
}

int column(const std::vector<std::string>& header, const std::string& name) {
  for (size_t k = 0; k < header.size(); ++k)
    if (header[k] == name) return static_cast<int>(k);
  ADD_FAILURE() << "no column " << name;
  return 0;
}

TEST(InverseCli, TwoLinkArmMatchesTheClosedForm) {
  const std::string scene = write_temp("inverse_arm.json", arm_scene("", ""));
  const auto r = run_cli("inverse " + scene + " --q 0.4,-0.7 --qd 1.1,-0.3 --qdd 2,0.5 --t 0.2");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const Eigen::Vector2d tau = test_arm::TwoLinkArm{}.torques(
      Eigen::Vector2d(0.4, -0.7), Eigen::Vector2d(1.1, -0.3), Eigen::Vector2d(2, 0.5));
  EXPECT_NEAR(j["joints"]["shoulder"]["force"][0].get<double>(), tau(0), 1e-12);
  EXPECT_NEAR(j["joints"]["elbow"]["force"][0].get<double>(), tau(1), 1e-12);
  EXPECT_EQ(j["joints"]["elbow"]["q"][0].get<double>(), -0.7);
  EXPECT_EQ(j["method"], "rnea");
}

TEST(InverseCli, UnderActuatedLoopReportsTheResidual) {
  // the elbow prescribed: with only the shoulder actuated the motion is producible when
  // q̈_elbow is the prescribed one (residual 0), and the prescribed force is the elbow's
  const std::string scene = write_temp(
      "inverse_drive.json",
      arm_scene(R"j(, {"name": "drive", "type": "prescribed", "joint": "elbow", "q": "0.5*t"})j",
                ""));
  const auto r = run_cli("inverse " + scene + " --qd 0.3,0.5 --qdd 1.5,0 --actuated shoulder");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const Eigen::Vector2d tau = test_arm::TwoLinkArm{}.torques(
      Eigen::Vector2d(0, 0), Eigen::Vector2d(0.3, 0.5), Eigen::Vector2d(1.5, 0));
  EXPECT_NEAR(j["joints"]["shoulder"]["force"][0].get<double>(), tau(0), 1e-10);
  EXPECT_NEAR(j["joints"]["elbow"]["force"][0].get<double>(), 0.0, 1e-12);
  EXPECT_NEAR(j["constraints"]["drive"]["multipliers"][0].get<double>(), tau(1), 1e-10);
  EXPECT_LT(j["constraint_residual"].get<double>(), 1e-12);
  EXPECT_LT(j["force_residual"].get<double>(), 1e-10);
}

TEST(InverseCli, UsageErrorsAreLocated) {
  const std::string scene = write_temp("inverse_arm.json", arm_scene("", ""));
  auto r = run_cli("inverse " + scene + " --q 0.1");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "error: --q: expected 2 values, the tree's joint coordinates in tree order "
            "(shoulder, elbow), got 1\n");
  EXPECT_EQ(r.out, "");
  r = run_cli("inverse " + scene + " --qdd 1,nan");
  EXPECT_EQ(r.status, 2);
  r = run_cli("inverse " + scene + " --actuated wrist");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "error: --actuated: 'wrist' is not a joint of the scene's spanning tree (its joints: "
            "shoulder, elbow)\n");
  const std::string bad =
      write_temp("inverse_bad.json",
                 arm_scene("", R"j({"type": "pd", "joint": "elbow", "kp": -1, "target": 0})j"));
  r = run_cli("inverse " + bad);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind("error: " + bad + ": /forces/0/kp: ", 0), 0u) << r.err;
}

TEST(EvalCli, JointsReportCoordinatesReactionsAndActuators) {
  const std::string scene = write_temp(
      "eval_joints.json",
      arm_scene(
          R"j(, {"name": "drive", "type": "prescribed", "joint": "elbow", "q": "0.5*sin(2*t)"})j",
          R"j({"type": "joint_damping", "joint": "elbow", "damping": 0.1},
                    {"type": "joint_torque", "joint": "shoulder", "value": "2 + t"})j"));
  const auto r = run_cli("eval " + scene);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& elbow = j["joints"]["elbow"];
  EXPECT_NEAR(elbow["qd"][0].get<double>(), 1.0, 1e-12);  // ḟ(0) = 1: velocities projected
  EXPECT_NEAR(elbow["qdd"][0].get<double>(), 0.0, 1e-9);  // f̈(0) = 0
  // the actuator: the prescribed force plus the damping −0.1 q̇
  const double lambda = j["constraints"]["drive"]["multipliers"][0].get<double>();
  EXPECT_NEAR(elbow["force"]["actuator"][0].get<double>(), lambda - 0.1, 1e-12);
  EXPECT_NEAR(j["joints"]["shoulder"]["force"]["actuator"][0].get<double>(), 2.0, 1e-15);
  // a revolute joint transmits no moment about its axis (z of its frame)
  for (const char* name : {"shoulder", "elbow"})
    EXPECT_NEAR(j["joints"][name]["force"]["reaction"]["moment"][2].get<double>(), 0.0, 1e-12);
  // the shoulder's reaction is the constraint force on `upper` (world frame) seen in the
  // joint frame, whose z is the joint axis (world z here): same length, same z component
  const auto& f = j["constraints"]["shoulder"]["bodies"]["upper"]["force"];
  const auto& rf = j["joints"]["shoulder"]["force"]["reaction"]["force"];
  double nf = 0, nr = 0;
  for (int k = 0; k < 3; ++k) {
    nf += f[k].get<double>() * f[k].get<double>();
    nr += rf[k].get<double>() * rf[k].get<double>();
  }
  EXPECT_GT(nf, 1.0);
  EXPECT_NEAR(nr, nf, 1e-10);
  EXPECT_NEAR(rf[2].get<double>(), f[2].get<double>(), 1e-12);
}

TEST(CheckCli, CountsJointSpace) {
  const std::string scene = write_temp(
      "check_joints.json",
      arm_scene(R"j(, {"name": "drive", "type": "prescribed", "joint": "elbow", "q": "0"})j", ""));
  const auto r = run_cli("check " + scene);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("degrees of freedom: 1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("joint coordinates: 2 (q), joint velocities: 2 (u), in 2 tree joints\n"
                       "constraints beyond the tree: 1 rows, rank 1\n"),
            std::string::npos)
      << r.out;
}

TEST(SimulateCli, JointColumnsFollowThePrescribedMotion) {
  const std::string scene = write_temp(
      "sim_joints.json",
      arm_scene(
          R"j(, {"name": "drive", "type": "prescribed", "joint": "elbow", "q": "0.5*sin(2*t)"})j",
          R"j({"type": "pd", "joint": "shoulder", "kp": 50, "kd": 5, "target": "0.3*sin(t)"})j"));
  const std::string traj = write_temp("sim_joints.csv", ""), forces = write_temp("sim_f.csv", "");
  const auto r = run_cli("simulate " + scene + " --quiet --out " + traj + " --forces " + forces);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto t = csv(testing::read_file(traj));
  ASSERT_EQ(t.size(), 12u);
  // the existing columns first, the joints' after them
  const std::vector<std::string> tail(t[0].end() - 7, t[0].end());
  EXPECT_EQ(tail, (std::vector<std::string>{"energy", "violation_position", "violation_velocity",
                                            "shoulder.q", "shoulder.qd", "elbow.q", "elbow.qd"}));
  const int q = column(t[0], "elbow.q"), qd = column(t[0], "elbow.qd");
  for (size_t i = 1; i < t.size(); ++i) {
    const double time = std::stod(t[i][0]);
    EXPECT_NEAR(std::stod(t[i][q]), 0.5 * std::sin(2 * time), 1e-7) << time;
    EXPECT_NEAR(std::stod(t[i][qd]), std::cos(2 * time), 1e-7) << time;
  }
  const auto f = csv(testing::read_file(forces));
  const std::vector<std::string> ftail(f[0].end() - 4, f[0].end());
  EXPECT_EQ(ftail, (std::vector<std::string>{"shoulder.tau", "shoulder.power", "elbow.tau",
                                             "elbow.power"}));
  for (size_t i = 1; i < f.size(); ++i)
    EXPECT_NEAR(std::stod(f[i][column(f[0], "elbow.power")]),
                std::stod(f[i][column(f[0], "elbow.tau")]) * std::stod(t[i][qd]), 1e-9);
}

TEST(SimulateCli, JointAnglesAreContinuousOverWholeTurns) {
  // a wheel spinning at 5 rad/s about its hinge for 2 s: q = 5 t, past ±π
  const std::string scene = write_temp("wheel.json", R"j({
    "bodies": [{"name": "wheel", "mass": 1, "inertia": {"cylinder": [0.2, 0.05]},
                "angular_velocity": [0, 0, 5]}],
    "constraints": [{"name": "axle", "type": "revolute", "bodies": ["world", "wheel"],
                     "anchor": [0, 0, 0], "axis": [0, 0, 1]}],
    "integrator": {"method": "rk4", "duration": 2, "dt": 0.01}, "output": {"every": 20}})j");
  const std::string traj = write_temp("wheel.csv", "");
  const auto r = run_cli("simulate " + scene + " --quiet --out " + traj);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto t = csv(testing::read_file(traj));
  const int q = column(t[0], "axle.q");
  for (size_t i = 1; i < t.size(); ++i)
    EXPECT_NEAR(std::stod(t[i][q]), 5 * std::stod(t[i][0]), 1e-9);
  EXPECT_GT(std::stod(t.back()[q]), 9.9);
}

}  // namespace
}  // namespace appell
