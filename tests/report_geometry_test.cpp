// The report draws the bodies' geometry (cli/report_geometry.cpp): the page's data block
// lists every shape of the scene file with its kind, sizes and pose as the file gives
// them; meshes are embedded as float32 vertices and uint32 triangles equal to the file's,
// capped in size; visual shapes (a scene's "visual": true, URDF <visual>, MJCF geoms with
// contype = conaffinity = 0) are drawn and never collide.  The page in a browser:
// tests/browser/ (the "shapes" case).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "appell/appell.hpp"
#include "tests/cli_util.hpp"

namespace appell {
namespace {

using nlohmann::json;
using testing::read_file;
using testing::run_cli;
using testing::write_temp;

const std::string kExamples = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/";

json report_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"appell-data\">";
  const size_t a = html.find(open);
  if (a == std::string::npos) return nullptr;
  const size_t b = html.find("</script>", a);
  return json::parse(html.substr(a + open.size(), b - a - open.size()));
}

json report_of(const std::string& scene, const std::string& name, std::string* html = nullptr) {
  const std::string out = write_temp(name + ".html", "");
  const auto r = run_cli("simulate " + scene + " --duration 0.01 --quiet --report " + out);
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string text = read_file(out);
  if (html) *html = text;
  return report_data(text);
}

std::vector<std::uint8_t> unbase64(const std::string& s) {
  std::vector<std::uint8_t> out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    const char* at =
        std::strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", c);
    if (c == '=' || !at) break;
    acc = (acc << 6) | static_cast<std::uint32_t>(at -
                                                  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijkl"
                                                  "mnopqrstuvwxyz0123456789+/");
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<std::uint8_t>(acc >> bits));
    }
  }
  return out;
}
std::vector<float> floats(const std::string& s) {
  const auto b = unbase64(s);
  std::vector<float> v(b.size() / 4);
  for (size_t i = 0; i < v.size(); ++i) {
    const std::uint32_t u = b[4 * i] | b[4 * i + 1] << 8 | b[4 * i + 2] << 16 |
                            static_cast<std::uint32_t>(b[4 * i + 3]) << 24;
    std::memcpy(&v[i], &u, 4);
  }
  return v;
}
std::vector<std::uint32_t> uints(const std::string& s) {
  const auto b = unbase64(s);
  std::vector<std::uint32_t> v(b.size() / 4);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = b[4 * i] | b[4 * i + 1] << 8 | b[4 * i + 2] << 16 |
           static_cast<std::uint32_t>(b[4 * i + 3]) << 24;
  return v;
}

std::map<std::string, json> by_name(const json& shapes) {
  std::map<std::string, json> out;
  for (const json& s : shapes) out[s["name"].get<std::string>()] = s;
  return out;
}

// The shipped scene with shapes: every shape of the file, by name, with its type, sizes,
// body and pose as the file writes them (no "com": the link frame is the body frame)
TEST(ReportGeometry, ListsTheSceneFilesShapes) {
  REQUIRE_REPORT();
  const std::string scene = kExamples + "box_on_ground_shapes.json";
  const json file = json::parse(read_file(scene));
  const json d = report_of(scene, "geometry_shapes");
  const auto shapes = by_name(d["geometry"]["shapes"]);
  std::vector<std::pair<int, json>> expected;
  for (const json& s : file["shapes"]) expected.emplace_back(-1, s);
  for (size_t b = 0; b < file["bodies"].size(); ++b)
    for (const json& s : file["bodies"][b]["shapes"]) expected.emplace_back(int(b), s);
  ASSERT_EQ(shapes.size(), expected.size());
  ASSERT_EQ(expected.size(), 3u);
  for (const auto& [body, s] : expected) {
    const std::string name = s["name"];
    ASSERT_TRUE(shapes.count(name)) << name;
    const json& r = shapes.at(name);
    EXPECT_EQ(r["kind"], s["type"]) << name;
    EXPECT_EQ(r["body"], body) << name;
    EXPECT_EQ(r["visual"], false) << name;
    EXPECT_EQ(r["p"], s.value("position", json::array({0, 0, 0}))) << name;
    EXPECT_EQ(r["q"], json::array({1, 0, 0, 0})) << name;
    if (s.contains("size")) {
      EXPECT_EQ(r["size"], s["size"]) << name;
    }
    if (s.contains("radius")) {
      EXPECT_EQ(r["radius"], s["radius"]) << name;
      EXPECT_EQ(r["r"], s["radius"]) << name;  // a sphere's bounding radius
    }
  }
  EXPECT_TRUE(d["geometry"]["meshes"].empty());
}

