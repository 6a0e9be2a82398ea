// Collision shapes on bodies (appell/geometry.hpp): validation, the pair rules, scenes'
// "shapes" (and their located errors through `appell check`), URDF <collision>, meshes.
#include "appell/geometry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "appell/appell.hpp"
#include "tests/cli_util.hpp"

namespace appell {
namespace {

using testing::run_cli;
using testing::write_temp;

Mat3 rpy(double r, double p, double y) {
  return (Eigen::AngleAxisd(y, Vec3::UnitZ()) * Eigen::AngleAxisd(p, Vec3::UnitY()) *
          Eigen::AngleAxisd(r, Vec3::UnitX()))
      .toRotationMatrix();
}

std::string add_shape_error(const Shape& s) {
  ModelBuilder b;
  Body body;
  body.name = "a";
  b.add_body(body);
  try {
    b.add_shape(s);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Geometry, AddShapeValidates) {
  Shape s;
  s.type = ShapeType::Sphere;
  s.radius = 0.1;
  s.body = 0;
  EXPECT_EQ(add_shape_error(s), "");
  Shape bad = s;
  bad.body = 3;
  EXPECT_NE(add_shape_error(bad).find("body 3, model has 1"), std::string::npos);
  bad = s;
  bad.radius = 0;
  EXPECT_NE(add_shape_error(bad).find("radius must be finite and > 0, got 0"), std::string::npos);
  bad = s;
  bad.friction = -0.5;
  EXPECT_NE(add_shape_error(bad).find("friction must be finite and >= 0"), std::string::npos);
  bad = s;
  bad.restitution = 1.5;
  EXPECT_NE(add_shape_error(bad).find("restitution must be in [0, 1], got 1.5"), std::string::npos);
  bad = s;
  bad.orientation = Quat(1, 1, 0, 0);
  EXPECT_NE(add_shape_error(bad).find("unit quaternion"), std::string::npos);
  bad = s;
  bad.type = ShapeType::Box;
  bad.half_extents = Vec3(1, -1, 1);
  EXPECT_NE(add_shape_error(bad).find("half_extents must be finite and > 0, got -1"),
            std::string::npos);
  bad = s;
  bad.type = ShapeType::Capsule;
  EXPECT_NE(add_shape_error(bad).find("length must be"), std::string::npos);
  bad.type = ShapeType::ConvexMesh;
  EXPECT_NE(add_shape_error(bad).find("needs a mesh"), std::string::npos);
  bad.mesh = make_mesh({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(1, 1, 0)});
  EXPECT_NE(add_shape_error(bad).find("lie in one plane"), std::string::npos);
  bad.mesh = make_mesh({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)});
  EXPECT_NE(add_shape_error(bad).find("at least 4 vertices"), std::string::npos);
  EXPECT_THROW(make_mesh({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)}, {{0, 1, 3}}),
               std::invalid_argument);
  // names are unique
  ModelBuilder b;
  s.body = kWorld;
  s.name = "x";
  b.add_shape(s);
  EXPECT_THROW(b.add_shape(s), std::invalid_argument);
  // the world's planes need no size
  Shape p;
  p.type = ShapeType::Plane;
  EXPECT_EQ(b.add_shape(p), 1);
  EXPECT_EQ(compile(b).shapes().size(), 2u);
}

TEST(Geometry, PairRules) {
  Shape a, b;
  a.friction = 0.25;
  b.friction = 1.0;
  a.restitution = 0.2;
  b.restitution = 0.6;
  EXPECT_DOUBLE_EQ(pair_friction(a, b), 0.5);
  EXPECT_EQ(pair_restitution(a, b), 0.6);
  b.friction = a.friction;
  EXPECT_DOUBLE_EQ(pair_friction(a, b), 0.25);  // equal coefficients give themselves
  a.friction = b.friction = 1e200;              // no overflow
  EXPECT_DOUBLE_EQ(pair_friction(a, b), 1e200);
}

// a body's shapes in its link frame (com subtracted), the world's in world coordinates
TEST(Geometry, SceneShapesLoad) {
  const Model m = load_model_from_string(R"({
    "shapes": [{"name": "ground", "type": "plane", "position": [0, 0, -1], "friction": 0.9}],
    "bodies": [
      {"name": "arm", "mass": 1, "inertia": {"box": [0.1, 0.1, 1]}, "com": [0, 0, -0.5],
       "shapes": [
         {"type": "capsule", "radius": 0.05, "length": 0.9, "position": [0, 0, -0.5]},
         {"type": "box", "size": [0.2, 0.4, 0.6], "position": [0.1, 0, -1],
          "orientation": {"axis_angle": [0, 0, 1, 0.5]}, "restitution": 0.3, "group": 6,
          "mask": 4294967295}]}],
    "constraints": [{"name": "pin", "type": "revolute", "bodies": ["world", "arm"],
                     "origin": {"xyz": [0, 0, 2]}, "axis": [0, 1, 0]}]})");
  ASSERT_EQ(m.shapes().size(), 3u);
  const Shape& cap = m.shapes()[0];
  EXPECT_EQ(cap.name, "arm/0");
  EXPECT_EQ(cap.body, 0);
  EXPECT_EQ(cap.type, ShapeType::Capsule);
  EXPECT_NEAR((cap.position - Vec3(0, 0, 0)).norm(), 0.0, 1e-15);
  const Shape& box = m.shapes()[1];
  EXPECT_NEAR((box.position - Vec3(0.1, 0, -0.5)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((box.half_extents - Vec3(0.1, 0.2, 0.3)).norm(), 0.0, 1e-15);
  EXPECT_NEAR(box.orientation.angularDistance(Quat(Eigen::AngleAxisd(0.5, Vec3::UnitZ()))), 0.0,
              1e-15);
  EXPECT_EQ(box.restitution, 0.3);
  EXPECT_EQ(box.group, 6u);
  EXPECT_EQ(box.mask, 0xffffffffu);
  EXPECT_EQ(box.friction, 0.5);  // the default
  const Shape& ground = m.shapes()[2];
  EXPECT_EQ(ground.name, "ground");
  EXPECT_EQ(ground.body, kWorld);
  EXPECT_EQ(ground.position, Vec3(0, 0, -1));
  // the box's centre in the world at t = 0: the link frame is at (0, 0, 2)
  Data d(m);
  ASSERT_EQ(forward(m, d), SolveStatus::Ok);
  const Vec3 at = d.body[0].point(box.position);
  EXPECT_NEAR((at - Vec3(0.1, 0, 1)).norm(), 0.0, 1e-14);
}

struct BadShape {
  const char* shape;    // the shape's JSON
  const char* pointer;  // where the error is, after /bodies/0/shapes/0
  const char* message;  // part of the message
};

// Bad shapes: exit status 2, one located line
TEST(Geometry, BadShapesAreLocatedErrors) {
  const BadShape cases[] = {
      {R"({"type": "sphere", "radius": -1})", "/radius", "must be > 0, got -1"},
      {R"({"type": "sphere"})", "", "missing key 'radius'"},
      {R"({"type": "sphere", "radius": 1, "size": [1, 1, 1]})", "/size", "a sphere has no size"},
      {R"({"type": "cone", "radius": 1})", "/type", "unknown shape type 'cone'"},
      {R"({"type": "box", "size": [1, 0, 1]})", "/size/1", "must be > 0, got 0"},
      {R"({"type": "capsule", "radius": 1, "length": "a"})", "/length", "expected a number"},
      {R"({"type": "sphere", "radius": 1, "friction": -0.1})", "/friction", "must be >= 0"},
      {R"({"type": "sphere", "radius": 1, "restitution": 1.5})", "/restitution",
       "restitution must be in [0, 1]"},
      {R"({"type": "sphere", "radius": 1, "orientation": {"quaternion": [0, 0, 0, 0]}})",
       "/orientation/quaternion", "quaternion must be nonzero"},
      {R"({"type": "sphere", "radius": 1, "group": -1})", "/group", "expected an integer"},
      {R"({"type": "sphere", "radius": 1, "mask": 4294967296})", "/mask", "expected an integer"},
      {R"({"type": "sphere", "radius": 1, "colour": 1})", "/colour", "unknown key 'colour'"},
      {R"({"type": "mesh", "file": "no_such_mesh.stl"})", "/file", "cannot open the file"},
      {R"({"type": "mesh", "file": "/dev/zero"})", "/file", "not a regular file"},
      {R"({"type": "mesh", "file": "/"})", "/file", "not a regular file"},
  };
  int i = 0;
  for (const BadShape& c : cases) {
    const std::string path = write_temp(
        "bad_shape_" + std::to_string(i++) + ".json",
        std::string(
            R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}, "shapes": [)") +
            c.shape + "]}]}");
    const auto r = run_cli("check " + path);
    EXPECT_EQ(r.status, 2) << c.shape;
    const std::string head = "error: " + path + ": /bodies/0/shapes/0" + c.pointer + ": ";
    EXPECT_EQ(r.err.rfind(head, 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // the world's shapes and duplicate names
  const std::string world = write_temp(
      "bad_world_shape.json",
      R"({"shapes": [{"type": "plane"}, {"type": "plane", "radius": 1}], "bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}]})");
  auto r = run_cli("check " + world);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: " + world + ": /shapes/1/radius: a plane has no radius\n");
  const std::string dup = write_temp(
      "dup_shape.json",
      R"({"shapes": [{"name": "s", "type": "plane"}], "bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}, "shapes": [{"name": "s", "type": "sphere", "radius": 1}]}]})");
  r = run_cli("check " + dup);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: " + dup + ": /shapes/0/name: duplicate shape name 's'\n");
}

