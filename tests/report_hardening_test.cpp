// The HTML report's hard cases (cli/report.hpp): scenes that include a URDF and URDF files
// themselves (the geometry comes from the Model: URDF joints are drawn, an included
// scene's constraints are matched by name); a report never overwrites its inputs and a
// failed one keeps the run's other outputs and an older report; names that would end the
// page's <script> elements; endless lines, non-decimal numbers and bad summaries.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "cli_util.hpp"

namespace {

using appell::testing::CliResult;
using appell::testing::read_file;
using appell::testing::run_cli;
using appell::testing::write_temp;
using nlohmann::json;
namespace fs = std::filesystem;

const std::string kRobots = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/robots/";
const std::string kExamples = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/";
const std::string kDataOpen = "<script type=\"application/json\" id=\"appell-data\">";

// the text of the report's data block ("" when the file has none)
std::string data_block(const std::string& html) {
  const size_t a = html.find(kDataOpen);
  if (a == std::string::npos) return "";
  const size_t b = html.find("</script>", a);
  return html.substr(a + kDataOpen.size(), b - a - kDataOpen.size());
}

json report_data(const std::string& path) {
  return json::parse(data_block(read_file(path)));
}

size_t lines(const std::string& s) {
  return std::count(s.begin(), s.end(), '\n');
}

// the names of the URDF's joints of the given types, read from its text
std::set<std::string> urdf_joints(const std::string& urdf, const std::set<std::string>& types) {
  std::set<std::string> names;
  const std::string text = read_file(urdf);
  const std::regex joint(R"re(<joint\s+name="([^"]+)"\s+type="([a-z]+)")re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), joint);
       it != std::sregex_iterator(); ++it)
    if (types.count((*it)[2])) names.insert((*it)[1]);
  return names;
}

// the drawn links by name
std::map<std::string, json> links_by_name(const json& d) {
  std::map<std::string, json> out;
  for (const json& l : d["scene"]["links"]) out[l["name"].get<std::string>()] = l;
  return out;
}

// A joint's two ends are the same material point at t = 0: its anchor, seen from the
// parent and from the child.
void expect_joint_ends_meet(const json& link, const std::string& where) {
  ASSERT_EQ(link["points"].size(), 2u) << where;
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(link["points"][0]["p"][k].get<double>(), link["points"][1]["p"][k].get<double>(),
                1e-9)
        << where << " " << link["name"];
}

// every shipped robot (URDF files and the scenes that include them) gets a report with its
// revolute joints drawn at their anchors; --out and --summary are written too, and
// `appell report` of the written traj.csv gives the same drawing
TEST(ReportHardening, RobotsAndScenesIncludingThemGetReports) {
  REQUIRE_REPORT();
  for (const std::string name : {"two_link_arm.urdf", "two_link_arm.json", "delta.json",
                                 "quadruped.json", "seven_dof_arm.json", "seven_dof_arm.urdf"}) {
    const std::string scene = kRobots + name;
    const std::string html = write_temp("robot.html", ""), traj = write_temp("robot.csv", ""),
                      summary = write_temp("robot.json", ""), again = write_temp("again.html", "");
    const CliResult r = run_cli("simulate " + scene + " --duration 0.02 --quiet --report " + html +
                                " --out " + traj + " --summary " + summary);
    ASSERT_EQ(r.status, 0) << name << ": " << r.err;
    EXPECT_EQ(r.err, "") << name;
    EXPECT_TRUE(json::accept(read_file(summary))) << name;
    const json d = report_data(html);
    const std::string urdf = kRobots + name.substr(0, name.find('.')) + ".urdf";
    const auto links = links_by_name(d);
    for (const std::string& joint : urdf_joints(urdf, {"revolute", "continuous"})) {
      ASSERT_TRUE(links.count(joint)) << name << ": joint " << joint << " is not drawn";
      EXPECT_EQ(links.at(joint)["style"], "joint") << name << " " << joint;
      EXPECT_EQ(links.at(joint)["type"], "revolute") << name << " " << joint;
      expect_joint_ends_meet(links.at(joint), name);
    }
    const CliResult rep = run_cli("report " + scene + " " + traj + " -o " + again);
    ASSERT_EQ(rep.status, 0) << name << ": " << rep.err;
    EXPECT_EQ(report_data(again)["scene"], d["scene"]) << name;
  }
}

