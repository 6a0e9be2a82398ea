// Mesh files (scenes/mesh.cpp) and meshes (bodies/mesh.cpp): every accepted format reads
// the same solid (its volume by the divergence theorem against the closed form); hostile
// files are refused with the file named by every loader (scene, URDF, MJCF) instead of
// aborting or hanging; counts a header states are checked against the file's bytes; a
// large mesh keeps a bounded hull; one file is read once and shared by every geom; MJCF's
// mirrored scales and inline vertices give the closed-form volume, centre and inertia.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>

#include "appell/appell.hpp"
#include "scenes/shapes.hpp"
#include "tests/cli_util.hpp"

namespace appell {
namespace {

using testing::write_temp;

// the volume a closed triangle mesh bounds (signed tetrahedra from the origin; Gauss)
double volume(const std::vector<Vec3>& v, const std::vector<std::array<int, 3>>& t) {
  double V = 0;
  for (const auto& f : t) V += v[f[0]].dot(v[f[1]].cross(v[f[2]])) / 6;
  return V;
}

// the unit cube [0, 1]³: its corners (i, j, k) at index 4i + 2j + k and its six faces as
// quads, counter-clockwise seen from outside
const int kQuads[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1},
                          {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
Vec3 corner(int c) {
  return Vec3((c >> 2) & 1, (c >> 1) & 1, c & 1);
}
std::vector<std::array<int, 3>> cube_triangles() {
  std::vector<std::array<int, 3>> t;
  for (const auto& q : kQuads) {
    t.push_back({q[0], q[1], q[2]});
    t.push_back({q[0], q[2], q[3]});
  }
  return t;
}

std::string binary_stl(const std::vector<std::array<Vec3, 3>>& triangles) {
  std::string s(80, ' ');
  const auto n = static_cast<std::uint32_t>(triangles.size());
  s.append(reinterpret_cast<const char*>(&n), 4);
  for (const auto& t : triangles) {
    float f[12] = {0, 0, 0};
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 3; ++i) f[3 + 3 * k + i] = static_cast<float>(t[k](i));
    s.append(reinterpret_cast<const char*>(f), sizeof f);
    s.append(2, '\0');
  }
  return s;
}

std::vector<std::array<Vec3, 3>> cube_soup() {
  std::vector<std::array<Vec3, 3>> soup;
  for (const auto& t : cube_triangles()) soup.push_back({corner(t[0]), corner(t[1]), corner(t[2])});
  return soup;
}

// the cube in each format (and its binary forms' byte orders)
std::map<std::string, std::string> cube_files() {
  std::map<std::string, std::string> files;
  files["cube.stl"] = binary_stl(cube_soup());
  std::string ascii = "solid cube\n";
  for (const auto& t : cube_soup()) {
    ascii += " facet normal 0 0 0\n  outer loop\n";
    for (const Vec3& p : t)
      ascii += "   vertex " + std::to_string(p.x()) + " " + std::to_string(p.y()) + " " +
               std::to_string(p.z()) + "\n";
    ascii += "  endloop\n endfacet\n";
  }
  files["cube_ascii.stl"] = ascii + "endsolid cube\n";
  // OBJ: quads, corners as i/t/n, negative (relative) indices for the last face
  std::string obj = "# cube\no cube\n";
  for (int c = 0; c < 8; ++c)
    obj += "v " + std::to_string(corner(c).x()) + " " + std::to_string(corner(c).y()) + " " +
           std::to_string(corner(c).z()) + "\nvn 0 0 1\n";
  for (int f = 0; f < 5; ++f) {
    obj += "f";
    for (int k = 0; k < 4; ++k) obj += " " + std::to_string(kQuads[f][k] + 1) + "//1";
    obj += "\n";
  }
  obj += "f";
  for (int k = 0; k < 4; ++k) obj += " " + std::to_string(kQuads[5][k] - 8);
  files["cube.obj"] = obj + "\n";
  // PLY ascii with a comment, a colour and an extra element
  std::string ply =
      "ply\nformat ascii 1.0\ncomment a cube\nelement vertex 8\nproperty float x\n"
      "property float y\nproperty float z\nproperty uchar red\nelement face 6\n"
      "property list uchar int vertex_indices\nelement edge 1\nproperty int vertex1\n"
      "property int vertex2\nend_header\n";
  for (int c = 0; c < 8; ++c)
    ply += std::to_string(corner(c).x()) + " " + std::to_string(corner(c).y()) + " " +
           std::to_string(corner(c).z()) + " 255\n";
  for (const auto& q : kQuads)
    ply += "4 " + std::to_string(q[0]) + " " + std::to_string(q[1]) + " " + std::to_string(q[2]) +
           " " + std::to_string(q[3]) + "\n";
  files["cube_ascii.ply"] = ply + "0 1\n";
  // PLY binary, both byte orders: double coordinates, uint16 indices
  for (const bool big : {false, true}) {
    std::string b = std::string("ply\nformat ") +
                    (big ? "binary_big_endian" : "binary_little_endian") +
                    " 1.0\nelement vertex 8\nproperty double x\nproperty double y\n"
                    "property double z\nelement face 6\nproperty list uchar ushort "
                    "vertex_indices\nend_header\n";
    const auto put = [&](const void* p, size_t n) {
      std::string bytes(static_cast<const char*>(p), n);
      if (big) std::reverse(bytes.begin(), bytes.end());
      b += bytes;
    };
    for (int c = 0; c < 8; ++c)
      for (int i = 0; i < 3; ++i) {
        const double x = corner(c)(i);
        put(&x, 8);
      }
    for (const auto& q : kQuads) {
      b += '\4';
      for (int k = 0; k < 4; ++k) {
        const auto i = static_cast<std::uint16_t>(q[k]);
        put(&i, 2);
      }
    }
    files[big ? "cube_be.ply" : "cube_le.ply"] = b;
  }
  // COLLADA (assimp, in its child process)
  std::string positions, indices;
  for (int c = 0; c < 8; ++c)
    positions += std::to_string(corner(c).x()) + " " + std::to_string(corner(c).y()) + " " +
                 std::to_string(corner(c).z()) + " ";
  for (const auto& t : cube_triangles())
    indices += std::to_string(t[0]) + " " + std::to_string(t[1]) + " " + std::to_string(t[2]) + " ";
  files["cube.dae"] =
      R"(<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit meter="1" name="meter"/><up_axis>Z_UP</up_axis></asset>
  <library_geometries><geometry id="cube" name="cube"><mesh>
    <source id="cube-pos"><float_array id="cube-pos-array" count="24">)" +
      positions + R"(</float_array>
      <technique_common><accessor source="#cube-pos-array" count="8" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <vertices id="cube-vtx"><input semantic="POSITION" source="#cube-pos"/></vertices>
    <triangles count="12"><input semantic="VERTEX" source="#cube-vtx" offset="0"/><p>)" +
      indices + R"(</p></triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="scene"><node id="n" name="n">
    <instance_geometry url="#cube"/></node></visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
)";
  return files;
}

