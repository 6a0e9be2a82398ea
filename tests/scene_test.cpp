// Scene loading: malformed scenes are rejected with the JSON Pointer of the offending
// value, word for word; the program exits 2 and prints nothing that looks like output.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cctype>
#include <filesystem>

#include "cli_util.hpp"

namespace {

using appell::testing::run_cli;
using appell::testing::write_temp;

struct BadScene {
  const char* text;
  const char* message;  // after "error: <file>: "
};

// the case as the test listing shows it: the expected message, not the struct's bytes
void PrintTo(const BadScene& c, std::ostream* os) {
  *os << '"' << c.message << '"';
}

const char* kOneBody = R"("bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 0.1}}])";

std::string with_body(const std::string& rest) {
  return std::string("{") + kOneBody + (rest.empty() ? "" : ", " + rest) + "}";
}

class MalformedScene : public ::testing::TestWithParam<BadScene> {};

TEST_P(MalformedScene, ExitsTwoWithLocatedMessage) {
  const BadScene& c = GetParam();
  const std::string path = write_temp("bad.json", c.text);
  for (const char* cmd : {"eval", "check"}) {
    const auto r = run_cli(std::string(cmd) + " " + path);
    EXPECT_EQ(r.status, 2) << cmd << ": " << r.err;
    EXPECT_EQ(r.out, "") << cmd;
    EXPECT_EQ(r.err, "error: " + path + ": " + c.message + "\n") << cmd;
  }
  // the library reports the same through SceneError
  try {
    appell::load_model(path);
    FAIL() << "no SceneError";
  } catch (const appell::SceneError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": " + c.message);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, MalformedScene,
    ::testing::Values(
        BadScene{R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"principal": [1, 1, 3]}}]})",
                 "/bodies/0/inertia: principal moments [1, 1, 3] violate the triangle inequality"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"principal": [1, 1e-320, 1]}}]})",
            "/bodies/0/inertia/principal: principal moments [9.99989e-321, 1, 1]: the "
            "smallest is below 1e-12 of the largest"},
        BadScene{R"({"bodies": [{"name": "a", "mass": -1.5, "inertia": {"sphere": 1}}]})",
                 "/bodies/0/mass: must be > 0, got -1.5"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}, "positon": [0, 0, 0]}]})",
            "/bodies/0/positon: unknown key 'positon'; expected one of: name, type, mass, "
            "inertia, position, orientation, velocity, angular_velocity, root, com, visual, "
            "shapes"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 3]]}}]})",
            "/bodies/0/inertia/matrix: principal moments [1, 1, 3] violate the triangle "
            "inequality"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"matrix": [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]}}]})",
            "/bodies/0/inertia/matrix: inertia matrix is not symmetric"},
        BadScene{R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"box": [1, 0, 1]}}]})",
                 "/bodies/0/inertia/box/1: must be > 0, got 0"},
        BadScene{
            R"({"bodies": [{"name": "a", "type": "particle", "mass": 1, "inertia": {"sphere": 1}}]})",
            "/bodies/0/inertia: a particle has no inertia"},
        BadScene{R"({"bodies": [{"name": "world", "mass": 1, "inertia": {"sphere": 1}}]})",
                 "/bodies/0/name: 'world' is reserved for the fixed ground"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}, {"name": "a", "mass": 1, "inertia": {"sphere": 1}}]})",
            "/bodies/1/name: duplicate body name 'a'"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}, "orientation": {"quaternion": [0, 0, 0, 0]}}]})",
            "/bodies/0/orientation/quaternion: quaternion must be nonzero"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}, "orientation": {"axis_angle": [0, 0, 0, 1]}}]})",
            "/bodies/0/orientation/axis_angle: axis must be nonzero"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}, "position": [0, "1", 0]}]})",
            "/bodies/0/position/1: expected a number, got a string"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}, "velocity": [0, 1]}]})",
            "/bodies/0/velocity: expected 3 elements, got 2"},
        BadScene{R"({"bodies": []})", "/bodies: a scene needs at least one body"},
        BadScene{R"({"gravity": [0, 0, -9.81]})", "missing key 'bodies'"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}], "constraints": [{"type": "revolute", "bodies": ["world", "b"], "anchor": [0, 0, 0], "axis": [1, 0, 0]}]})",
            "/constraints/0/bodies/1: unknown body 'b'; expected a body name or 'world'"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}], "constraints": [{"type": "revolute", "bodies": ["world", "a"], "anchor": [0, 0, 0], "axis": [0, 0, 0]}]})",
            "/constraints/0/axis: direction must be nonzero, got [0, 0, 0]"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}], "constraints": [{"type": "hinge", "bodies": ["world", "a"]}]})",
            "/constraints/0/type: unknown constraint type 'hinge'; expected one of: "
            "cylindrical, distance, expression, fixed, free, helical, knife_edge, linear, mimic, "
            "perpendicular, planar, point_on_plane, prescribed, prismatic, revolute, rolling, "
            "spherical, universal"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}], "constraints": [{"name": "rod", "type": "distance", "bodies": ["world", "a"], "points": [[0, 0, 1], [0, 0, 0]], "length": 2}]})",
            "/constraints/0: constraint 'rod' is violated at t = 0 by 1; positions must satisfy it "
            "to 1e-6"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}], "constraints": [{"name": "j", "type": "spherical", "bodies": ["a", "a"], "anchor": [0, 0, 0]}]})",
            "/constraints/0/bodies: the two bodies must differ"},
        BadScene{
            R"({"bodies": [{"name": "p", "type": "particle", "mass": 1}], "constraints": [{"type": "revolute", "bodies": ["world", "p"], "anchor": [0, 0, 0], "axis": [1, 0, 0]}]})",
            "/constraints/0/bodies/1: 'p' is a particle; a revolute joint needs rigid bodies"},
        BadScene{
            R"({"bodies": [{"name": "p", "type": "particle", "mass": 1}], "constraints": [{"type": "distance", "bodies": ["world", "p"], "points": [[0, 0, 1], [0, 0, 0.5]]}]})",
            "/constraints/0/points/1: a particle's point must be the particle's position [0, 0, "
            "0], got [0, 0, 0.5]"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}], "constraints": [{"name": "x", "type": "universal", "bodies": ["world", "a"], "anchor": [0, 0, 0], "axes": [[1, 0, 0], [1, 1, 0]]}]})",
            "/constraints/0/axes: the two axes of a universal joint must be perpendicular, got "
            "cosine 0.707107"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}], "solver": {"formulation": "fast"}})",
            "/solver/formulation: unknown formulation 'fast'; expected auto, recursive, "
            "gibbs-appell, pinv or sparse"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}], "solver": {"stabilization": {"type": "baumgarte", "alpha": 1}}})",
            "/solver/stabilization: missing key 'beta'"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}], "integrator": {"method": "euler"}})",
            "/integrator/method: unknown method 'euler'; expected rk4, dopri5, rkf78, rosenbrock "
            "or moreau"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}], "output": {"every": 0}})",
            "/output/every: must be a positive integer, got 0"},
        BadScene{
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}], "forces": [{"type": "torque", "body": "a"}]})",
            "/forces/0: missing key 'vector'"},
        BadScene{
            "{\"bodies\": [\n  {\"name\": \"a\",, }]}",
            "/bodies/0: invalid JSON at line 2, column 16: syntax error while parsing object key - "
            "unexpected ','; expected string literal"}),
    // a readable name: the case's index and the JSON pointer of its error
    [](const ::testing::TestParamInfo<BadScene>& info) {
      std::string name = "case" + std::to_string(info.index);
      const std::string m = info.param.message;
      const std::string where = m.substr(0, m.find(':'));
      for (char c : where) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

TEST(Scene, MissingFileExitsTwo) {
  const auto r = run_cli("eval /nonexistent/scene.json");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: /nonexistent/scene.json: cannot open the file\n");
}

TEST(Scene, UsageErrorsExitTwo) {
  EXPECT_EQ(run_cli("").status, 2);
  EXPECT_EQ(run_cli("frobnicate").status, 2);
  const std::string path = write_temp("ok.json", with_body(""));
  const auto r = run_cli("eval " + path + " --formulation fast");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
}

TEST(Scene, DefaultsAndShapes) {
  // a box's inertia follows from its mass and edges: I = m/12 (b²+c², a²+c², a²+b²)
  const appell::Model m = appell::load_model_from_string(R"({"bodies": [
      {"name": "b", "mass": 12, "inertia": {"box": [1, 2, 3]}},
      {"name": "s", "mass": 5, "inertia": {"sphere": 2}},
      {"name": "c", "mass": 12, "inertia": {"cylinder": [1, 2]}},
      {"name": "p", "type": "particle", "mass": 2, "position": [1, 2, 3]}]})");
  EXPECT_EQ(m.nbody(), 4);
  EXPECT_DOUBLE_EQ(m.bodies()[0].inertia(0, 0), 13.0);
  EXPECT_DOUBLE_EQ(m.bodies()[0].inertia(1, 1), 10.0);
  EXPECT_DOUBLE_EQ(m.bodies()[0].inertia(2, 2), 5.0);
  EXPECT_DOUBLE_EQ(m.bodies()[1].inertia(1, 1), 0.4 * 5 * 4);
  EXPECT_DOUBLE_EQ(m.bodies()[2].inertia(0, 0), 12 * (3.0 + 4.0) / 12);
  EXPECT_DOUBLE_EQ(m.bodies()[2].inertia(2, 2), 6.0);
  EXPECT_EQ(m.nu(), 6 + 6 + 6 + 3);
  EXPECT_EQ(m.nq(), 7 + 7 + 7 + 3);
  EXPECT_TRUE(m.gravity().isZero());
}

TEST(Scene, ConstraintNamesDefaultToTheirIndex) {
  const appell::Model m = appell::load_model_from_string(R"({"bodies": [
      {"name": "a", "mass": 1, "inertia": {"sphere": 1}, "position": [0, 0, -1]}],
      "constraints": [
        {"type": "spherical", "bodies": ["world", "a"], "anchor": [0, 0, 0]},
        {"name": "floor", "type": "point_on_plane", "body": "a", "point": [0, 0, -1], "normal": [0, 0, 1]}]})");
  ASSERT_EQ(m.constraints().size(), 2u);
  EXPECT_EQ(m.constraints()[0]->name(), "constraint0");
  EXPECT_EQ(m.constraints()[1]->name(), "floor");
}

// every shipped example loads and passes `appell check`
TEST(Scene, EveryExampleChecks) {
  int count = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(APPELL_SOURCE_DIR) + "/scenes/examples")) {
    if (entry.path().extension() != ".json") continue;
    ++count;
    const auto r = run_cli("check " + entry.path().string());
    EXPECT_EQ(r.status, 0) << entry.path() << ": " << r.err;
    EXPECT_NE(r.out.find("ok"), std::string::npos) << entry.path();
  }
  EXPECT_GE(count, 10);
}

}  // namespace
