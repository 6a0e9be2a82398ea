// The HTML report (cli/report.hpp): every shipped example gets one; the report made from
// the CSV files equals the one made during the run; its numbers are the run's numbers
// (forces.csv's vectors, the scene's initial positions); the body shapes follow the scene
// (a visual key, the box of equal inertia).  The page itself is tested in a browser by
// tests/browser/.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace {

using appell::testing::CliResult;
using appell::testing::read_file;
using appell::testing::run_cli;
using appell::testing::write_temp;
using nlohmann::json;

const std::string kExamples = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/";

// the report's data block, or null when the file has none
json report_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"appell-data\">";
  const size_t a = html.find(open);
  if (a == std::string::npos) return nullptr;
  const size_t b = html.find("</script>", a);
  return json::parse(html.substr(a + open.size(), b - a - open.size()));
}

TEST(Report, EveryShippedSceneGetsOne) {
  REQUIRE_REPORT();
  std::vector<std::filesystem::path> scenes;
  for (const std::string& dir : {kExamples, std::string(APPELL_SOURCE_DIR) + "/scenes/benchmarks/"})
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().extension() == ".json") scenes.push_back(entry.path());
  ASSERT_GE(scenes.size(), 25u);
  for (const auto& path : scenes) {
    const std::string scene = path.string();
    const std::string out = write_temp(path.stem().string() + ".html", "");
    const CliResult r = run_cli("simulate " + scene + " --duration 0.05 --quiet --report " + out);
    ASSERT_EQ(r.status, 0) << scene << ": " << r.err;
    const json d = report_data(read_file(out));
    ASSERT_FALSE(d.is_null()) << scene;
    const json raw = json::parse(read_file(scene));
    EXPECT_EQ(d["meta"]["scene"], raw.value("name", scene)) << scene;
    ASSERT_EQ(d["series"]["pose"].size(), raw["bodies"].size()) << scene;
    ASSERT_EQ(d["scene"]["bodies"].size(), raw["bodies"].size()) << scene;
    const size_t n = d["series"]["t"].size();
    EXPECT_GE(n, 2u) << scene;
    for (const json& p : d["series"]["pose"]) EXPECT_EQ(p.size(), 7 * n) << scene;
  }
}

TEST(Report, FromFilesEqualsTheRunAndHoldsItsNumbers) {
  REQUIRE_REPORT();
  const std::string scene = kExamples + "four_bar.json";
  const std::string traj = write_temp("fb_traj.csv", ""), forces = write_temp("fb_forces.csv", "");
  const std::string live = write_temp("fb_live.html", ""), files = write_temp("fb_files.html", "");
  ASSERT_EQ(run_cli("simulate " + scene + " --duration 0.2 --quiet --out " + traj + " --forces " +
                    forces + " --report " + live)
                .status,
            0);
  const CliResult r = run_cli("report " + scene + " " + traj + " " + forces + " -o " + files);
  ASSERT_EQ(r.status, 0) << r.err;
  const json a = report_data(read_file(live)), b = report_data(read_file(files));
  EXPECT_EQ(a["series"], b["series"]);
  EXPECT_EQ(a["scene"], b["scene"]);
  EXPECT_TRUE(b["meta"]["wall_seconds"].is_null());  // unknown without --summary

  // the crank's centre at t = 0 is the scene's, and "A on crank" is |f| of forces.csv
  const json raw = json::parse(read_file(scene));
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(a["series"]["pose"][0][k].get<double>(),
                raw["bodies"][0]["position"][k].get<double>(), 1e-12);
  EXPECT_EQ(a["series"]["forces"][0]["name"], "A on crank");
  std::istringstream csv(read_file(forces));
  std::string header, row;
  std::getline(csv, header);
  ASSERT_EQ(header.rfind("t,A.crank.fx,A.crank.fy,A.crank.fz,", 0), 0u) << header;
  for (size_t i = 0; std::getline(csv, row); ++i) {
    double t, fx, fy, fz;
    ASSERT_EQ(std::sscanf(row.c_str(), "%lf,%lf,%lf,%lf", &t, &fx, &fy, &fz), 4);
    const double f = a["series"]["forces"][0]["values"][i];
    EXPECT_NEAR(f, std::sqrt(fx * fx + fy * fy + fz * fz), 1e-5 * (1 + f)) << "row " << i;
  }
}

TEST(Report, FilesThatDoNotMatchTheSceneAreRefused) {
  REQUIRE_REPORT();
  const std::string traj = write_temp("other_traj.csv", "");
  ASSERT_EQ(
      run_cli("simulate " + kExamples + "kepler.json --duration 0.01 --quiet --out " + traj).status,
      0);
  const std::string out = write_temp("mismatch.html", "");
  std::filesystem::remove(out);
  const CliResult r = run_cli("report " + kExamples + "four_bar.json " + traj + " -o " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(traj + ": line 1: the columns do not match the scene"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// a body given by its principal moments is drawn as the solid box of equal inertia:
// a box a × b × c of mass m has I1 = m (b² + c²) / 12 and cyclically
TEST(Report, ShapesFollowTheScene) {
  REQUIRE_REPORT();
  const double m = 2, a = 0.1, b = 0.3, c = 0.6;
  const double I1 = m * (b * b + c * c) / 12, I2 = m * (a * a + c * c) / 12,
               I3 = m * (a * a + b * b) / 12;
  const std::string scene =
      write_temp("shapes.json", R"({"bodies": [
    {"name": "slab", "mass": 2, "inertia": {"principal": [)" +
                                    std::to_string(I1) + ", " + std::to_string(I2) + ", " +
                                    std::to_string(I3) + R"(]}},
    {"name": "ball", "mass": 1, "inertia": {"box": [1, 1, 1]}, "position": [2, 0, 0],
     "visual": {"sphere": 0.4, "color": "#ff8800"}}]})");
  const std::string out = write_temp("shapes.html", "");
  ASSERT_EQ(run_cli("simulate " + scene + " --duration 0.01 --quiet --report " + out).status, 0);
  const json bodies = report_data(read_file(out))["scene"]["bodies"];
  std::vector<double> edges = bodies[0]["shape"]["size"];
  std::sort(edges.begin(), edges.end());
  EXPECT_EQ(bodies[0]["shape"]["kind"], "box");
  EXPECT_NEAR(edges[0], a, 1e-5);
  EXPECT_NEAR(edges[1], b, 1e-5);
  EXPECT_NEAR(edges[2], c, 1e-5);
  EXPECT_EQ(bodies[1]["shape"]["kind"], "sphere");
  EXPECT_EQ(bodies[1]["shape"]["size"][0], 0.4);
  EXPECT_EQ(bodies[1]["color"], "#ff8800");
}

TEST(Report, VisualKeyIsChecked) {
  const auto check = [](const std::string& visual) {
    return run_cli("check " + write_temp("visual.json", R"({"bodies": [{"name": "b", "mass": 1,
      "inertia": {"sphere": 1}, "visual": )" + visual + "}]}"));
  };
  CliResult r = check(R"({"box": [1, -1, 1]})");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("/bodies/0/visual/box/1: "), std::string::npos) << r.err;
  r = check(R"({"sphere": 1, "cylinder": [1, 2]})");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("/bodies/0/visual: expected exactly one of box, sphere, cylinder"),
            std::string::npos)
      << r.err;
  r = check(R"({"sphere": 1, "color": "red"})");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("/bodies/0/visual/color: expected a colour as \"#rrggbb\", got 'red'"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(check(R"({"cylinder": [0.1, 0.5], "color": "#A0b0C0"})").status, 0);
}

}  // namespace
