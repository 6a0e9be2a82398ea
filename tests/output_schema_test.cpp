// The one description of traj.csv's and forces.csv's columns (appell/output_schema.hpp):
// the headers `appell simulate` writes are its names, for every kind of scene; its layout
// is the one the README states (checked against a header written by hand); and the report
// reads each body's pose from that body's columns when particles and rigid bodies
// alternate (against the closed form of free motion).
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/lagrangian_scene.hpp>
#include <appell/output_schema.hpp>
#include <appell/rigid_quasi_velocities.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_util.hpp"

namespace {

using appell::testing::CliResult;
using appell::testing::read_file;
using appell::testing::run_cli;
using appell::testing::write_temp;

const std::string kExamples = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/";

// the first line of a file, with its '\n'
std::string first_line(const std::string& path) {
  const std::string text = read_file(path);
  return text.substr(0, text.find('\n') + 1);
}

// the header simulate writes to --out (and --forces, when `forces` is given) for a scene
std::string written_header(const std::string& scene, const std::string& name,
                           std::string* forces = nullptr) {
  const std::string traj = write_temp(name + "_traj.csv", "");
  const std::string f = write_temp(name + "_forces.csv", "");
  const CliResult r = run_cli("simulate " + scene + " --duration 0.05 --quiet --out " + traj +
                              (forces ? " --forces " + f : std::string()));
  EXPECT_EQ(r.status, 0) << scene << ": " << r.err;
  if (forces) *forces = first_line(f);
  return first_line(traj);
}

std::vector<std::string> names_of(const std::vector<appell::LagrangianRow>& rows) {
  std::vector<std::string> out;
  for (const appell::LagrangianRow& r : rows) out.push_back(r.name);
  return out;
}

TEST(OutputSchema, HeadersWrittenAreTheSchemasNames) {
  // rigid bodies, a particle, and a joint-space robot with actuated joints (forces.csv too)
  for (const char* name :
       {"heavy_top.json", "lewis_particle.json", "robots/two_link_arm_joints.json",
        "joint_actuators.json", "limits_pendulum.json"}) {
    const std::string scene = kExamples + name;
    const appell::Model m = appell::compile(appell::load_scene(scene));
    std::string forces;
    EXPECT_EQ(written_header(scene, "schema", &forces), appell::traj_schema(m).header()) << name;
    EXPECT_EQ(forces, appell::forces_schema(m).header()) << name;
  }
  // a Lagrangian system: its coordinates, their rates, its quasi-velocities
  {
    const std::string scene = kExamples + "lagrangian/spherical_pendulum.json";
    const appell::LagrangianSystem s = appell::load_lagrangian_scene(scene).system;
    const std::string header = written_header(scene, "schema_lagrangian");
    EXPECT_EQ(header,
              appell::nu_traj_schema(s.coordinates, s.coordinates, names_of(s.quasi_velocities))
                  .header());
    EXPECT_EQ(header.rfind("t,q.th,q.ph,qd.th,qd.ph,nu.", 0), 0u) << header;
  }
  // a scene of bodies in its user's quasi-velocities: the tree's q and u, then ν
  {
    const std::string scene = kExamples + "quasi_velocities/rolling_disk.json";
    const appell::RigidNuSystem s = appell::load_rigid_nu_scene(scene).system;
    std::vector<std::string> nu;
    for (const appell::SceneQuasiVelocity& q : s.quasi_velocities) nu.push_back(q.name);
    EXPECT_EQ(written_header(scene, "schema_rigid_nu"),
              appell::nu_traj_schema(s.q_names, s.u_names, nu).header());
  }
}

// a particle, a rigid body and a particle, free of gravity and of each other: x = x0 + v t,
// and the body turns about its principal axis z, which is the world's: θ = 0.4 + 0.7 t
const char* kMixed = R"({
  "name": "mixed",
  "gravity": [0, 0, 0],
  "bodies": [
    {"name": "p", "type": "particle", "mass": 1, "position": [1, 0, 0], "velocity": [0, 1, 0]},
    {"name": "r", "mass": 2, "inertia": {"principal": [1, 2, 3]}, "position": [0, 0, 1],
     "orientation": {"axis_angle": [0, 0, 1, 0.4]}, "velocity": [0.3, 0, 0],
     "angular_velocity": [0, 0, 0.7]},
    {"name": "s", "type": "particle", "mass": 1, "position": [0, 2, 0], "velocity": [0, 0, -0.5]}
  ],
  "integrator": {"method": "rk4", "dt": 0.01, "duration": 0.5}
})";

TEST(OutputSchema, LayoutIsTheDocumentedOne) {
  const appell::Model m = appell::load_model_from_string(kMixed, "mixed.json");
  EXPECT_EQ(appell::traj_schema(m).header(),
            "t,p.x,p.y,p.z,p.vx,p.vy,p.vz,"
            "r.x,r.y,r.z,r.qw,r.qx,r.qy,r.qz,r.vx,r.vy,r.vz,r.wx,r.wy,r.wz,"
            "s.x,s.y,s.z,s.vx,s.vy,s.vz,energy,violation_position,violation_velocity\n");
  // the groups say what each column is: the rigid body's quaternion follows its position
  const appell::OutputSchema s = appell::traj_schema(m);
  const appell::ColumnGroup* q = s.find(appell::Quantity::Orientation, 1);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(s.names()[q->first], "r.qw");
  EXPECT_EQ(q->width, 4);
  EXPECT_EQ(s.find(appell::Quantity::Orientation, 0), nullptr);  // a particle has none
  EXPECT_EQ(s.find(appell::Quantity::Velocity, 2)->first, s.find("s.vx"));
}

TEST(OutputSchema, ReportReadsEachBodysColumnsWhenParticlesAndRigidBodiesMix) {
  REQUIRE_REPORT();
  const std::string scene = write_temp("mixed.json", kMixed);
  const std::string traj = write_temp("mixed_traj.csv", "");
  const std::string html = write_temp("mixed.html", "");
  ASSERT_EQ(run_cli("simulate " + scene + " --quiet --out " + traj).status, 0);
  const CliResult r = run_cli("report " + scene + " " + traj + " -o " + html);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string page = read_file(html);
  const std::string open = "<script type=\"application/json\" id=\"appell-data\">";
  const size_t a = page.find(open), b = page.find("</script>", a);
  ASSERT_NE(a, std::string::npos);
  const nlohmann::json series =
      nlohmann::json::parse(page.substr(a + open.size(), b - a - open.size()))["series"];
  const std::vector<double> t = series["t"];
  ASSERT_EQ(t.size(), 51u);
  // per body, per sample: x y z qw qx qy qz (the page keeps 6 digits of a quaternion)
  const nlohmann::json& pose = series["pose"];
  for (size_t k = 0; k < t.size(); ++k) {
    const double tk = t[k], half = 0.5 * (0.4 + 0.7 * tk);
    const double expected[3][7] = {{1, tk, 0, 1, 0, 0, 0},
                                   {0.3 * tk, 0, 1, std::cos(half), 0, 0, std::sin(half)},
                                   {0, 2, -0.5 * tk, 1, 0, 0, 0}};
    for (int body = 0; body < 3; ++body)
      for (int c = 0; c < 7; ++c)
        EXPECT_NEAR(pose[body][7 * k + c].get<double>(), expected[body][c], 1e-6)
            << "body " << body << ", entry " << c << ", t = " << tk;
  }
}

}  // namespace
