// No output of the program replaces a file the run reads (docs/scene-format.md,
// "Outputs"): the scene, and every file it was built from (Scene::source_files: an
// included URDF or MJCF, an MJCF's <include>d files, meshes), under any spelling of the
// path (./, symbolic links).  Each refused run exits 2 before writing anything, names the
// option and the input, and leaves the input's bytes as they were.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "appell/scene.hpp"
#include "cli_util.hpp"

namespace appell {
namespace {

using testing::read_file;
using testing::run_cli;

std::string fresh_dir() {
  const std::string d = ::testing::TempDir() + "appell_inputs_" + std::to_string(getpid()) + "_" +
                        ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::system(("rm -rf '" + d + "' && mkdir -p '" + d + "/meshes'").c_str());
  return d + "/";
}

std::string write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// the unit cube [0, 1]³ as an OBJ (12 outward triangles)
std::string cube_obj() {
  std::string s;
  for (int i = 0; i < 8; ++i)
    s += "v " + std::to_string(i >> 2 & 1) + " " + std::to_string(i >> 1 & 1) + " " +
         std::to_string(i & 1) + "\n";
  const int q[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1},
                       {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
  for (const auto& f : q)
    s += "f " + std::to_string(f[0] + 1) + " " + std::to_string(f[1] + 1) + " " +
         std::to_string(f[2] + 1) + "\nf " + std::to_string(f[0] + 1) + " " +
         std::to_string(f[2] + 1) + " " + std::to_string(f[3] + 1) + "\n";
  return s;
}

// A folder with a scene that includes a URDF pendulum whose link has a mesh collision
// shape, next to an MJCF that includes another file and has a mesh asset.
struct Inputs {
  std::string dir, scene, urdf, mesh, mjcf, mjcf_part, mjcf_mesh;
  std::string scene_text, urdf_text, mesh_text, mjcf_text, part_text;
};

Inputs make_inputs() {
  Inputs in;
  in.dir = fresh_dir();
  in.mesh_text = cube_obj();
  in.mesh = write(in.dir + "meshes/cube.obj", in.mesh_text);
  in.mjcf_mesh = write(in.dir + "meshes/box.obj", in.mesh_text);
  in.urdf_text = R"(<robot name="pendulum">
  <link name="base"/>
  <link name="arm">
    <inertial><origin xyz="0 0 -0.5"/><mass value="1"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><mesh filename="meshes/cube.obj" scale="0.1 0.1 0.1"/></geometry></collision>
  </link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="arm"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>
)";
  in.urdf = write(in.dir + "robot.urdf", in.urdf_text);
  in.scene_text = R"({"include": {"urdf": "robot.urdf", "q": {"hinge": 0.3}},
    "integrator": {"method": "moreau", "dt": 0.01, "duration": 0.02}})";
  in.scene = write(in.dir + "scene.json", in.scene_text);
  in.part_text = R"(<mujoco><worldbody><body name="b" pos="0 0 1">
    <joint name="z" type="slide" axis="0 0 1"/><geom type="mesh" mesh="box"/></body>
  </worldbody></mujoco>
)";
  in.mjcf_part = write(in.dir + "part.xml", in.part_text);
  in.mjcf_text = R"(<mujoco model="m"><option timestep="0.01"/>
  <asset><mesh name="box" file="meshes/box.obj" scale="0.2 0.2 0.2"/></asset>
  <include file="part.xml"/>
</mujoco>
)";
  in.mjcf = write(in.dir + "robot.xml", in.mjcf_text);
  return in;
}

// every input as it was written
void expect_unchanged(const Inputs& in) {
  EXPECT_EQ(read_file(in.scene), in.scene_text);
  EXPECT_EQ(read_file(in.urdf), in.urdf_text);
  EXPECT_EQ(read_file(in.mesh), in.mesh_text);
  EXPECT_EQ(read_file(in.mjcf), in.mjcf_text);
  EXPECT_EQ(read_file(in.mjcf_part), in.part_text);
  EXPECT_EQ(read_file(in.mjcf_mesh), in.mesh_text);
}

bool listed(const std::vector<std::string>& files, const std::string& path) {
  return std::find(files.begin(), files.end(), path) != files.end();
}

