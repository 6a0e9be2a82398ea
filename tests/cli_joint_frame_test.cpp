// The command line's --joint-frame (appell/joint_columns.hpp, F1 and F2): eval's, simulate's
// and inverse's joint values in the child frame against rotations computed here.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_joint_scenes.hpp"
#include "cli_util.hpp"

namespace appell {
namespace {

using cli_joints::expect_usage_error;
using cli_joints::kFloating;
using cli_joints::numbers;
using testing::CliResult;
using testing::run_cli;
using testing::write_temp;
using json = nlohmann::json;

// the rotation of a quaternion [w x y z], normalized
Eigen::Matrix3d rotation(const std::vector<double>& q, size_t at = 0) {
  return Eigen::Quaterniond(q[at], q[at + 1], q[at + 2], q[at + 3]).normalized().toRotationMatrix();
}

Eigen::Vector3d part(const std::vector<double>& v, size_t at) {
  return {v[at], v[at + 1], v[at + 2]};
}

void expect_near(const Eigen::Vector3d& a, const Eigen::Vector3d& b, double tol, const char* what) {
  EXPECT_LT((a - b).norm(), tol) << what << ": " << a.transpose() << " vs " << b.transpose();
}

TEST(CliJointFrame, EvalChildFrameIsTheParentFrameRotated) {
  const std::string scene = write_temp("frame_floating.json", kFloating);
  const CliResult rp = run_cli("eval --json " + scene);
  const CliResult rc = run_cli("eval --json --joint-frame child " + scene);
  ASSERT_EQ(rp.status, 0) << rp.err;
  ASSERT_EQ(rc.status, 0) << rc.err;
  const json p = json::parse(rp.out), c = json::parse(rc.out);
  EXPECT_EQ(p["joint_frame"], "parent");
  EXPECT_EQ(c["joint_frame"], "child");
  EXPECT_EQ(p["joints"]["root_joint"]["frame"], "parent");
  EXPECT_EQ(c["joints"]["hip"]["frame"], "child");

  // the base: R from the scene's quaternion (the input), u in the parent frame the scene's qd
  const json& bp = p["joints"]["root_joint"];
  const json& bc = c["joints"]["root_joint"];
  const Eigen::Matrix3d R = rotation({0.8, 0.2, -0.4, 0.4});
  const std::vector<double> up = numbers(bp["qd"]), uc = numbers(bc["qd"]);
  for (int k = 0; k < 6; ++k)
    EXPECT_NEAR(up[k], (std::vector<double>{0.3, -0.2, 0.5, 0.7, -1.1, 0.4})[k], 1e-12);
  expect_near(part(uc, 0), R.transpose() * part(up, 0), 1e-12, "base v");
  expect_near(part(uc, 3), R.transpose() * part(up, 3), 1e-12, "base ω");
  // q̈ in the child frame is d/dt of the child-frame rates: (Rᵀ d̈ − ω_G × v_G; Rᵀ ω̇)
  const std::vector<double> ap = numbers(bp["qdd"]), ac = numbers(bc["qdd"]);
  expect_near(part(ac, 0), R.transpose() * part(ap, 0) - part(uc, 3).cross(part(uc, 0)), 1e-10,
              "base a");
  expect_near(part(ac, 3), R.transpose() * part(ap, 3), 1e-10, "base α");

  // the hip: R from its quaternion; the damping torque −c u in both frames; same power
  const json& hp = p["joints"]["hip"];
  const json& hc = c["joints"]["hip"];
  const Eigen::Matrix3d Rh = rotation(numbers(hp["q"]));
  const Eigen::Vector3d wp = part(numbers(hp["qd"]), 0), wc = part(numbers(hc["qd"]), 0);
  const Eigen::Vector3d tp = part(numbers(hp["force"]["actuator"]), 0),
                        tc = part(numbers(hc["force"]["actuator"]), 0);
  expect_near(wc, Rh.transpose() * wp, 1e-12, "hip ω");
  expect_near(tp, -0.3 * wp, 1e-12, "hip τ (parent)");
  expect_near(tc, -0.3 * wc, 1e-12, "hip τ (child)");
  EXPECT_NEAR(tc.dot(wc), tp.dot(wp), 1e-12);
  expect_near(part(numbers(hc["qdd"]), 0), Rh.transpose() * part(numbers(hp["qdd"]), 0), 1e-10,
              "hip α");
  expect_near(part(numbers(hc["force"]["reaction"]["force"]), 0),
              Rh.transpose() * part(numbers(hp["force"]["reaction"]["force"]), 0), 1e-10,
              "hip reaction");

  expect_usage_error(run_cli("eval --joint-frame body " + scene),
                     "error: --joint-frame: unknown frame 'body'; expected parent (the parent "
                     "joint frame: the world for a floating base) or child (the child's joint "
                     "frame: the body frame for a floating base)\n");
}

std::vector<std::vector<double>> csv_rows(const std::string& text, std::vector<std::string>& head) {
  std::vector<std::vector<double>> rows;
  std::stringstream s(text);
  std::string line;
  std::getline(s, line);
  std::stringstream h(line);
  head.clear();
  for (std::string f; std::getline(h, f, ',');) head.push_back(f);
  while (std::getline(s, line)) {
    rows.emplace_back();
    std::stringstream l(line);
    for (std::string f; std::getline(l, f, ',');) rows.back().push_back(std::stod(f));
  }
  return rows;
}

size_t col(const std::vector<std::string>& head, const std::string& name) {
  for (size_t k = 0; k < head.size(); ++k)
    if (head[k] == name) return k;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

TEST(CliJointFrame, SimulateColumnsRotateWithTheBody) {
  const std::string scene = write_temp("frame_sim.json", kFloating);
  std::vector<std::vector<double>> traj[2], forces[2];
  std::vector<std::string> th, fh;
  json summary[2];
  for (int k = 0; k < 2; ++k) {
    const std::string t = write_temp("frame_traj" + std::to_string(k) + ".csv", "");
    const std::string f = write_temp("frame_forces" + std::to_string(k) + ".csv", "");
    const CliResult r = run_cli("simulate " + scene + " --out " + t + " --forces " + f +
                                (k ? " --joint-frame child" : ""));
    ASSERT_EQ(r.status, 0) << r.err;
    summary[k] = json::parse(r.out);
    traj[k] = csv_rows(testing::read_file(t), th);
    forces[k] = csv_rows(testing::read_file(f), fh);
  }
  EXPECT_EQ(summary[0]["final_state"]["joints"]["root_joint"]["frame"], "parent");
  ASSERT_EQ(traj[0].size(), traj[1].size());
  ASSERT_GE(traj[0].size(), 3u);
  for (size_t i = 0; i < traj[0].size(); ++i) {
    const std::vector<double>& a = traj[0][i];
    const std::vector<double>& b = traj[1][i];
    // the body's orientation and world angular velocity from its own columns
    const Eigen::Matrix3d Q = rotation(a, col(th, "base.qw"));
    const Eigen::Vector3d w(a[col(th, "base.wx")], a[col(th, "base.wy")], a[col(th, "base.wz")]);
    const auto qd = [&](const std::vector<double>& row, int k) {
      return row[col(th, "root_joint.qd" + std::to_string(k))];
    };
    const Eigen::Vector3d wp(qd(a, 3), qd(a, 4), qd(a, 5)), wc(qd(b, 3), qd(b, 4), qd(b, 5));
    const Eigen::Vector3d vp(qd(a, 0), qd(a, 1), qd(a, 2)), vc(qd(b, 0), qd(b, 1), qd(b, 2));
    expect_near(wp, w, 1e-12, "parent frame ω is the world's");
    expect_near(wc, Q.transpose() * w, 1e-12, "child frame ω");
    expect_near(vc, Q.transpose() * vp, 1e-12, "child frame v");
    // the hip's damping torque: the same power in both frames
    const std::vector<double>& fa = forces[0][i];
    const std::vector<double>& fb = forces[1][i];
    EXPECT_NEAR(fa[col(fh, "hip.power")], fb[col(fh, "hip.power")], 1e-12);
    double power = 0;
    for (int k = 0; k < 3; ++k)
      power +=
          fb[col(fh, "hip.tau" + std::to_string(k))] * b[col(th, "hip.qd" + std::to_string(k))];
    EXPECT_NEAR(power, fa[col(fh, "hip.power")], 1e-12);
  }
  // the summary's final joints are the last row's
  const std::vector<double>& last = traj[1].back();
  const std::vector<double> fq = numbers(summary[1]["final_state"]["joints"]["root_joint"]["qd"]);
  for (int k = 0; k < 6; ++k)
    EXPECT_NEAR(fq[k], last[col(th, "root_joint.qd" + std::to_string(k))], 1e-12);
  EXPECT_EQ(summary[1]["final_state"]["joints"]["hip"]["frame"], "child");
}

TEST(CliJointFrame, InverseTakesAndGivesChildFrameValues) {
  const std::string scene = write_temp("frame_inverse.json", kFloating);
  // a pose, child-frame rates and accelerations, and their parent-frame equivalents here
  const std::vector<double> qb{0.1, 0.2, 1.0, 0.8, 0.2, -0.4, 0.4}, qh{0.9, -0.3, 0.2, 0.25};
  const Eigen::Matrix3d R = rotation(qb, 3), Rh = rotation(qh);
  const Eigen::Vector3d vG(0.3, -0.2, 0.5), wG(0.7, -1.1, 0.4), aG(1, 2, -3), alG(-0.5, 0.2, 0.9);
  const Eigen::Vector3d whG(1.5, 0.4, -0.8), alhG(0.3, -0.6, 0.1);
  const auto list = [](std::initializer_list<Eigen::Vector3d> parts) {
    std::ostringstream os;
    os.precision(17);
    for (const Eigen::Vector3d& p : parts)
      for (int k = 0; k < 3; ++k) os << (os.tellp() > 0 ? "," : "") << p(k);
    return os.str();
  };
  const std::string q = " --q root_joint=0.1,0.2,1.0,0.8,0.2,-0.4,0.4,hip=0.9,-0.3,0.2,0.25";
  const std::string child = "inverse " + scene + q + " --qd root_joint=" + list({vG, wG}) +
                            ",hip=" + list({whG}) + " --qdd root_joint=" + list({aG, alG}) +
                            ",hip=" + list({alhG}) + " --joint-frame child";
  // d̈ = R (a_G + ω_G × v_G), ω̇ = R α_G (the inverse of F2)
  const std::string parent = "inverse " + scene + q + " --qd root_joint=" + list({R * vG, R * wG}) +
                             ",hip=" + list({Rh * whG}) +
                             " --qdd root_joint=" + list({R * (aG + wG.cross(vG)), R * alG}) +
                             ",hip=" + list({Rh * alhG});
  const CliResult rc = run_cli(child), rp = run_cli(parent);
  ASSERT_EQ(rc.status, 0) << rc.err;
  ASSERT_EQ(rp.status, 0) << rp.err;
  const json c = json::parse(rc.out), p = json::parse(rp.out);
  const std::vector<double> tc = numbers(c["joints"]["root_joint"]["force"]),
                            tp = numbers(p["joints"]["root_joint"]["force"]);
  expect_near(part(tc, 0), R.transpose() * part(tp, 0), 1e-9, "base force");
  expect_near(part(tc, 3), R.transpose() * part(tp, 3), 1e-9, "base moment");
  const Eigen::Vector3d hc = part(numbers(c["joints"]["hip"]["force"]), 0),
                        hp = part(numbers(p["joints"]["hip"]["force"]), 0);
  expect_near(hc, Rh.transpose() * hp, 1e-9, "hip torque");
  // the power of the joint forces is the same in both frames
  const double power_c = part(tc, 0).dot(vG) + part(tc, 3).dot(wG) + hc.dot(whG);
  const double power_p = part(tp, 0).dot(R * vG) + part(tp, 3).dot(R * wG) + hp.dot(Rh * whG);
  EXPECT_NEAR(power_c, power_p, 1e-9);
  EXPECT_EQ(c["joints"]["root_joint"]["frame"], "child");
  EXPECT_NEAR(c["joints"]["root_joint"]["qdd"][0].get<double>(), aG(0), 1e-15);
}

}  // namespace
}  // namespace appell