// the shipped example with shapes checks and loads its shapes
TEST(Geometry, ShippedExample) {
  const std::string path =
      std::string(APPELL_SOURCE_DIR) + "/scenes/examples/box_on_ground_shapes.json";
  const auto r = run_cli("check " + path);
  EXPECT_EQ(r.status, 0) << r.err;
  const Model m = load_model(path);
  ASSERT_EQ(m.shapes().size(), 3u);
  EXPECT_EQ(m.shapes()[0].type, ShapeType::Box);
  EXPECT_EQ(m.shapes()[1].type, ShapeType::Sphere);
  EXPECT_EQ(m.shapes()[2].type, ShapeType::Plane);
}

const char kUrdf[] = R"(<robot name="r">
  <link name="base">
    <collision><origin xyz="0 0 -0.05"/><geometry><box size="2 2 0.1"/></geometry></collision>
  </link>
  <joint name="j1" type="continuous"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 1"/><axis xyz="0 1 0"/></joint>
  <link name="arm">
    <inertial><origin xyz="0 0 -0.25"/><mass value="1"/>
      <inertia ixx="0.02" iyy="0.02" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0.1 0.2 -0.3" rpy="0.1 0.2 0.3"/>
      <geometry><cylinder radius="0.05" length="0.5"/></geometry></collision>
    <collision><origin xyz="0 0 -0.5"/><geometry><sphere radius="0.07"/></geometry></collision>
  </link>
  <joint name="tool_joint" type="fixed"><parent link="arm"/><child link="tool"/>
    <origin xyz="0 0 -0.6" rpy="0 0 1.5707963267948966"/></joint>
  <link name="tool">
    <collision><origin xyz="0.1 0 0"/><geometry><box size="0.1 0.2 0.3"/></geometry></collision>
  </link>