// Every format gives the cube: volume 1 (closed), 8 hull vertices at the corners
TEST(MeshFiles, EveryFormatReadsTheCube) {
  for (const auto& [name, bytes] : cube_files()) {
    const std::string path = write_temp(name, bytes);
    MeshFile f;
    std::string error;
    ASSERT_TRUE(read_mesh_file(path, f, error)) << name << ": " << error;
    EXPECT_NEAR(volume(f.vertices, f.triangles), 1.0, 1e-6) << name;
    const auto mesh = scaled_mesh(f, Vec3::Ones());
    EXPECT_EQ(mesh->hull.size(), 8u) << name;
    for (const Vec3& h : mesh->hull)
      EXPECT_NEAR((h - h.array().round().matrix()).norm(), 0.0, 1e-6) << name;
  }
}

// A mirror (one negative factor, or three) keeps the triangles outward: volume +|det|
TEST(MeshFiles, MirroredScaleKeepsTrianglesOutward) {
  MeshFile f;
  for (int c = 0; c < 8; ++c) f.vertices.push_back(corner(c));
  f.triangles = cube_triangles();
  for (const Vec3& s : {Vec3(-1, 2, 1), Vec3(-1, -1, -2), Vec3(1, -3, -1)}) {
    const auto m = scaled_mesh(f, s);
    EXPECT_NEAR(volume(m->vertices, m->faces), std::abs(s.prod()), 1e-12) << s.transpose();
  }
}

