// The command line's joint-space inputs and outputs: strict comma lists and joints by name
// in `inverse` (cli/inverse.cpp), eval's joints table (cli/table.cpp), the summary's final
// joint state (cli/recorder.cpp), the check table's spacing and base, and --joint-frame
// (appell/joint_columns.hpp, F1 and F2) against rotations computed here.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "cli_util.hpp"
#include "two_link_arm.hpp"

namespace appell {
namespace {

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

// a floating base on a free joint, turned and moving, and a ball on a damped spherical
// joint, turned and spinning (joint space: the joints place the bodies)
const char kFloating[] = R"j({"gravity": [0, 0, -9.81],
 "bodies": [
  {"name": "base", "mass": 3, "inertia": {"principal": [0.1, 0.2, 0.3]}, "com": [0.05, 0, 0]},
  {"name": "ball", "mass": 1, "inertia": {"principal": [0.01, 0.02, 0.03]}, "com": [0, 0, -0.1]}],
 "constraints": [
  {"name": "root_joint", "type": "free", "bodies": ["world", "base"], "origin": {"xyz": [0, 0, 0]},
   "q": [0.1, 0.2, 1.0, 0.8, 0.2, -0.4, 0.4], "qd": [0.3, -0.2, 0.5, 0.7, -1.1, 0.4]},
  {"name": "hip", "type": "spherical", "bodies": ["base", "ball"], "origin": {"xyz": [0.2, 0, 0]},
   "q": [0.9, -0.3, 0.2, 0.25], "qd": [1.5, 0.4, -0.8]}],
 "forces": [{"type": "joint_damping", "joint": "hip", "damping": 0.3}],
 "integrator": {"method": "rk4", "duration": 0.2, "dt": 0.001}, "output": {"every": 50}})j";

std::vector<double> numbers(const json& a) {
  std::vector<double> v;
  for (const json& x : a) v.push_back(x.get<double>());
  return v;
}

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

void expect_usage_error(const CliResult& r, const std::string& message) {
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, message);
  EXPECT_EQ(r.out, "");
}

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

// ---- 6. --joint-frame ------------------------------------------------------------------

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
