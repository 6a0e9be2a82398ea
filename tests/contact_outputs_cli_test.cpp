// `appell simulate --contacts`, forces.csv's limit columns, the summary's contact figures and
// `appell eval`'s contacts (cli/contact_outputs.hpp), against statics and counts read from
// the other outputs; and the output rules (docs/scene-format.md, "Outputs").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_util.hpp"

namespace appell {
namespace {

using testing::read_file;
using testing::run_cli;
using testing::write_temp;
using json = nlohmann::json;

constexpr double kG = 9.81;

// a CSV file as header and rows of fields
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int col(const std::string& name) const {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    ADD_FAILURE() << "no column " << name;
    return 0;
  }
};
std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) out.push_back(field);
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}
Table parse(const std::string& text) {
  Table t;
  std::istringstream in(text);
  std::string line;
  if (std::getline(in, line)) t.header = split(line);
  while (std::getline(in, line)) t.rows.push_back(split(line));
  return t;
}

const std::string kRestingBox = R"({"name": "resting box", "gravity": [0, 0, -9.81],
  "shapes": [{"name": "ground", "type": "plane", "friction": 0.8}],
  "bodies": [{"name": "box", "mass": 2.0, "inertia": {"box": [0.4, 0.3, 0.2]},
    "position": [0, 0, 0.1],
    "shapes": [{"name": "crate", "type": "box", "size": [0.4, 0.3, 0.2]}]}],
  "integrator": {"method": "moreau", "duration": 0.05, "dt": 0.001},
  "contact": {"tolerance": 1e-12}, "output": {"every": 10}})";

TEST(ContactOutputsCli, ContactsCsvOfARestingBoxSumsToItsWeight) {
  const std::string scene = write_temp("resting_box.json", kRestingBox);
  const std::string out = ::testing::TempDir() + "resting_contacts.csv";
  const testing::CliResult r = run_cli("simulate " + scene + " --quiet --contacts " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  const Table t = parse(read_file(out));
  ASSERT_EQ(t.header.size(), 22u);
  EXPECT_EQ(t.header[0], "t");
  std::map<std::string, double> fz;  // per sample time: Σ normal force along +z on the box
  for (const auto& row : t.rows) {
    ASSERT_EQ(row.size(), t.header.size());
    EXPECT_EQ(row[t.col("kind")], "contact");
    const bool box_is_b = row[t.col("body_b")] == "box";
    EXPECT_EQ(row[t.col(box_is_b ? "body_a" : "body_b")], "world");
    EXPECT_EQ(row[t.col(box_is_b ? "shape_b" : "shape_a")], "crate");
    EXPECT_EQ(row[t.col(box_is_b ? "shape_a" : "shape_b")], "ground");
    EXPECT_EQ(row[t.col("joint")], "");
    EXPECT_NE(row[t.col("state")], "slip");
    EXPECT_NEAR(std::stod(row[t.col("friction")]), 0.0, 1e-8);
    const double nz = std::stod(row[t.col("nz")]), f = std::stod(row[t.col("normal_force")]);
    fz[row[0]] += (box_is_b ? 1.0 : -1.0) * nz * f;
  }
  // samples every 10 steps of 0.05 s: t = 0.01 ... 0.05 (none at t = 0: no step yet)
  ASSERT_EQ(fz.size(), 5u);
  for (const auto& [time, f] : fz) EXPECT_NEAR(f, 2.0 * kG, 1e-8) << "t = " << time;
}

TEST(ContactOutputsCli, ContactsCsvFollowsTheOutputRules) {
  const std::string scene = write_temp("rules_box.json", kRestingBox);
  const std::string before = read_file(scene);
  // the scene itself as the output: refused, the scene untouched
  testing::CliResult r = run_cli("simulate " + scene + " --quiet --contacts " + scene);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--contacts"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(scene), before);
  // the same path as another output: refused
  const std::string same = ::testing::TempDir() + "same_output.csv";
  r = run_cli("simulate " + scene + " --quiet --out " + same + " --contacts " + same);
  EXPECT_EQ(r.status, 2);
  // a full device: exit 2, one error line
  r = run_cli("simulate " + scene + " --quiet --contacts /dev/full");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("error: "), std::string::npos);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // bad input: an existing contacts file stays as it was
  const std::string kept = write_temp("kept_contacts.csv", "old\n");
  r = run_cli("simulate " + scene + " --quiet --dt -1 --contacts " + kept);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(read_file(kept), "old\n");
}

