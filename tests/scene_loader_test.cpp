// scenes/: loading (docs/scene-format.md) and located errors, word for word with their JSON
// Pointer.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <filesystem>
#include <string>

#include "engine/assembly/stages.hpp"
#include "printers.hpp"

namespace appell {
namespace {

// The message of the SceneError that loading `text` throws ("" when it loads).
std::string error_of(const std::string& text) {
  try {
    load_model_from_string(text, "s.json");
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

constexpr char kBox[] = R"("inertia": {"box": [0.1, 0.2, 0.3]})";

std::string one_body(const std::string& fields) {
  return R"({"bodies": [{"name": "a", "mass": 1, )" + fields + "}]}";
}

TEST(SceneErrors, BodiesWordForWord) {
  EXPECT_EQ(error_of(one_body(R"("inertia": {"principal": [1, 1, 3]})")),
            "s.json: /bodies/0/inertia: principal moments [1, 1, 3] violate the triangle "
            "inequality");
  EXPECT_EQ(error_of(R"({"bodies": [{"name": "a", "mass": -1, "inertia": {"sphere": 1}}]})"),
            "s.json: /bodies/0/mass: must be > 0, got -1");
  EXPECT_EQ(
      error_of(one_body(std::string(kBox) + R"(, "colour": "red")")),
      "s.json: /bodies/0/colour: unknown key 'colour'; expected one of: name, type, mass, "
      "inertia, position, orientation, velocity, angular_velocity, root, com, visual, shapes");
  EXPECT_EQ(
      error_of(one_body(R"("type": "particle", "orientation": {"quaternion": [1, 0, 0, 0]})")),
      "s.json: /bodies/0/orientation: a particle has no orientation");
  EXPECT_EQ(
      error_of(one_body(std::string(kBox) + R"(, "orientation": {"quaternion": [0, 0, 0, 0]})")),
      "s.json: /bodies/0/orientation/quaternion: quaternion must be nonzero");
  EXPECT_EQ(
      error_of(one_body(std::string(kBox) + R"(, "orientation": {"axis_angle": [0, 0, 0, 1]})")),
      "s.json: /bodies/0/orientation/axis_angle: axis must be nonzero");
  EXPECT_EQ(
      error_of(one_body(std::string(kBox) +
                        R"(, "orientation": {"matrix": [[1, 0, 0], [0, 1, 0], [0, 0, -1]]})")),
      "s.json: /bodies/0/orientation/matrix: not a rotation: must be orthonormal with determinant "
      "+1 within 1e-6, off by 2");
  EXPECT_EQ(error_of(one_body(R"("inertia": {"sphere": 1, "box": [1, 1, 1]})")),
            "s.json: /bodies/0/inertia: expected exactly one of principal, matrix, box, sphere, "
            "cylinder");
  EXPECT_EQ(error_of(one_body(R"("inertia": {"matrix": [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]})")),
            "s.json: /bodies/0/inertia/matrix: inertia matrix is not symmetric");
  EXPECT_EQ(error_of(one_body(R"("inertia": {"cylinder": [1]})")),
            "s.json: /bodies/0/inertia/cylinder: expected 2 elements, got 1");
  EXPECT_EQ(error_of(one_body(std::string(kBox) + R"(, "position": [0, "1", 0])")),
            "s.json: /bodies/0/position/1: expected a number, got a string");
  EXPECT_EQ(error_of(R"({"bodies": [{"name": "world", "mass": 1, "type": "particle"}]})"),
            "s.json: /bodies/0/name: 'world' is reserved for the fixed ground");
  EXPECT_EQ(error_of(R"({"bodies": [{"name": "a", "mass": 1, "type": "particle"},
                                    {"name": "a", "mass": 1, "type": "particle"}]})"),
            "s.json: /bodies/1/name: duplicate body name 'a'");
  EXPECT_EQ(error_of(R"({"bodies": []})"), "s.json: /bodies: a scene needs at least one body");
  EXPECT_EQ(error_of(R"({"gravity": [0, 0, -9.81]})"), "s.json: missing key 'bodies'");
}

constexpr char kTwo[] = R"({"bodies": [
    {"name": "a", "mass": 1, "inertia": {"box": [0.1, 0.2, 0.3]}, "position": [0, 0, -1]},
    {"name": "p", "type": "particle", "mass": 1, "position": [0, 0, -2]}],
  "constraints": [)";

TEST(SceneErrors, ConstraintsWordForWord) {
  auto with = [](const std::string& c) { return error_of(std::string(kTwo) + c + "]}"); };
  EXPECT_EQ(with(R"({"type": "spherical", "bodies": ["world", "b"], "anchor": [0, 0, 0]})"),
            "s.json: /constraints/0/bodies/1: unknown body 'b'; expected a body name or 'world'");
  EXPECT_EQ(
      with(
          R"({"type": "revolute", "bodies": ["world", "p"], "anchor": [0, 0, -2], "axis": [1, 0, 0]})"),
      "s.json: /constraints/0/bodies/1: 'p' is a particle; a revolute joint needs rigid "
      "bodies");
  EXPECT_EQ(with(R"({"name": "rod", "type": "distance", "bodies": ["a", "p"],
                     "points": [[0, 0, -1], [0, 0, -2]], "length": 2})"),
            "s.json: /constraints/0: constraint 'rod' is violated at t = 0 by 1; positions must "
            "satisfy it to 1e-6");
  EXPECT_EQ(
      with(R"({"type": "distance", "bodies": ["a", "p"], "points": [[0, 0, -1], [1, 0, -2]]})"),
      "s.json: /constraints/0/points/1: a particle's point must be the particle's position "
      "[0, 0, -2], got [1, 0, -2]");
  EXPECT_EQ(with(R"({"type": "universal", "bodies": ["world", "a"], "anchor": [0, 0, 0],
                     "axes": [[1, 0, 0], [1, 1, 0]]})"),
            "s.json: /constraints/0/axes: the two axes of a universal joint must be "
            "perpendicular, got cosine 0.707107");
  EXPECT_EQ(with(R"({"type": "hinge", "bodies": ["world", "a"]})"),
            "s.json: /constraints/0/type: unknown constraint type 'hinge'; expected one of: "
            "cylindrical, distance, expression, fixed, free, helical, knife_edge, linear, mimic, "
            "perpendicular, planar, point_on_plane, prescribed, prismatic, revolute, rolling, "
            "spherical, universal");
  EXPECT_EQ(with(R"({"type": "fixed", "bodies": ["a", "a"]})"),
            "s.json: /constraints/0/bodies: the two bodies must differ");
  EXPECT_EQ(with(R"({"type": "prismatic", "bodies": ["world", "a"], "axis": [0, 0, 0]})"),
            "s.json: /constraints/0/axis: direction must be nonzero, got [0, 0, 0]");
  EXPECT_EQ(with(R"({"type": "fixed", "bodies": ["world", "a"], "axis": [1, 0, 0]})"),
            "s.json: /constraints/0/axis: unknown key 'axis'; expected one of: name, type, bodies");
  EXPECT_EQ(
      with(
          R"({"type": "fixed", "bodies": ["world", "a"]}, {"name": "constraint0", "type": "fixed", "bodies": ["world", "a"]})"),
      "s.json: /constraints/1/name: duplicate constraint name 'constraint0'");
  EXPECT_EQ(with(R"({"type": "linear", "body": "p"})"),
            "s.json: /constraints/0: f and h are both zero: the row constrains nothing");
}