// a cube of half edge h written as OBJ quads (8 vertices, 12 triangles once split)
std::string write_cube(const std::string& name, double h) {
  std::string text;
  for (int k = 0; k < 8; ++k)
    text += "v " + std::to_string(k & 1 ? h : -h) + " " + std::to_string(k & 2 ? h : -h) + " " +
            std::to_string(k & 4 ? h : -h) + "\n";
  text += "f 1 3 4 2\nf 5 6 8 7\nf 1 2 6 5\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6\n";
  return write_temp(name, text);
}

// A mesh shape's triangles are the file's, its vertices the file's times the scale, in
// float32, at the file's pose; a visual box is listed as visual, is
// in Model::visuals() and not among the collision shapes
TEST(ReportGeometry, MeshesAndVisualShapes) {
  REQUIRE_REPORT();
  const std::string cube = write_cube("geometry_cube.obj", 0.5);
  const std::string scene = write_temp("geometry_mesh.json", R"({
    "bodies": [{"name": "b", "mass": 1, "inertia": {"box": [0.2, 0.4, 2]},
      "position": [0, 0, 2],
      "shapes": [{"name": "hull", "type": "mesh", "file": ")" + cube +
                                                                 R"(", "scale": [0.2, 0.4, 2],
                  "position": [0.5, 0, 0]},
                 {"name": "look", "type": "box", "size": [1, 2, 3], "visual": true,
                  "orientation": {"axis_angle": [0, 0, 1, 1.5707963267948966]}}]}],
    "constraints": []})");
  const Model m = load_model(scene);
  ASSERT_EQ(m.shapes().size(), 1u);
  ASSERT_EQ(m.visuals().size(), 1u);
  EXPECT_EQ(m.visuals()[0].name, "look");
  EXPECT_EQ(m.shapes()[0].mesh->faces.size(), 12u);

  const json d = report_of(scene, "geometry_mesh");
  const auto shapes = by_name(d["geometry"]["shapes"]);
  const json& hull = shapes.at("hull");
  EXPECT_EQ(hull["kind"], "mesh");
  EXPECT_EQ(hull["p"], json::array({0.5, 0, 0}));
  const json& look = shapes.at("look");
  EXPECT_EQ(look["visual"], true);
  EXPECT_EQ(look["size"], json::array({1, 2, 3}));
  EXPECT_NEAR(look["q"][0].get<double>(), std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(look["q"][3].get<double>(), std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(look["r"].get<double>(), 0.5 * std::sqrt(14.0), 1e-15);

  ASSERT_EQ(d["geometry"]["meshes"].size(), 1u);
  const json& mesh = d["geometry"]["meshes"][0];
  EXPECT_EQ(mesh["triangles"], 12);
  EXPECT_EQ(mesh["source_triangles"], 12);
  const std::vector<float> p = floats(mesh["positions"]);
  const std::vector<std::uint32_t> idx = uints(mesh["indices"]);
  ASSERT_EQ(idx.size(), 3u * 12u);
  ASSERT_EQ(p.size() % 3, 0u);
  const float half[3] = {0.1f, 0.2f, 1.0f};  // 0.5 × the scale
  for (size_t i = 0; i < p.size(); ++i) EXPECT_FLOAT_EQ(std::abs(p[i]), half[i % 3]) << i;
  // the 12 triangles close the cube: each of its 18 edges (12 sides, 6 diagonals) between
  // its 8 corners is shared by exactly two triangles (corners compared by position: the
  // file's faces need not share vertices)
  const auto corner = [&](std::uint32_t i) {
    EXPECT_LT(3 * i + 2, p.size());
    return (p[3 * i] > 0) + 2 * (p[3 * i + 1] > 0) + 4 * (p[3 * i + 2] > 0);
  };
  std::map<std::pair<int, int>, int> edges;
  for (size_t t = 0; t < 12; ++t)
    for (int k = 0; k < 3; ++k) {
      const int a = corner(idx[3 * t + k]), b = corner(idx[3 * t + (k + 1) % 3]);
      ++edges[{std::min(a, b), std::max(a, b)}];
    }
  EXPECT_EQ(edges.size(), 18u);
  for (const auto& e : edges) EXPECT_EQ(e.second, 2);
}

// A mesh above the page's cap is decimated to fit, says so, and stays where it was (a
// visual mesh: as a collision shape it would make the run itself slow)
TEST(ReportGeometry, HugeMeshIsCapped) {
  REQUIRE_REPORT();
  // a unit sphere of 2 n² triangles, n = 330: 217800 > the cap of 200000
  const int n = 330;
  std::string text;
  text.reserve(size_t{60} * n * n);
  char line[96];
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j < n; ++j) {
      const double th = M_PI * i / n, ph = 2 * M_PI * j / n;
      std::snprintf(line, sizeof line, "v %.6f %.6f %.6f\n", std::sin(th) * std::cos(ph),
                    std::sin(th) * std::sin(ph), std::cos(th));
      text += line;
    }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const int a = i * n + j + 1, b = i * n + (j + 1) % n + 1;
      std::snprintf(line, sizeof line, "f %d %d %d\nf %d %d %d\n", a, b, b + n, a, b + n, a + n);
      text += line;
    }
  const std::string obj = write_temp("geometry_sphere.obj", text);
  const std::string scene = write_temp("geometry_huge.json", R"({
    "bodies": [{"name": "b", "mass": 1, "inertia": {"sphere": 1},
      "shapes": [{"name": "ball", "type": "mesh", "file": ")" + obj +
                                                                 R"(", "visual": true}]}],
    "constraints": []})");
  std::string html;
  const json d = report_of(scene, "geometry_huge", &html);
  const json& mesh = d["geometry"]["meshes"][0];
  EXPECT_EQ(mesh["source_triangles"], 2 * n * n);
  EXPECT_LE(mesh["triangles"].get<int>(), 200000);
  EXPECT_GT(mesh["triangles"].get<int>(), 1000);  // still a sphere, not a handful
  ASSERT_EQ(d["geometry"]["notes"].size(), 1u);
  EXPECT_NE(d["geometry"]["notes"][0].get<std::string>().find("mesh 'ball': 217800 triangles"),
            std::string::npos);
  // every drawn vertex is a mean of the sphere's points: inside the unit ball
  for (float v : floats(mesh["positions"])) EXPECT_LE(std::abs(v), 1.0f + 1e-6f);
  EXPECT_LT(html.size(), size_t{8} << 20);
}