// The rod of limits_pendulum.json rests on its lower limit: forces.csv's hinge.limit_force
// is gravity's moment about the hinge, m g y with y the lever arm read from traj.csv, and
// contacts.csv names the joint and its side with the same force.
TEST(ContactOutputsCli, LimitForceInForcesCsvBalancesGravity) {
  const std::string scene =
      std::string(APPELL_SOURCE_DIR) + "/scenes/examples/limits_pendulum.json";
  const std::string dir = ::testing::TempDir();
  const testing::CliResult r =
      run_cli("simulate " + scene + " --quiet --out " + dir + "lp_traj.csv --forces " + dir +
              "lp_forces.csv --contacts " + dir + "lp_contacts.csv");
  ASSERT_EQ(r.status, 0) << r.err;
  const Table traj = parse(read_file(dir + "lp_traj.csv"));
  const Table forces = parse(read_file(dir + "lp_forces.csv"));
  const Table contacts = parse(read_file(dir + "lp_contacts.csv"));
  ASSERT_EQ(traj.rows.size(), forces.rows.size());
  const auto& last = forces.rows.back();
  const double y = std::stod(traj.rows.back()[traj.col("rod.y")]);
  const double limit = std::stod(last[forces.col("hinge.limit_force")]);
  EXPECT_NEAR(limit, 1.0 * kG * y, 1e-8);
  EXPECT_NEAR(y, 0.2 * std::cos(1.0), 1e-6);
  EXPECT_EQ(std::stod(forces.rows[1][forces.col("hinge.limit_force")]), 0.0);  // still falling
  const auto& row = contacts.rows.back();
  EXPECT_EQ(row[contacts.col("kind")], "limit");
  EXPECT_EQ(row[contacts.col("joint")], "hinge");
  EXPECT_EQ(row[contacts.col("side")], "lower");
  EXPECT_EQ(row[contacts.col("body_a")], "world");
  EXPECT_EQ(row[contacts.col("body_b")], "rod");
  EXPECT_EQ(row[0], last[0]);
  EXPECT_DOUBLE_EQ(std::stod(row[contacts.col("normal_force")]), limit);
}

// A ball dropped from 1 m with e = 0.5: bounces at 0.45, 0.90 and 1.13 s before 1.2 s; the
// summary counts as many impacts as traj.csv shows bounces (vz turning from − to +).
TEST(ContactOutputsCli, SummaryCountsTheBouncesSeenInTraj) {
  const std::string scene = write_temp("bouncing_ball.json", R"({"name": "ball",
    "gravity": [0, 0, -9.81],
    "shapes": [{"name": "ground", "type": "plane"}],
    "bodies": [{"name": "ball", "mass": 0.5, "inertia": {"sphere": 0.1},
      "position": [0, 0, 1.1],
      "shapes": [{"name": "ball", "type": "sphere", "radius": 0.1, "restitution": 0.5}]}],
    "integrator": {"method": "moreau", "duration": 1.2, "dt": 0.001}})");
  const std::string dir = ::testing::TempDir();
  const testing::CliResult r = run_cli("simulate " + scene + " --quiet --out " + dir +
                                       "bb_traj.csv --summary " + dir + "bb_summary.json");
  ASSERT_EQ(r.status, 0) << r.err;
  const Table traj = parse(read_file(dir + "bb_traj.csv"));
  int bounces = 0;
  double vz_prev = 0.0;
  for (const auto& row : traj.rows) {
    const double vz = std::stod(row[traj.col("ball.vz")]);
    bounces += vz_prev < 0 && vz > 0;
    vz_prev = vz;
  }
  EXPECT_EQ(bounces, 3);
  const json s = json::parse(read_file(dir + "bb_summary.json"));
  EXPECT_EQ(s["contact"]["impacts"].get<int>(), bounces);
  EXPECT_GE(s["contact"]["max_penetration"].get<double>(), 0.0);
  EXPECT_LE(s["contact"]["max_penetration"].get<double>(), 1e-6);
  EXPECT_EQ(s["contact"]["unconverged_steps"].get<int>(), 0);
  EXPECT_GT(s["contact"]["max_solver_iterations"].get<int>(), 0);
}

