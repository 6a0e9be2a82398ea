// MJCF import against closed forms, in every build: several joints in one body with
// armature, a JSON scene's armature, inertia from mesh geoms and the errors of a mesh, and
// connect/weld/exclude equalities (mjcf_mujoco_test.cpp checks the same against MuJoCo).
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/jacobians.hpp>
#include <appell/tree.hpp>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cli_util.hpp"
#include "tests/mjcf_files.hpp"

namespace appell {
namespace {

using testing::load_mjcf;
using testing::load_mjcf_scene;
using testing::pid_prefix;
using testing::run_cli;
using testing::write_temp;

// A planar free body (slide x, slide z, hinge y through its centre of mass), armature on
// every joint: each slide accelerates by its share of gravity over m + a, the hinge not at
// all, whatever the velocities (the centre is on the hinge axis: no coupling)
TEST(MjcfJoints, SeveralJointsInOneBodyWithArmature) {
  const std::string xml = R"(<mujoco>
    <option gravity="0 0 -10"/>
    <worldbody><body name="b" pos="0.3 0 1" euler="0 30 0">
      <joint name="x" type="slide" axis="1 0 0" armature="0.5"/>
      <joint name="z" type="slide" axis="0 0 1" armature="2"/>
      <joint name="r" axis="0 1 0" pos="0.1 0 0" armature="0.25"/>
      <inertial pos="0.1 0 0" mass="3" diaginertia="0.1 0.2 0.3"/>
    </body></worldbody></mujoco>)";
  const Model m = load_mjcf(xml, "planar_closed");
  EXPECT_NE(m.joint_space_only().find("massless frame"), std::string::npos);
  const TreeModel& tree = m.tree();
  ASSERT_EQ(tree.nu, 3);
  State s = m.initial_state();
  s.u << 0.7, -1.1, 2.3;
  JointForward f(m);
  Eigen::VectorXd udot;
  ASSERT_EQ(f(s, Eigen::VectorXd(), udot), SolveStatus::Ok) << f.data().diagnostics.message;
  // u in the order of the joints (x, z, r: a chain); the slides are the body's axes,
  // turned 30° about y: gravity along them m g sin 30° and −m g cos 30°
  const double deg30 = 3.14159265358979323846 / 6;
  EXPECT_NEAR(udot(0), 3 * 10 * std::sin(deg30) / (3 + 0.5), 1e-12);
  EXPECT_NEAR(udot(1), -3 * 10 * std::cos(deg30) / (3 + 2.0), 1e-12);
  EXPECT_NEAR(udot(2), 0.0, 1e-12);
  // the mass matrix: diag(m + a_x, m + a_z, I_yy + a_r)
  Data d(m);
  Eigen::MatrixXd M;
  mass_matrix(m, d, s, M);
  Eigen::Vector3d diag(3.5, 5, 0.2 + 0.25);
  EXPECT_LT((M - Eigen::MatrixXd(diag.asDiagonal())).norm(), 1e-12) << M;
  // the kinetic energy counts the rotors: ½ uᵀ M u with that M
  EXPECT_NEAR(kinetic_energy(m, d), 0.5 * s.u.dot(diag.asDiagonal() * s.u), 1e-12);
  // inverse dynamics gives back the torques of those accelerations: gravity on z alone
  Eigen::VectorXd tau;
  inverse_dynamics(m, d, s, udot, tau);
  EXPECT_LT(tau.norm(), 1e-12);
}

// The maximal formulations refuse a massless frame (and armature): eval exits 3 saying
// why, simulate exits 2; auto picks the recursion
TEST(MjcfJoints, MaximalFormulationsRefuse) {
  const std::string path = write_temp("two_joints.xml", R"(<mujoco><worldbody>
    <body name="b" pos="0 0 1"><joint name="x" type="slide" axis="1 0 0"/>
      <joint name="r" axis="0 1 0"/><geom type="sphere" size="0.1"/></body>
    </worldbody></mujoco>)");
  const auto ok = run_cli("eval " + path);
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("\"recursive\""), std::string::npos) << ok.out;
  const auto pinv = run_cli("eval --formulation pinv " + path);
  EXPECT_EQ(pinv.status, 3);
  EXPECT_NE(pinv.err.find("the pinv formulation cannot evaluate this model: body 'b/x' is a "
                          "massless frame"),
            std::string::npos)
      << pinv.err;
  const std::string out = ::testing::TempDir() + pid_prefix() + "never.csv";
  const auto sim = run_cli("simulate --formulation sparse --out " + out + " " + path);
  EXPECT_EQ(sim.status, 2);
  EXPECT_NE(sim.err.find("sparse formulation cannot evaluate"), std::string::npos) << sim.err;
  EXPECT_FALSE(std::ifstream(out).good());
}