// line 3 is `    {"name": "a",, }`: the stray comma is its 18th character
TEST(SceneErrors, InvalidJsonSaysWhere) {
  const std::string e = error_of("{\n  \"bodies\": [\n    {\"name\": \"a\",, }\n  ]\n}");
  EXPECT_EQ(e.rfind("s.json: /bodies/0: invalid JSON at line 3, column 18: ", 0), 0u) << e;
}

TEST(Scene, GeometryIsTheT0Pose) {
  // a revolute joint whose anchor and axis are given in the world at t = 0, on a body that
  // is rotated at t = 0: every holonomic row holds there
  const Scene scene = load_scene_from_string(R"({
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "a", "mass": 2, "inertia": {"cylinder": [0.1, 0.5]},
                "position": [1, 2, 3], "orientation": {"axis_angle": [1, 1, 0, 0.6]},
                "angular_velocity": [0.1, 0.2, 0.3]},
               {"name": "p", "type": "particle", "mass": 1, "position": [1, 2, 2]}],
    "constraints": [
      {"name": "hinge", "type": "revolute", "bodies": ["world", "a"], "anchor": [1, 2, 3.2],
       "axis": [0, 1, 1]},
      {"type": "distance", "bodies": ["a", "p"], "points": [[1.1, 2, 3], [1, 2, 2]]},
      {"type": "perpendicular", "bodies": ["world", "a"], "axes": [[1, 0, 0], [0, 1, -1]]},
      {"type": "point_on_plane", "body": "p", "point": [1, 2, 2], "normal": [0, 0, 2]},
      {"type": "linear", "body": "a", "f": [0, 0, 1], "frame": "body"}],
    "solver": {"formulation": "gibbs-appell"}
  })");
  const Model m = compile(scene);
  ASSERT_EQ(m.constraints().size(), 5u);
  EXPECT_EQ(m.constraints()[1]->name(), "constraint1");
  EXPECT_EQ(m.constraints()[0]->type(), "revolute");
  EXPECT_EQ(m.nrows(), 5 + 1 + 1 + 1 + 1);
  EXPECT_EQ(scene.settings.solver.formulation, Formulation::GibbsAppell);
  Data d(m);
  kinematics(m, d);
  constraint_rows(m, d);
  for (int c = 0; c < 4; ++c)
    for (int i = 0; i < m.constraints()[c]->rows(); ++i)
      EXPECT_NEAR(d.position_residual(m.row_offset(c) + i), 0.0, 1e-15) << "constraint " << c;
  // the orientation is the normalised axis-angle
  const Mat3 Q = Eigen::AngleAxisd(0.6, Vec3(1, 1, 0).normalized()).toRotationMatrix();
  EXPECT_LE((d.body[0].Q - Q).cwiseAbs().maxCoeff(), 1e-15);
  // inertia from the cylinder: m r²/2 about the axis
  EXPECT_NEAR(m.bodies()[0].inertia(2, 2), 0.5 * 2 * 0.01, 1e-15);
}