MESH</robot>)";

std::string urdf(const std::string& mesh) {
  std::string text = kUrdf;
  text.replace(text.find("MESH"), 4, mesh);
  return text;
}

// <collision> boxes, spheres and cylinders at their <origin>, on the link's body (com
// subtracted), on the parent of a merged link, on the world for a fixed base's root
TEST(Geometry, UrdfCollisions) {
  const std::string path = write_temp("collisions.urdf", urdf(""));
  const Scene scene = load_scene(path);
  EXPECT_TRUE(scene.warnings.empty());
  const Model m = compile(scene);
  ASSERT_EQ(m.shapes().size(), 4u);
  const Shape* by_name[4] = {};
  const char* names[] = {"arm/0", "arm/1", "tool", "base"};
  for (const Shape& s : m.shapes())
    for (int i = 0; i < 4; ++i)
      if (s.name == names[i]) by_name[i] = &s;
  for (int i = 0; i < 4; ++i) ASSERT_NE(by_name[i], nullptr) << names[i];
  const Shape& cyl = *by_name[0];
  EXPECT_EQ(cyl.type, ShapeType::Cylinder);
  EXPECT_EQ(cyl.body, 0);
  EXPECT_EQ(cyl.radius, 0.05);
  EXPECT_EQ(cyl.length, 0.5);
  EXPECT_NEAR((cyl.position - Vec3(0.1, 0.2, -0.05)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((cyl.orientation.toRotationMatrix() - rpy(0.1, 0.2, 0.3)).norm(), 0.0, 1e-14);
  EXPECT_NEAR((by_name[1]->position - Vec3(0, 0, -0.25)).norm(), 0.0, 1e-15);
  EXPECT_EQ(by_name[1]->radius, 0.07);
  // the tool is merged into the arm: (0, 0, −0.6) + Rz(π/2) (0.1, 0, 0) − com
  const Shape& tool = *by_name[2];
  EXPECT_EQ(tool.body, 0);
  EXPECT_NEAR((tool.position - Vec3(0, 0.1, -0.35)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((tool.orientation.toRotationMatrix() - rpy(0, 0, M_PI / 2)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((tool.half_extents - Vec3(0.05, 0.1, 0.15)).norm(), 0.0, 1e-15);
  // a robot does not collide with itself: group 2, a mask without it
  for (const Shape* sh : by_name) {
    EXPECT_EQ(sh->group, 2u);
    EXPECT_EQ(sh->mask, 0xfffffffdu);
  }
  const Shape& base = *by_name[3];
  EXPECT_EQ(base.body, kWorld);
  EXPECT_NEAR((base.position - Vec3(0, 0, -0.05)).norm(), 0.0, 1e-15);
  // in the world at q = 0 the cylinder sits at the link origin (0, 0, 1) + its <origin>
  Data d(m);
  ASSERT_EQ(forward(m, d), SolveStatus::Ok);
  EXPECT_NEAR((d.body[0].point(cyl.position) - Vec3(0.1, 0.2, 0.7)).norm(), 0.0, 1e-14);
}

// a small OBJ cube written here
std::string write_cube(const std::string& path, double half) {
  std::ofstream f(path);
  for (int k = 0; k < 8; ++k)
    f << "v " << (k & 1 ? half : -half) << " " << (k & 2 ? half : -half) << " "
      << (k & 4 ? half : -half) << "\n";
  f << "f 1 3 4 2\nf 5 6 8 7\nf 1 2 6 5\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6\n";
  return path;
}

// meshes: relative to the URDF's folder and scaled; package:// from a folder above; a
// missing one is left out with one warning (status 0)
TEST(Geometry, UrdfMeshes) {
  const std::string dir = ::testing::TempDir() + "geom_urdf_" + std::to_string(getpid());
  ASSERT_EQ(std::system(("mkdir -p " + dir + "/pkg/meshes " + dir + "/pkg/urdf").c_str()), 0);
  write_cube(dir + "/pkg/meshes/cube.obj", 0.5);
  const std::string mesh =
      R"(<link name="m"><collision><geometry><mesh filename="../meshes/cube.obj" scale="0.2 0.4 2"/></geometry></collision>
         <collision><geometry><mesh filename="package://pkg/meshes/cube.obj"/></geometry></collision></link>
       <joint name="mj" type="fixed"><parent link="arm"/><child link="m"/></joint>)";
  const std::string path = dir + "/pkg/urdf/robot.urdf";
  std::ofstream(path) << urdf(mesh);
  const Model m = load_model(path);
  int meshes = 0;
  for (const Shape& s : m.shapes()) {
    if (s.type != ShapeType::ConvexMesh) continue;
    ++meshes;
    Vec3 hi = Vec3::Constant(-1e9);
    for (const Vec3& v : s.mesh->vertices) hi = hi.cwiseMax(v);
    EXPECT_NEAR((hi - (s.name == "m/0" ? Vec3(0.1, 0.2, 1) : Vec3(0.5, 0.5, 0.5))).norm(), 0.0,
                1e-6)
        << s.name;
  }
  EXPECT_EQ(meshes, 2);
  const std::string missing =
      R"(<link name="m"><collision><geometry><mesh filename="package://nowhere/x.stl"/></geometry></collision></link>
       <joint name="mj" type="fixed"><parent link="arm"/><child link="m"/></joint>)";
  const std::string path2 = dir + "/pkg/urdf/missing.urdf";
  std::ofstream(path2) << urdf(missing);
  const Scene scene = load_scene(path2);
  ASSERT_EQ(scene.warnings.size(), 1u);
  EXPECT_NE(scene.warnings[0].find("link 'm': <collision> mesh 'package://nowhere/x.stl'"),
            std::string::npos);
  EXPECT_EQ(compile(scene).shapes().size(), 4u);
  const auto r = run_cli("check " + path2);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.rfind("warning: " + path2 + ": 1 <collision> mesh file(s) not found", 0), 0u)
      << r.err;
}

}  // namespace
}  // namespace appell