// the delta robot's scene adds distance constraints to the URDF's joints: each is drawn as
// a rod between the very points the scene file gives, never as a URDF joint
TEST(ReportHardening, IncludedScenesConstraintsAreMatchedByName) {
  REQUIRE_REPORT();
  const std::string html = write_temp("delta.html", "");
  ASSERT_EQ(
      run_cli("simulate " + kRobots + "delta.json --duration 0.01 --quiet --report " + html).status,
      0);
  const auto links = links_by_name(report_data(html));
  const json raw = json::parse(read_file(kRobots + "delta.json"));
  ASSERT_EQ(raw["constraints"].size(), 6u);
  for (const json& c : raw["constraints"]) {
    const std::string name = c["name"];
    ASSERT_TRUE(links.count(name)) << name;
    const json& l = links.at(name);
    EXPECT_EQ(l["style"], "rod") << name;
    for (int e = 0; e < 2; ++e)
      for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(l["points"][e]["p"][k].get<double>(), c["points"][e][k].get<double>(), 1e-9)
            << name;
  }
}

// A report that cannot be written is an error of its own: the run's traj.csv and
// summary.json are written all the same, the message gives the reason
TEST(ReportHardening, AFailedReportKeepsTheOtherOutputs) {
  REQUIRE_REPORT();
  const std::string traj = write_temp("kept.csv", ""), summary = write_temp("kept.json", "");
  fs::remove(traj);
  fs::remove(summary);
  const CliResult r = run_cli("simulate " + kRobots + "two_link_arm.urdf --duration 0.02 --quiet " +
                              "--out " + traj + " --summary " + summary + " --report /dev/full");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: --report: cannot write '/dev/full': No space left on device\n");
  EXPECT_NE(read_file(traj).find("\n0.02,"), std::string::npos);  // the last row
  EXPECT_NEAR(json::parse(read_file(summary))["duration"].get<double>(), 0.02, 1e-12);
}

// -o (report) and --report (simulate) never name an input or another output, however the
// path is spelled; the file stays as it was
TEST(ReportHardening, TheReportNeverOverwritesAnInput) {
  REQUIRE_REPORT();
  const std::string dir = ::testing::TempDir() + "report_inputs_" + std::to_string(getpid());
  fs::create_directories(dir);
  const std::string scene = dir + "/scene.json", traj = dir + "/traj.csv",
                    forces = dir + "/forces.csv", summary = dir + "/summary.json";
  fs::copy_file(kExamples + "four_bar.json", scene, fs::copy_options::overwrite_existing);
  ASSERT_EQ(run_cli("simulate " + scene + " --duration 0.02 --quiet --out " + traj + " --forces " +
                    forces + " --summary " + summary)
                .status,
            0);
  const auto other = [&](const std::string& p) {
    return dir + "/./" + fs::path(p).filename().string();
  };
  for (const std::string& input : {scene, traj, forces, summary}) {
    const std::string before = read_file(input);
    const CliResult r = run_cli("report " + scene + " " + traj + " " + forces + " --summary " +
                                summary + " -o " + other(input));
    EXPECT_EQ(r.status, 2) << input;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("error: -o: '" + other(input) + "' is the ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("it is not overwritten"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(input), before) << input;
  }
  // simulate --report: not the scene, not --out
  for (const std::string& option : {std::string(), "--out " + traj}) {
    const std::string target = option.empty() ? scene : traj;
    const std::string before = read_file(target);
    const CliResult r = run_cli("simulate " + scene + " --duration 0.02 --quiet " + option +
                                " --report " + other(target));
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(r.err.rfind("error: --report: '" + other(target) + "' is ", 0), 0u) << r.err;
    EXPECT_EQ(read_file(target), before);
  }
  fs::remove_all(dir);
}

// a report that fails leaves an older one as it was; a write failure says why
TEST(ReportHardening, FailedWritesKeepTheOlderReportAndSayWhy) {
  REQUIRE_REPORT();
  const std::string scene = kExamples + "kepler.json";
  const std::string traj = write_temp("k_traj.csv", ""), old = write_temp("old.html", "OLD");
  ASSERT_EQ(run_cli("simulate " + scene + " --duration 0.01 --quiet --out " + traj).status, 0);
  const std::string bad = write_temp("k_bad.csv", read_file(traj) + "nan\n");
  CliResult r = run_cli("report " + scene + " " + bad + " -o " + old);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(read_file(old), "OLD");
  r = run_cli("report " + scene + " " + traj + " -o /dev/full");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: -o: cannot write '/dev/full': No space left on device\n");
  r = run_cli("report " + scene + " " + traj + " -o /nonexistent/dir/r.html");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "error: -o: cannot write '/nonexistent/dir/r.html': No such file or directory\n");
  // and a report that succeeds replaces the older one
  ASSERT_EQ(run_cli("report " + scene + " " + traj + " -o " + old).status, 0);
  EXPECT_NE(read_file(old).find(kDataOpen), std::string::npos);
}