TEST(ContactOutputsCli, EvalGivesTheContactForcesOfTheState) {
  const std::string scene = write_temp("eval_box.json", kRestingBox);
  const testing::CliResult r = run_cli("eval " + scene + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json e = json::parse(r.out);
  ASSERT_TRUE(e.contains("contacts"));
  double fz = 0.0;
  for (const json& p : e["contacts"]["points"]) {
    const bool box_is_b = p["body_b"] == "box";
    fz += (box_is_b ? 1.0 : -1.0) * p["force"][2].get<double>();
    EXPECT_NEAR(p["friction_force"][0].get<double>(), 0.0, 1e-8);
  }
  EXPECT_NEAR(fz, 2.0 * kG, 1e-8);
  EXPECT_EQ(e["contacts"]["dt"].get<double>(), 0.001);
  // the table for people lists the four corners, each with a quarter of the weight
  const testing::CliResult t = run_cli("eval " + scene + " --table");
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("contact forces"), std::string::npos) << t.out;
  size_t quarters = 0;
  for (size_t at = t.out.find("4.905"); at != std::string::npos; at = t.out.find("4.905", at + 1))
    ++quarters;
  EXPECT_EQ(quarters, 4u) << t.out;
  // a scene without unilateral rows has no "contacts"
  const testing::CliResult p = run_cli("eval " + std::string(APPELL_SOURCE_DIR) +
                                       "/scenes/examples/spherical_pendulum.json --json");
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_FALSE(json::parse(p.out).contains("contacts"));
}

// The report's contact layer: per instant the points and the force on the box, which sum
// to its weight (the page rounds to 6 digits).
TEST(ContactOutputsCli, ReportCarriesTheContactPointsAndForces) {
  REQUIRE_REPORT();
  const std::string scene = write_temp("report_box.json", kRestingBox);
  const std::string html = ::testing::TempDir() + "contact_report.html";
  const testing::CliResult r = run_cli("simulate " + scene + " --quiet --report " + html);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string page = read_file(html);
  const std::string open = "<script type=\"application/json\" id=\"appell-data\">";
  const size_t a = page.find(open);
  ASSERT_NE(a, std::string::npos);
  const size_t b = page.find("</script>", a);
  const json d = json::parse(page.substr(a + open.size(), b - a - open.size()));
  const json& contacts = d["series"]["contacts"];
  ASSERT_EQ(contacts.size(), d["series"]["t"].size());
  EXPECT_TRUE(contacts[0].empty());  // t = 0: no step yet
  for (size_t i = 1; i < contacts.size(); ++i) {
    ASSERT_EQ(contacts[i].size() % 6, 0u);
    ASSERT_GE(contacts[i].size(), 18u);
    double fz = 0.0;
    for (size_t k = 0; k < contacts[i].size(); k += 6) {
      EXPECT_NEAR(contacts[i][k + 2].get<double>(), 0.0, 1e-6);  // on the ground
      fz += contacts[i][k + 5].get<double>();
    }
    EXPECT_NEAR(fz, 2.0 * kG, 1e-5 * 2.0 * kG);
  }
}

}  // namespace
}  // namespace appell