// URDF <visual>: read with its origin (com subtracted), kept out of the collision shapes;
// one the model cannot draw (missing mesh, zero radius) is left out without a word
TEST(ReportGeometry, UrdfVisuals) {
  const std::string cube = write_cube("geometry_visual_cube.obj", 0.5);
  const std::string cube_file = cube.substr(cube.rfind('/') + 1);  // beside the URDF
  const std::string path = write_temp("geometry_visuals.urdf", R"(<robot name="r">
  <link name="base"/>
  <link name="arm">
    <inertial><origin xyz="0 0 -0.2"/><mass value="1"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.001"/></inertial>
    <collision><geometry><box size="0.1 0.1 0.4"/></geometry></collision>
    <visual><origin xyz="0.1 0 -0.3" rpy="0 0 0"/><geometry><sphere radius="0.07"/></geometry></visual>
    <visual><geometry><mesh filename=")" + cube_file + R"(" scale="2 2 2"/></geometry></visual>
    <visual><geometry><mesh filename="package://nowhere/arm.dae"/></geometry></visual>
    <visual><geometry><cylinder radius="0" length="1"/></geometry></visual>
  </link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>)");
  const Scene scene = load_scene(path);
  EXPECT_TRUE(scene.warnings.empty());
  const Model m = compile(scene);
  ASSERT_EQ(m.shapes().size(), 1u);
  EXPECT_EQ(m.shapes()[0].type, ShapeType::Box);
  ASSERT_EQ(m.visuals().size(), 2u);
  const Shape& ball = m.visuals()[0];
  EXPECT_EQ(ball.type, ShapeType::Sphere);
  EXPECT_EQ(ball.radius, 0.07);
  EXPECT_TRUE(ball.visual);
  EXPECT_NEAR((ball.position - Vec3(0.1, 0, -0.1)).norm(), 0.0, 1e-15);
  const Shape& mesh = m.visuals()[1];
  EXPECT_EQ(mesh.type, ShapeType::ConvexMesh);
  EXPECT_EQ(mesh.mesh->faces.size(), 12u);
  for (const Vec3& v : mesh.mesh->vertices) EXPECT_NEAR(v.cwiseAbs().maxCoeff(), 1.0, 1e-12);
  if (testing::built_with_report()) {
    const json d = report_of(path, "geometry_urdf");
    int visual = 0;
    for (const json& s : d["geometry"]["shapes"]) visual += s["visual"].get<bool>();
    EXPECT_EQ(visual, 2);
    EXPECT_EQ(d["geometry"]["shapes"].size(), 3u);
  }
}

// MJCF: a geom with contype = conaffinity = 0 is visual only, the others collide
TEST(ReportGeometry, MjcfVisualGeoms) {
  const std::string path = write_temp("geometry_visual.xml", R"(<mujoco><worldbody>
    <body name='b' pos='0 0 1'><freejoint/>
      <geom name='solid' type='box' size='0.1 0.2 0.3'/>
      <geom name='look' type='sphere' size='0.2' contype='0' conaffinity='0'/>
    </body></worldbody></mujoco>)");
  const Model m = load_model(path);
  ASSERT_EQ(m.shapes().size(), 1u);
  EXPECT_EQ(m.shapes()[0].name, "solid");
  ASSERT_EQ(m.visuals().size(), 1u);
  EXPECT_EQ(m.visuals()[0].name, "look");
  EXPECT_EQ(m.visuals()[0].radius, 0.2);
}

}  // namespace
}  // namespace appell