// names that would end the data block ("</script>"), make the parser swallow the scripts
// after it ("<!--<script>") or end a CDATA section ("]]>") are written as \u003c...: the
// block holds no '<', '>' or '&' and reads back to the same names
TEST(ReportHardening, NamesCannotBreakThePage) {
  REQUIRE_REPORT();
  const std::vector<std::string> names = {"<!--<script>", "</script>", "]]>", "a&b"};
  json scene = {{"name", "<!--<script> scene </script>"}, {"bodies", json::array()}};
  for (size_t i = 0; i < names.size(); ++i)
    scene["bodies"].push_back({{"name", names[i]},
                               {"mass", 1},
                               {"inertia", {{"sphere", 0.1}}},
                               {"position", {double(i), 0, 0}}});
  scene["constraints"] = {{{"name", "</script><!--"},
                           {"type", "distance"},
                           {"bodies", {names[0], names[1]}},
                           {"points", {{0, 0, 0}, {1, 0, 0}}}}};
  const std::string path = write_temp("hostile.json", scene.dump());
  const std::string html = write_temp("hostile.html", ""), traj = write_temp("hostile.csv", "");
  const std::string again = write_temp("hostile_again.html", "");
  ASSERT_EQ(
      run_cli("simulate " + path + " --duration 0.01 --quiet --out " + traj + " --report " + html)
          .status,
      0);
  ASSERT_EQ(run_cli("report " + path + " " + traj + " -o " + again).status, 0);
  for (const std::string& file : {html, again}) {
    const std::string page = read_file(file);
    const std::string block = data_block(page);
    ASSERT_FALSE(block.empty());
    EXPECT_EQ(block.find_first_of("<>&"), std::string::npos) << block.substr(0, 200);
    const json d = json::parse(block);
    EXPECT_EQ(d["meta"]["scene"], scene["name"]);
    ASSERT_EQ(d["scene"]["bodies"].size(), names.size());
    for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(d["scene"]["bodies"][i]["name"], names[i]);
    EXPECT_EQ(d["scene"]["links"][0]["name"], "</script><!--");
    // the page's three scripts follow the data block intact
    EXPECT_EQ(page.find("<script>", page.find(kDataOpen)) != std::string::npos, true);
    EXPECT_NE(
        page.find("<title>&lt;!--&lt;script&gt; scene &lt;/script&gt; — appell report</title>"),
        std::string::npos);
  }
}

// traj.csv lines are bounded by the scene's columns: /dev/zero ends at its first line
TEST(ReportHardening, EndlessInputsEndWithALocatedError) {
  REQUIRE_REPORT();
  const std::string scene = kExamples + "kepler.json", out = write_temp("zero.html", "");
  fs::remove(out);
  CliResult r = run_cli("report " + scene + " /dev/zero -o " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind("error: /dev/zero: line 1: longer than ", 0), 0u) << r.err;
  EXPECT_EQ(lines(r.err), 1u);
  EXPECT_FALSE(fs::exists(out));
  // a data line
  const std::string traj = write_temp("k2_traj.csv", "");
  ASSERT_EQ(run_cli("simulate " + scene + " --duration 0.01 --quiet --out " + traj).status, 0);
  const std::string text = read_file(traj);
  const std::string header = text.substr(0, text.find('\n') + 1);
  const std::string long_line = write_temp("long.csv", header + std::string(1 << 20, '1') + "\n");
  r = run_cli("report " + scene + " " + long_line + " -o " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind("error: " + long_line + ": line 2: longer than ", 0), 0u) << r.err;
  r = run_cli("report " + scene + " " + traj + " -o " + out + " --summary /dev/zero");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: /dev/zero: larger than the limit of 1024 KiB for a summary.json\n");
  EXPECT_FALSE(fs::exists(out));
}

// nan, inf, hexadecimal and out-of-range numbers are refused at their line and column
TEST(ReportHardening, OnlyFiniteDecimalNumbers) {
  REQUIRE_REPORT();
  const std::string scene = kExamples + "kepler.json", out = write_temp("nan.html", "");
  const std::string traj = write_temp("k3_traj.csv", "");
  ASSERT_EQ(run_cli("simulate " + scene + " --duration 0.01 --quiet --out " + traj).status, 0);
  const std::string text = read_file(traj);
  const size_t eol1 = text.find('\n'), eol2 = text.find('\n', eol1 + 1);
  const std::string row = text.substr(eol1 + 1, eol2 - eol1 - 1);  // line 2
  const size_t third = row.find(',', row.find(',') + 1) + 1;       // its third field
  for (const std::string bad : {"nan", "-inf", "0x1p3", "1e999", "1.5.2", ""}) {
    fs::remove(out);
    std::string line = row;
    line.replace(third, line.find(',', third) - third, bad);
    const std::string file = write_temp("bad_number.csv", text.substr(0, eol1 + 1) + line + "\n");
    const CliResult r = run_cli("report " + scene + " " + file + " -o " + out);
    EXPECT_EQ(r.status, 2) << bad;
    const std::string at =
        "error: " + file + ":2:" + std::to_string(third + 1) + ": '" + bad + "' ";
    EXPECT_EQ(r.err.rfind(at, 0), 0u) << r.err << " (expected " << at << ")";
    EXPECT_EQ(lines(r.err), 1u);
    EXPECT_FALSE(fs::exists(out)) << bad;
  }
}