TEST(MjcfJoints, FreeJointMustBeAlone) {
  const std::string path = write_temp("free_and_hinge.xml", R"(<mujoco><worldbody>
    <body name="b"><freejoint/>
      <joint name="r" axis="0 1 0"/><geom type="sphere" size="0.1"/></body>
    </worldbody></mujoco>)");
  const auto r = run_cli("check " + path);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("free_and_hinge.xml:2: /mujoco/worldbody/body/freejoint: a free joint "
                       "must be the body's only joint"),
            std::string::npos)
      << r.err;
}

// A pendulum in a JSON scene with "armature": θ̈ = −m g l sin θ / (m l² + I + a)
TEST(JointArmature, JsonScenePendulum) {
  const double m = 2, l = 0.5, I = 0.01, a = 0.3, g = 9.81, th = 0.4;
  const std::string scene = R"({"gravity": [0, 0, -9.81],
    "bodies": [{"name": "p", "mass": 2, "com": [0, 0, -0.5],
                "inertia": {"principal": [0.01, 0.01, 0.01]}}],
    "constraints": [{"name": "hinge", "type": "revolute", "bodies": ["world", "p"],
                     "origin": {"xyz": [0, 0, 0]}, "axis": [0, 1, 0], "q": 0.4,
                     "armature": 0.3}]})";
  const Scene sc = load_scene_from_string(scene, "pendulum.json");
  const Model model = compile(sc);
  JointForward f(model);
  Eigen::VectorXd udot;
  ASSERT_EQ(f(model.initial_state(), Eigen::VectorXd(), udot), SolveStatus::Ok);
  // about +y, gravity −z, the centre at −l z rotated by θ: torque −m g l sin θ
  EXPECT_NEAR(udot(0), -m * g * l * std::sin(th) / (m * l * l + I + a), 1e-12);
  Data d(model);
  EXPECT_EQ(forward(model, d, Formulation::GibbsAppell), SolveStatus::NotFinite);
  EXPECT_NE(d.diagnostics.message.find("joint 'hinge' has an armature"), std::string::npos);
  // a negative armature is refused where it is written
  std::string bad = scene;
  bad.replace(bad.find("0.3"), 3, "-1");
  try {
    load_scene_from_string(bad, "pendulum.json");
    ADD_FAILURE() << "a negative armature loaded";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("/constraints/0/armature"), std::string::npos) << e.what();
  }
}

// Mesh geoms: mass and inertia of the solid the mesh bounds (exact, convex or not),
// against the closed forms of a box and of the L prism (to the files' float precision)
TEST(MjcfMeshes, InertiaFromMeshGeoms) {
  const std::string xml = R"(<mujoco>
    <compiler meshdir="." exactmeshinertia="true"/>
    <asset><mesh file=")" +
                          pid_prefix() + R"(box.obj" name="box"/>
           <mesh file=")" +
                          pid_prefix() + R"(L.obj" name="L" scale="1 1 2"/></asset>
    <worldbody>
      <body name="a" pos="0 0 1"><joint axis="0 1 0"/>
        <geom type="mesh" mesh="box" density="1000" pos="0 0 0.5" euler="0 0 90"/></body>
      <body name="b" pos="2 0 1"><joint axis="0 1 0"/>
        <geom type="mesh" mesh="L" density="500"/></body>
    </worldbody></mujoco>)";
  const Scene sc = load_mjcf_scene(xml, "meshes");
  const Model m = compile(sc);
  // assimp reads the files' vertices in single precision: 1e-7 of the sizes
  const double tol = 1e-6;
  const Body& a = m.bodies()[m.body_index("a")];
  // box 0.3 × 0.2 × 0.1 of density 1000, centre (0.25, 0, 0.05) in the mesh, turned 90° about z
  EXPECT_NEAR(a.mass, 6.0, 6 * tol);
  const BodyState sa = m.initial_body_state(m.body_index("a"));
  EXPECT_LT((sa.x - Vec3(0, 0.25, 1.55)).norm(), tol) << sa.x.transpose();
  const Mat3 Ia = sa.Q * a.inertia * sa.Q.transpose();
  const Vec3 box_moments(6.0 / 12 * (0.04 + 0.01), 6.0 / 12 * (0.09 + 0.01),
                         6.0 / 12 * (0.09 + 0.04));
  EXPECT_LT(
      (Ia - Vec3(box_moments.y(), box_moments.x(), box_moments.z()).asDiagonal().toDenseMatrix())
          .norm(),
      tol)
      << Ia;
  // the L, z scaled by 2: area 0.06, height 0.4, mass 500 · 0.024; centre of the two boxes
  const Body& b = m.bodies()[m.body_index("b")];
  EXPECT_NEAR(b.mass, 12.0, 12 * tol);
  const BodyState sb = m.initial_body_state(m.body_index("b"));
  // pieces: 0.4 × 0.1 (centre 0.2, 0.05), 0.1 × 0.2 (centre 0.05, 0.2), area weights 2 : 1
  const Vec3 c((2 * 0.2 + 0.05) / 3, (2 * 0.05 + 0.2) / 3, 0.2);
  EXPECT_LT((sb.x - (Vec3(2, 0, 1) + c)).norm(), tol) << sb.x.transpose();
  // Izz about the centre: the two boxes' own moments plus their shifts
  const double m1 = 8, m2 = 4;
  const double Izz =
      m1 / 12 * (0.16 + 0.01) + m1 * (Eigen::Vector2d(0.2, 0.05) - c.head<2>()).squaredNorm() +
      m2 / 12 * (0.01 + 0.04) + m2 * (Eigen::Vector2d(0.05, 0.2) - c.head<2>()).squaredNorm();
  const Mat3 Ib = sb.Q * b.inertia * sb.Q.transpose();
  EXPECT_NEAR(Ib(2, 2), Izz, tol);
  // the shapes are the meshes (convex hulls for contact), at the geoms' poses
  int meshes = 0;
  for (const Shape& s : m.shapes()) meshes += s.type == ShapeType::ConvexMesh ? 1 : 0;
  EXPECT_EQ(meshes, 2);
}