// Every shipped example loads and evaluates with both dense formulations.
TEST(Scene, ExamplesLoadAndEvaluate) {
  int count = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(APPELL_SOURCE_DIR) + "/scenes/examples")) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    Model m;
    ASSERT_NO_THROW(m = load_model(entry.path().string()));
    for (Formulation f : {Formulation::Pinv, Formulation::GibbsAppell}) {
      Data d(m);
      EXPECT_EQ(forward(m, d, f), SolveStatus::Ok) << d.diagnostics.message;
    }
    ++count;
  }
  EXPECT_GT(count, 0);
}

// Directions and quaternions are scaled before they are normalised, so entries whose
// squares overflow a double still give the rotation they describe: q ∝ (1, 1, 0, 0) is
// a quarter turn about x, taking body z to world −y.
TEST(Scene, HugeQuaternionsAndAxesStillNormalise) {
  const Model m = load_model_from_string(R"({"bodies": [
      {"name": "a", "mass": 1, "inertia": {"sphere": 0.1},
       "orientation": {"quaternion": [1e300, 1e300, 0, 0]}},
      {"name": "b", "mass": 1, "inertia": {"sphere": 0.1},
       "orientation": {"axis_angle": [1e300, 0, 0, 1.5707963267948966]}}]})");
  for (int i = 0; i < 2; ++i) {
    const Mat3 Q = m.bodies()[i].orientation.toRotationMatrix();
    EXPECT_TRUE(Q.allFinite());
    EXPECT_NEAR((Q * Vec3::UnitZ() - Vec3(0, -1, 0)).norm(), 0.0, 1e-12) << i;
  }
}

TEST(Scene, MissingFileIsASceneError) {
  try {
    load_model("/nonexistent/scene.json");
    FAIL() << "expected SceneError";
  } catch (const SceneError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/scene.json: cannot open the file");
    EXPECT_EQ(e.file(), "/nonexistent/scene.json");
  }
}

}  // namespace
}  // namespace appell