TEST(InputFiles, TheSceneListsEveryFileItWasBuiltFrom) {
  const Inputs in = make_inputs();
  const Scene s = load_scene(in.scene);
  ASSERT_EQ(s.source_files.size(), 3u);
  EXPECT_EQ(s.source_files[0], in.scene);
  EXPECT_EQ(s.source_files[1], in.urdf);
  EXPECT_EQ(s.source_files[2], in.mesh);
  const Scene x = load_scene(in.mjcf);
  EXPECT_EQ(x.source_files.front(), in.mjcf);
  EXPECT_TRUE(listed(x.source_files, in.mjcf_part));
  // the mesh asset, by the path the loader opened (relative to the MJCF's folder)
  EXPECT_TRUE(listed(x.source_files, in.dir + "meshes/box.obj"));
  EXPECT_EQ(x.source_files.size(), 3u);
  // a scene given as text has no file of its own: only what it includes
  const Scene t = load_scene_from_string(in.scene_text, in.scene);
  EXPECT_EQ(t.source_files, std::vector<std::string>({in.urdf, in.mesh}));
}

TEST(InputFiles, SimulateWritesOverNoIncludedFile) {
  const Inputs in = make_inputs();
  ASSERT_EQ(::symlink(in.urdf.c_str(), (in.dir + "link.urdf").c_str()), 0);
  const struct {
    std::string option, path, input;
  } cases[] = {
      {"--contacts", in.urdf, in.urdf},
      {"--out", in.dir + "./robot.urdf", in.urdf},
      {"--forces", in.dir + "link.urdf", in.urdf},  // a symbolic link to it
      {"--summary", in.dir + "meshes/../meshes/cube.obj", in.mesh},
  };
  for (const auto& c : cases) {
    const auto r = run_cli("simulate " + in.scene + " --quiet " + c.option + " " + c.path);
    EXPECT_EQ(r.status, 2) << c.option << " " << c.path;
    EXPECT_EQ(r.err.rfind("error: " + c.option + ": '" + c.path + "' is '" + c.input +
                              "', a file the scene reads; it is not overwritten",
                          0),
              0u)
        << r.err;
    EXPECT_EQ(r.out, "");
  }
  expect_unchanged(in);
  // an MJCF run directly: its <include>d file and its mesh asset
  for (const std::string& path : {in.mjcf_part, in.mjcf_mesh}) {
    const auto r = run_cli("simulate " + in.mjcf + " --quiet --duration 0.02 --out " + path);
    EXPECT_EQ(r.status, 2) << path;
    EXPECT_NE(r.err.find("error: --out: '" + path + "' is"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("a file the scene reads"), std::string::npos) << r.err;
  }
  expect_unchanged(in);
  // and an output beside them is written as before
  const auto ok = run_cli("simulate " + in.scene + " --quiet --out " + in.dir + "traj.csv");
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(read_file(in.dir + "traj.csv").rfind("t,", 0), 0u);
}

TEST(InputFiles, SweepAndReportWriteOverNoIncludedFile) {
  const Inputs in = make_inputs();
  auto r = run_cli("sweep " + in.scene + " --quiet --set /include/q/hinge=0.1,0.2 --out " + in.dir +
                   "./meshes/cube.obj");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: --out: '" + in.dir + "./meshes/cube.obj' is '" + in.mesh +
                       "', a file the scene reads; it is not overwritten\n");
  EXPECT_EQ(r.out, "");
  // a URDF swept directly: the URDF is the scene file, its mesh an input
  r = run_cli("sweep " + in.urdf + " --quiet --set /include/q/hinge=0.1,0.2 --out " + in.mesh);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("a file the scene reads"), std::string::npos) << r.err;
  expect_unchanged(in);

  // the report of a run: refused when -o names the URDF (whether or not this build has
  // the report feature, nothing is written)
  r = run_cli("simulate " + in.scene + " --quiet --out " + in.dir + "traj.csv");
  ASSERT_EQ(r.status, 0) << r.err;
  r = run_cli("report " + in.scene + " " + in.dir + "traj.csv -o " + in.urdf);
  EXPECT_EQ(r.status, 2);
  if (r.err.find("no report feature") == std::string::npos) {
    EXPECT_NE(
        r.err.find("error: -o: '" + in.urdf + "' is '" + in.urdf + "', a file the scene reads"),
        std::string::npos)
        << r.err;
  }
  expect_unchanged(in);
}

}  // namespace
}  // namespace appell