// --summary: JSON, an object, and each key it reads of the right type
TEST(ReportHardening, BadSummariesAreLocated) {
  REQUIRE_REPORT();
  const std::string scene = kExamples + "kepler.json", out = write_temp("sum.html", "");
  const std::string traj = write_temp("k4_traj.csv", "");
  ASSERT_EQ(run_cli("simulate " + scene + " --duration 0.01 --quiet --out " + traj).status, 0);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", ": invalid JSON at line 1, column "},
      {"[1, 2]", ": expected a JSON object (the summary.json of appell simulate)\n"},
      {R"({"wall_seconds": "fast"})", ": /wall_seconds: expected a number\n"},
      {R"({"wall_seconds": -1})", ": /wall_seconds: must be a finite number >= 0, got -1\n"},
      {R"({"formulation": 3})", ": /formulation: expected a string\n"},
  };
  for (const auto& [text, message] : cases) {
    fs::remove(out);
    const std::string s = write_temp("s.json", text);
    const CliResult r = run_cli("report " + scene + " " + traj + " -o " + out + " --summary " + s);
    EXPECT_EQ(r.status, 2) << text;
    EXPECT_EQ(r.err.rfind("error: " + s + message, 0), 0u) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << text;
  }
  const std::string good = write_temp("good.json", R"({"wall_seconds": 1.5, "integrator": "rk4"})");
  ASSERT_EQ(run_cli("report " + scene + " " + traj + " -o " + out + " --summary " + good).status,
            0);
  const json d = report_data(out);
  EXPECT_EQ(d["meta"]["wall_seconds"], 1.5);
  EXPECT_EQ(d["meta"]["integrator"], "rk4");
}

// springs and distance rods are drawn between the scene's points, fixed in their bodies:
// the body coordinates and the t = 0 world points agree with the scene's poses
TEST(ReportHardening, PointsComeFromTheModel) {
  REQUIRE_REPORT();
  const std::string path = write_temp("points.json", R"({"gravity": [0, 0, -9.81],
    "bodies": [
      {"name": "a", "mass": 1, "inertia": {"box": [0.1, 0.1, 0.1]}, "position": [1, 0, 0],
       "orientation": {"axis_angle": [0, 0, 1, 1.5707963267948966]}},
      {"name": "b", "mass": 1, "inertia": {"box": [0.1, 0.1, 0.1]}, "position": [2, 0, 0]}],
    "constraints": [
      {"name": "hinge", "type": "revolute", "bodies": ["world", "a"], "anchor": [0, 0, 0], "axis": [0, 1, 0]},
      {"name": "rod", "type": "distance", "bodies": ["a", "b"], "points": [[1, 0.5, 0], [2, 0, 0.5]]}],
    "forces": [{"type": "spring", "bodies": ["world", "b"], "points": [[3, 0, 1], [2, 0, 0]],
                "stiffness": 10}]})");
  const std::string html = write_temp("points.html", "");
  const CliResult r = run_cli("simulate " + path + " --duration 0.01 --quiet --report " + html);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto links = links_by_name(report_data(html));
  // body a is turned by 90° about z: its local point of the world point (1, 0.5, 0) is
  // Qᵀ (0, 0.5, 0) = (0.5, 0, 0)
  const json& rod = links.at("rod");
  EXPECT_EQ(rod["style"], "rod");
  const std::vector<double> local_a = rod["points"][0]["local"],
                            local_b = rod["points"][1]["local"];
  EXPECT_NEAR(local_a[0], 0.5, 1e-12);
  EXPECT_NEAR(local_a[1], 0.0, 1e-12);
  EXPECT_NEAR(local_b[2], 0.5, 1e-12);
  EXPECT_EQ(rod["points"][1]["p"], json({2.0, 0.0, 0.5}));
  const json& hinge = links.at("hinge");
  EXPECT_EQ(hinge["style"], "joint");
  expect_joint_ends_meet(hinge, "hinge");
  EXPECT_EQ(hinge["points"][0]["body"], -1);
  const json& spring = links.at("spring0");
  EXPECT_EQ(spring["style"], "spring");
  EXPECT_EQ(spring["points"][0]["local"], json({3.0, 0.0, 1.0}));  // the world's point
  EXPECT_EQ(spring["points"][1]["body"], 1);
}

}  // namespace