// The hostile files under tests/meshes (a 3MF, an OFF, a PLY whose header says
// "end_heder", on which Debian's assimp loops forever) are refused at once by the scene,
// URDF and MJCF loaders, each message naming the file and what is accepted or wrong
TEST(MeshFiles, HostileFilesAreRefusedByEveryLoader) {
  const std::string dir = std::string(APPELL_SOURCE_DIR) + "/tests/meshes/";
  const std::pair<const char*, const char*> cases[] = {
      {"hostile.3mf", "unsupported mesh format '.3mf'; accepted: STL, OBJ, PLY, DAE"},
      {"hostile.off", "unsupported mesh format '.off'; accepted: STL, OBJ, PLY, DAE"},
      {"broken_header.ply", "not a PLY file"}};
  for (const auto& [file, why] : cases) {
    const std::string mesh = dir + file;
    const std::string scene = write_temp("hostile.json", R"({"bodies": [{"name": "b", "mass": 1,
        "inertia": {"box": [1, 1, 1]}, "shapes": [{"type": "mesh", "file": ")" +
                                                             mesh + R"("}]}]})");
    const std::string urdf =
        write_temp("hostile.urdf", R"(<robot name="r"><link name="a"/>
        <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
          <limit lower="-1" upper="1" effort="1" velocity="1"/></joint><link name="b">
        <inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
        <collision><geometry><mesh filename=")" +
                                       mesh + R"("/></geometry></collision></link></robot>)");
    const std::string mjcf = write_temp(
        "hostile.xml", R"(<mujoco><asset><mesh name="m" file=")" + mesh + R"("/></asset><worldbody>
        <body><freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>)");
    for (const std::string& path : {scene, urdf, mjcf}) {
      const std::string e = testing::load_error(path);
      EXPECT_NE(e.find("cannot read the mesh '" + mesh + "': " + why), std::string::npos)
          << path << ": " << e;
      EXPECT_EQ(e.rfind(path, 0), 0u) << e;
    }
  }
}

std::string read_error(const std::string& name, const std::string& bytes) {
  MeshFile f;
  std::string error;
  EXPECT_FALSE(read_mesh_file(write_temp(name, bytes), f, error)) << name;
  EXPECT_TRUE(f.vertices.empty() && f.triangles.empty());
  return error;
}

// Counts a header states are checked against the bytes that must hold them before any
// allocation; indices, numbers and the binary formats' sizes are checked
TEST(MeshFiles, HeadersAndIndicesAreChecked) {
  EXPECT_EQ(read_error("huge.ply",
                       "ply\nformat binary_little_endian 1.0\nelement vertex 2000000000\n"
                       "property float x\nproperty float y\nproperty float z\nend_header\n"),
            "PLY element 'vertex' of 2000000000 rows cannot fit in the file's 0 bytes of data");
  EXPECT_EQ(read_error("list.ply",
                       "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                       "property float y\nproperty float z\nelement face 1\n"
                       "property list uint int vertex_indices\nend_header\n"
                       "0 0 0\n1 0 0\n0 1 0\n4000000000 0 1 2\n"),
            "PLY element 'face' row 1: a bad or missing value of 'vertex_indices'");
  EXPECT_EQ(read_error("range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n"),
            "face 1 names vertex 9 of 3");
  EXPECT_EQ(read_error("nan.obj", "v 0 0 0\nv nan 0 0\n"), "line 2: vertex 2 is not finite");
  EXPECT_EQ(read_error("short.stl", std::string(84, 'x') + std::string(49, '\0')),
            "not an STL file: a binary STL of 2021161080 triangles has 84 + 50 × 2021161080 "
            "bytes, this one 133, and it does not start with 'solid'");
  EXPECT_EQ(read_error("glb.glb", std::string("glTF\2\0\0\0\xff\0\0\0", 12)),
            "not a GLB file (the magic 'glTF', version 2, and its length in bytes 12 in its "
            "12-byte header)");
  EXPECT_NE(read_error("x.dae", "<html></html>").find("not a COLLADA file"), std::string::npos);
  EXPECT_EQ(read_error("noext", "v 0 0 0\n").rfind("a mesh file without an extension", 0), 0u);
  EXPECT_EQ(read_error("loop.stl",
                       "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n"
                       "endloop\nendfacet\nendsolid\n"),
            "line 5: a loop needs 3 vertices or more");
}