TEST(MjcfMeshes, OpenMeshAndMissingFileAreLocated) {
  write_temp("open.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  const std::string open = write_temp("open_mesh.xml", R"(<mujoco>
    <asset><mesh file=")" + pid_prefix() + R"(open.obj"/></asset>
    <worldbody><body name="a"><joint axis="0 1 0"/>
      <geom type="mesh" mesh=")" + pid_prefix() + R"(open"/></body></worldbody></mujoco>)");
  const auto r = run_cli("check " + open);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("open_mesh.xml:4: /mujoco/worldbody/body/geom: the mesh"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("bounds no volume"), std::string::npos) << r.err;
  const std::string missing = write_temp("missing_mesh.xml", R"(<mujoco>
    <asset><mesh name="m" file="nowhere.stl"/></asset>
    <worldbody><body name="a"><joint axis="0 1 0"/>
      <geom type="mesh" mesh="m"/></body></worldbody></mujoco>)");
  const auto r2 = run_cli("check " + missing);
  EXPECT_EQ(r2.status, 2);
  EXPECT_NE(r2.err.find("missing_mesh.xml:2: /mujoco/asset/mesh: cannot read the mesh"),
            std::string::npos)
      << r2.err;
}

// <equality connect> and <weld> become loop joints (spherical, fixed) at qpos0; exclude of
// a body and its parent is what appell does already; other pairs are warned
TEST(MjcfEquality, ConnectWeldExclude) {
  const std::string xml = R"(<mujoco><worldbody>
    <body name="a"><joint name="ja" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03"/>
      <body name="b" pos="0.5 0 0"><joint name="jb" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.03"/></body></body>
    <body name="c" pos="1 0 0"><joint name="jc" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 -0.5 0 -0.5" size="0.03"/></body>
    <body name="d" pos="3 0 0"><joint name="jd" axis="0 1 0"/>
      <geom type="sphere" size="0.1"/></body>
    </worldbody>
    <equality><connect name="loop" body1="b" body2="c" anchor="0 0 -0.5"/>
      <weld body1="d"/></equality>
    <contact><exclude body1="a" body2="b"/><exclude body1="a" body2="c"/></contact>
    </mujoco>)";
  const Scene sc = load_mjcf_scene(xml, "loops");
  const Model m = compile(sc);
  std::shared_ptr<const Joint> loop, weld;
  for (const ConstraintPtr& c : m.constraints()) {
    if (c->name() == "loop") loop = std::dynamic_pointer_cast<const Joint>(c);
    if (c->name() == "weld2") weld = std::dynamic_pointer_cast<const Joint>(c);
  }
  ASSERT_TRUE(loop && weld);
  EXPECT_STREQ(loop->joint_type().name(), "spherical");
  EXPECT_LT((loop->anchor() - Vec3(0.5, 0, -0.5)).norm(), 1e-15);
  EXPECT_STREQ(weld->joint_type().name(), "fixed");
  // the four-bar moves with one degree of freedom; d is held
  Data d(m);
  ASSERT_EQ(forward(m, d, Formulation::Pinv), SolveStatus::Ok) << d.diagnostics.message;
  EXPECT_EQ(m.nu() - d.diagnostics.rank, 1);  // the four-bar turns, d is held
  int excl = 0;
  for (const std::string& w : sc.warnings) excl += w.find("exclusion") != std::string::npos;
  EXPECT_EQ(excl, 1);  // a–c, not a–b
}

}  // namespace
}  // namespace appell