// A large mesh (200,000 vertices in a binary STL: a ball of points with 5,000 on its
// sphere) is read once for two shapes and two scales' worth of MeshCache calls, and its
// collision hull keeps at most kMaxHullVertices vertices, all on the sphere, whose support
// in any direction is within the simplification's angular cells of the sphere's radius
TEST(MeshFiles, LargeMeshHasABoundedHullAndIsReadOnce) {
  std::mt19937 rng(7);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(0, 1);
  const double r = 0.5;
  std::vector<Vec3> points;
  for (int i = 0; i < 200000; ++i) {
    const Vec3 d = Vec3(normal(rng), normal(rng), normal(rng)).normalized();
    points.push_back(d * (i < 5000 ? r : r * 0.99 * std::cbrt(uniform(rng))));
  }
  std::vector<std::array<Vec3, 3>> soup;
  for (size_t i = 0; i + 2 < points.size(); i += 3)
    soup.push_back({points[i], points[i + 1], points[i + 2]});
  const std::string path = write_temp("ball.stl", binary_stl(soup));
  MeshCache cache;
  std::string error;
  const auto a = cache.load(path, Vec3::Ones(), error);
  ASSERT_TRUE(a) << error;
  const auto b = cache.load(path, Vec3::Ones(), error);
  const auto c = cache.load(path, Vec3::Constant(2), error);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(cache.reads(), 1);
  ASSERT_TRUE(c);
  EXPECT_EQ(a->vertices.size(), 3 * soup.size());
  EXPECT_LE(a->hull.size(), static_cast<size_t>(kMaxHullVertices));
  EXPECT_GT(a->hull.size(), 500u);
  for (const Vec3& h : a->hull) EXPECT_NEAR(h.norm(), r, 1e-6);  // float32 in the file
  for (int k = 0; k < 200; ++k) {
    const Vec3 d = Vec3(normal(rng), normal(rng), normal(rng)).normalized();
    double support = -1;
    for (const Vec3& h : a->hull) support = std::max(support, d.dot(h));
    EXPECT_GT(support, r * std::cos(10 * M_PI / 180)) << d.transpose();
  }
  // the same file on two bodies of a scene: one Mesh; a few contact steps on a plane
  const std::string scene = write_temp("ball.json", R"({"shapes": [{"type": "plane"}],
      "bodies": [
        {"name": "a", "mass": 1, "inertia": {"box": [1, 1, 1]}, "position": [0, 0, 0.499],
         "shapes": [{"type": "mesh", "file": ")" + path +
                                                        R"("}]},
        {"name": "b", "mass": 1, "inertia": {"box": [1, 1, 1]}, "position": [2, 0, 0.499],
         "shapes": [{"type": "mesh", "file": ")" + path +
                                                        R"("}]}]})");
  const Model m = compile(load_scene(scene));
  ASSERT_EQ(m.shapes().size(), 3u);
  EXPECT_EQ(m.shapes()[0].mesh.get(), m.shapes()[1].mesh.get());
  Data d(m);
  auto det = make_contact_detector(m);
  ASSERT_TRUE(det);
  ASSERT_EQ(forward(m, d), SolveStatus::Ok);
  std::vector<ContactPoint> pts;
  det->detect(m, d, 1e-3, pts);
  // each ball's points on the plane: its hull's lowest vertices, 1 mm deep at most
  ASSERT_FALSE(pts.empty());
  for (const ContactPoint& p : pts) EXPECT_GT(p.gap, -1e-3 - 1e-9);
}

// The hull of points on a sphere, simplified: its vertices are input points
TEST(MeshFiles, SimplifiedHullKeepsInputPoints) {
  std::mt19937 rng(3);
  std::normal_distribution<double> normal;
  std::vector<Vec3> v;
  for (int i = 0; i < 4000; ++i)
    v.push_back(Vec3(normal(rng), normal(rng), normal(rng)).normalized());
  const auto m = make_mesh(v);
  EXPECT_LE(m->hull.size(), static_cast<size_t>(kMaxHullVertices));
  for (const Vec3& h : m->hull) {
    double nearest = 1e9;
    for (const Vec3& p : v) nearest = std::min(nearest, (p - h).norm());
    EXPECT_LT(nearest, 1e-12);
  }
}

// MJCF: one mesh file placed by 2,000 geoms is read once and is one Mesh (MuJoCo's 4 GB
// case); a mirrored scale and inline vertices give the closed-form mass and centre
TEST(MjcfMeshFiles, OneFileSharedByManyGeoms) {
  std::string obj;
  for (int c = 0; c < 8; ++c)
    obj += "v " + std::to_string(0.1 * corner(c).x()) + " " + std::to_string(0.1 * corner(c).y()) +
           " " + std::to_string(0.1 * corner(c).z()) + "\n";
  for (const auto& q : kQuads)
    obj += "f " + std::to_string(q[0] + 1) + " " + std::to_string(q[1] + 1) + " " +
           std::to_string(q[2] + 1) + " " + std::to_string(q[3] + 1) + "\n";
  const std::string mesh = write_temp("shared_cube.obj", obj);
  std::string xml = R"(<mujoco><asset><mesh name="c" file=")" + mesh + R"("/></asset><worldbody>)";
  for (int i = 0; i < 2000; ++i)
    xml += R"(<geom type="mesh" mesh="c" pos=")" + std::to_string(i) + R"( 0 0"/>)";
  xml += R"(<body name="b" pos="0 0 1"><freejoint/><geom type="mesh" mesh="c"/></body>
    </worldbody></mujoco>)";
  const Scene sc = load_scene(write_temp("shared.xml", xml));
  ASSERT_EQ(sc.model.shapes().size(), 2001u);
  for (const Shape& s : sc.model.shapes()) EXPECT_EQ(s.mesh.get(), sc.model.shapes()[0].mesh.get());
  // density 1000 (MuJoCo's default) times 0.001 m³
  EXPECT_NEAR(sc.model.bodies()[sc.model.body_index("b")].mass, 1.0, 1e-9);
}

TEST(MjcfMeshFiles, MirroredScaleAndInlineVertices) {
  // a box [0, 0.3] × [0, 0.2] × [0, 0.1] mirrored in x: centre (−0.15, 0.1, 0.05); a
  // tetrahedron (0, e1, e2, e3) given inline, without faces (its hull) and with them,
  // mirrored in y: volume 1/6, centre (0.25, −0.25, 0.25)
  std::string obj;
  for (int c = 0; c < 8; ++c)
    obj += "v " + std::to_string(0.3 * corner(c).x()) + " " + std::to_string(0.2 * corner(c).y()) +
           " " + std::to_string(0.1 * corner(c).z()) + "\n";
  for (const auto& q : kQuads)
    obj += "f " + std::to_string(q[0] + 1) + " " + std::to_string(q[1] + 1) + " " +
           std::to_string(q[2] + 1) + " " + std::to_string(q[3] + 1) + "\n";
  const std::string box = write_temp("mirror_box.obj", obj);
  const std::string xml = R"(<mujoco><asset>
      <mesh name="box" file=")" +
                          box + R"(" scale="-1 1 1"/>
      <mesh name="tet" vertex="0 0 0  1 0 0  0 1 0  0 0 1" scale="1 -1 1"/>
      <mesh name="tetf" vertex="0 0 0  1 0 0  0 1 0  0 0 1" face="0 2 1  0 1 3  0 3 2  1 2 3"/>
    </asset><worldbody>
      <body name="a"><freejoint/><geom type="mesh" mesh="box" density="1000"/></body>
      <body name="t" pos="5 0 0"><freejoint/><geom type="mesh" mesh="tet" density="600"/></body>
      <body name="f" pos="9 0 0"><freejoint/><geom type="mesh" mesh="tetf" density="600"/></body>
    </worldbody></mujoco>)";
  const Model m = compile(load_scene(write_temp("mirror.xml", xml)));
  const int a = m.body_index("a"), t = m.body_index("t"), f = m.body_index("f");
  EXPECT_NEAR(m.bodies()[a].mass, 1000 * 0.006, 1e-9);
  EXPECT_LT((m.initial_body_state(a).x - Vec3(-0.15, 0.1, 0.05)).norm(), 1e-9);
  // the box's principal moments about its centre: m (b² + c²) / 12 and the rest
  const Eigen::Vector3d moments =
      Eigen::SelfAdjointEigenSolver<Mat3>(m.bodies()[a].inertia).eigenvalues();
  EXPECT_NEAR(moments(0), 6.0 / 12 * (0.04 + 0.01), 1e-9);
  EXPECT_NEAR(moments(2), 6.0 / 12 * (0.09 + 0.04), 1e-9);
  EXPECT_NEAR(m.bodies()[t].mass, 100.0, 1e-9);
  EXPECT_LT((m.initial_body_state(t).x - Vec3(5.25, -0.25, 0.25)).norm(), 1e-9);
  EXPECT_NEAR(m.bodies()[f].mass, 100.0, 1e-9);
  EXPECT_LT((m.initial_body_state(f).x - Vec3(9.25, 0.25, 0.25)).norm(), 1e-9);
  // the collision hull is mirrored too
  double lowest_x = 1e9;
  for (const Vec3& h : m.shapes()[0].mesh->hull) lowest_x = std::min(lowest_x, h.x());
  EXPECT_NEAR(lowest_x, -0.3, 1e-9);
}

}  // namespace
}  // namespace appell
