// MJCF import against MuJoCo itself: the same files compiled by mj_loadXML and by appell
// give equal masses, centres, inertias, trees, joint axes and anchors, joint-space mass
// matrices (armature included) and joint accelerations at a random state (contacts off).
// Those tests are built only where MuJoCo is installed (CMakeLists.txt: APPELL_HAVE_MUJOCO);
// the ones before them check the same features against closed forms, everywhere.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/jacobians.hpp>
#include <appell/tree.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "tests/cli_util.hpp"

#if defined(APPELL_HAVE_MUJOCO)
#include <mujoco/mujoco.h>

#include "tests/mujoco_util.hpp"
#endif

namespace appell {
namespace {

using testing::run_cli;
using testing::write_temp;

// An OBJ box [0.1, 0.4] × [−0.1, 0.1] × [0, 0.1] (convex) and an L-shaped prism (not
// convex): the L of [0, 0.4] × [0, 0.1] and [0, 0.1] × [0, 0.3], extruded over z ∈ [0, 0.2]
std::string obj_box() {
  std::string s;
  for (double x : {0.1, 0.4})
    for (double y : {-0.1, 0.1})
      for (double z : {0.0, 0.1})
        s += "v " + std::to_string(x) + " " + std::to_string(y) + " " + std::to_string(z) + "\n";
  // vertex (i, j, k) is 4i + 2j + k + 1; each face two triangles, outward
  const int q[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1},
                       {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
  for (const auto& f : q) {
    s += "f " + std::to_string(f[0] + 1) + " " + std::to_string(f[1] + 1) + " " +
         std::to_string(f[2] + 1) + "\n";
    s += "f " + std::to_string(f[0] + 1) + " " + std::to_string(f[2] + 1) + " " +
         std::to_string(f[3] + 1) + "\n";
  }
  return s;
}
std::string obj_l() {
  const double P[6][2] = {{0, 0}, {0.4, 0}, {0.4, 0.1}, {0.1, 0.1}, {0.1, 0.3}, {0, 0.3}};
  std::string s;
  for (double z : {0.0, 0.2})
    for (const auto& p : P)
      s +=
          "v " + std::to_string(p[0]) + " " + std::to_string(p[1]) + " " + std::to_string(z) + "\n";
  const auto f = [&](int a, int b, int c) {
    s += "f " + std::to_string(a + 1) + " " + std::to_string(b + 1) + " " + std::to_string(c + 1) +
         "\n";
  };
  const int fan[4][3] = {{0, 1, 2}, {0, 2, 3}, {0, 3, 4}, {0, 4, 5}};
  for (const auto& t : fan) f(t[0], t[2], t[1]);              // bottom, facing −z
  for (const auto& t : fan) f(t[0] + 6, t[1] + 6, t[2] + 6);  // top, +z
  for (int i = 0; i < 6; ++i) {
    const int j = (i + 1) % 6;
    f(i, j, j + 6);
    f(i, j + 6, i + 6);
  }
  return s;
}

// the model of an MJCF file written to a temporary folder with the meshes it names
Model load_mjcf(const std::string& xml, const std::string& name) {
  write_temp("box.obj", obj_box());
  write_temp("L.obj", obj_l());
  const std::string path = write_temp(name + ".xml", xml);
  Model m = compile(load_scene(path));
  return m;
}
Scene load_mjcf_scene(const std::string& xml, const std::string& name) {
  write_temp("box.obj", obj_box());
  write_temp("L.obj", obj_l());
  return load_scene(write_temp(name + ".xml", xml));
}
std::string pid_prefix() {
  return std::to_string(getpid()) + "_";
}

// ---- closed forms (every build) ------------------------------------------------------

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

// A planar "free" body (slide x, slide z, hinge y: three joints in one body), default
// classes with inheritance (density, damping, armature), inertia from geoms (capsule, box,
// cylinder, sphere, fromto), a body with two joints at different positions, a spring.
const char* kPlanar = R"(<mujoco model="planar">
  <compiler angle="radian"/>
  <option gravity="0 0 -9.81"/>
  <default>
    <joint damping="0.1" armature="0.05"/>
    <geom density="500"/>
    <default class="heavy">
      <geom density="2000"/>
      <joint armature="0.2" damping="0"/>
    </default>
  </default>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body name="torso" pos="0 0 1">
      <joint name="rootx" type="slide" axis="1 0 0"/>
      <joint name="rootz" type="slide" axis="0 0 1"/>
      <joint name="rooty" type="hinge" axis="0 1 0" pos="0.1 0 0.05"/>
      <geom type="capsule" fromto="-0.3 0 0 0.3 0 0" size="0.05"/>
      <geom type="box" pos="0 0 0.1" size="0.1 0.05 0.04" class="heavy"/>
      <body name="thigh" pos="0.3 0 0">
        <joint name="hip" class="heavy" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.04"/>
        <body name="shin" pos="0 0 -0.4" euler="0.1 0.2 0.3">
          <joint name="knee" axis="0 1 0" pos="0 0 0.02" stiffness="3" springref="0.2"/>
          <joint name="ankle_twist" axis="1 0.2 0" pos="0.01 0 -0.1"/>
          <geom type="cylinder" fromto="0 0 0 0 0.1 -0.3" size="0.03"/>
          <geom type="sphere" pos="0 0 -0.3" size="0.05"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
)";

// A small humanoid-like tree: a free root, ball joints, a shoulder of three hinges, a
// turned <inertial>, armature on hinges and balls by a childclass.
const char* kTree = R"(<mujoco model="tree">
  <compiler autolimits="true"/>
  <option gravity="0.3 -0.2 -9.81"/>
  <default>
    <default class="limb">
      <joint armature="0.01" damping="0.2"/>
      <geom density="800"/>
    </default>
  </default>
  <worldbody>
    <body name="pelvis" pos="0.1 0.2 1.2" quat="0.9 0.1 0.2 0.3">
      <freejoint name="root"/>
      <geom type="box" size="0.15 0.1 0.08"/>
      <body name="chest" pos="0 0 0.3" childclass="limb">
        <joint name="waist" type="ball" pos="0 0 -0.1"/>
        <geom type="capsule" fromto="0 -0.1 0 0 0.1 0" size="0.08"/>
        <body name="head" pos="0 0 0.25">
          <joint name="neck" type="ball" armature="0.002"/>
          <geom type="sphere" size="0.09"/>
        </body>
        <body name="uarm" pos="0 0.2 0" euler="10 20 30">
          <joint name="sh_x" axis="1 0 0"/>
          <joint name="sh_y" axis="0 1 0" pos="0 0.01 0"/>
          <joint name="sh_z" axis="0 0 1"/>
          <geom type="capsule" fromto="0 0 0 0 0.25 -0.1" size="0.04"/>
          <body name="larm" pos="0 0.25 -0.1">
            <joint name="elbow" axis="0 0 1" range="-90 90"/>
            <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.035"/>
          </body>
        </body>
      </body>
      <body name="leg" pos="0 -0.1 -0.1" childclass="limb">
        <joint name="hip_x" axis="1 0 0" armature="0.3"/>
        <joint name="hip_y" axis="0 1 0" pos="0 0 0.02"/>
        <inertial pos="0 0 -0.2" quat="0.8 0.3 -0.2 0.1" mass="3" diaginertia="0.05 0.04 0.03"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.05"/>
      </body>
    </body>
  </worldbody>
</mujoco>
)";

#if defined(APPELL_HAVE_MUJOCO)
// ---- against MuJoCo -------------------------------------------------------------------

using testing::Both;
using testing::v3;

Both load_both(const std::string& xml, const std::string& name) {
  write_temp("box.obj", obj_box());
  write_temp("L.obj", obj_l());
  return testing::load_both_files(write_temp("mjcf_mujoco_" + name + ".xml", xml), mjDSBL_CONTACT);
}

// MuJoCo's joint j by appell's name of it: its own, else joint<j + 1> (unnamed)
std::string appell_joint_name(const mjModel* mj, int j) {
  const char* n = mj_id2name(mj, mjOBJ_JOINT, j);
  return n ? n : "joint" + std::to_string(j + 1);
}
int mujoco_joint(const mjModel* mj, const std::string& name) {
  const int j = mj_name2id(mj, mjOBJ_JOINT, name.c_str());
  if (j >= 0 || name.rfind("joint", 0) != 0) return j;
  const int k = std::atoi(name.c_str() + 5) - 1;
  return k >= 0 && k < mj->njnt && !mj_id2name(mj, mjOBJ_JOINT, k) ? k : -1;
}

int appell_body(const Model& m, const std::string& name) {
  return m.body_index(name);
}
std::shared_ptr<const Joint> appell_joint(const Model& m, const std::string& name) {
  for (const ConstraintPtr& c : m.constraints())
    if (c->name() == name) return std::dynamic_pointer_cast<const Joint>(c);
  return nullptr;
}
Mat3 m3(const mjtNum* p) {
  Mat3 R;
  R << p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8];
  return R;
}
// the appell body a MuJoCo body's joints end on, skipping the massless frames between the
// joints of one body ("BODY/JOINT")
std::string real_parent(const Model& m, int b) {
  const TreeModel& tree = m.tree();
  int p = tree.joints[tree.tree_index[b]].parent_body;
  while (p != kWorld && m.bodies()[p].name.find('/') != std::string::npos)
    p = tree.joints[tree.tree_index[p]].parent_body;
  return p == kWorld ? "world" : m.bodies()[p].name;
}

// Mass properties (world frame, at qpos0), tree and joint frames equal MuJoCo's.
void expect_same_model(const Both& b, double tol = 1e-12) {
  const mjModel* mj = b.mj.get();
  mjData* md = b.md.get();
  mj_forward(mj, md);  // at qpos0: xipos, ximat, xaxis, xanchor
  int compared = 0;
  for (int i = 1; i < mj->nbody; ++i) {
    const std::string name = mj_id2name(mj, mjOBJ_BODY, i);
    SCOPED_TRACE("body " + name);
    const int k = appell_body(b.m, name);
    ASSERT_GE(k, 0);
    const Body& a = b.m.bodies()[k];
    const BodyState s = b.m.initial_body_state(k);
    EXPECT_NEAR(a.mass, mj->body_mass[i], tol * mj->body_mass[i]);
    EXPECT_LT((s.x - v3(md->xipos + 3 * i)).norm(), tol);
    const Mat3 R = m3(md->ximat + 9 * i);
    const Mat3 I_mj = R * v3(mj->body_inertia + 3 * i).asDiagonal() * R.transpose();
    const Mat3 I_ap = s.Q * a.inertia * s.Q.transpose();
    EXPECT_LT((I_ap - I_mj).norm(), tol * (1 + I_mj.norm())) << I_ap << "\n\n" << I_mj;
    EXPECT_EQ(real_parent(b.m, k), mj_id2name(mj, mjOBJ_BODY, mj->body_parentid[i]));
    ++compared;
  }
  EXPECT_GE(compared, 2);
  for (int j = 0; j < mj->njnt; ++j) {
    const std::string name = appell_joint_name(mj, j);
    SCOPED_TRACE("joint " + name);
    const auto jt = appell_joint(b.m, name);
    ASSERT_TRUE(jt);
    // its child is the MuJoCo body, or a frame "BODY/..." of it
    const std::string child = b.m.bodies()[jt->child()].name;
    const std::string body = mj_id2name(mj, mjOBJ_BODY, mj->jnt_bodyid[j]);
    EXPECT_EQ(child.substr(0, child.find('/')), body);
    EXPECT_NEAR(jt->properties().armature, mj->dof_armature[mj->jnt_dofadr[j]], 1e-15);
    const int type = mj->jnt_type[j];
    if (type == mjJNT_FREE) continue;
    // the joint frame in the world at t = 0 (qpos0), from its parent's pose then
    const BodyState P = b.m.initial_body_state(jt->parent());
    if (type == mjJNT_HINGE || type == mjJNT_BALL) {
      const Vec3 anchor = P.x + P.Q * jt->frames().X_P;
      EXPECT_LT((anchor - v3(md->xanchor + 3 * j)).norm(), tol);
    }
    if (type == mjJNT_HINGE || type == mjJNT_SLIDE) {
      const Vec3 axis = P.Q * jt->frames().E_P.col(2);
      EXPECT_LT((axis - v3(md->xaxis + 3 * j)).norm(), tol);
    }
  }
}

// MuJoCo's qpos, qvel as appell's joint state, and T with u_appell = T qvel (ball and
// free angular velocities: MuJoCo's in the child frame, appell's in the parent joint frame)
struct Mapped {
  State s;
  Eigen::MatrixXd T;  // tree nu × MuJoCo nv
};
Mapped map_state(const Both& b) {
  const mjModel* mj = b.mj.get();
  const mjData* md = b.md.get();
  const TreeModel& tree = b.m.tree();
  Mapped out;
  out.s.q = Eigen::VectorXd::Zero(tree.nq);
  out.s.u = Eigen::VectorXd::Zero(tree.nu);
  out.T = Eigen::MatrixXd::Zero(tree.nu, mj->nv);
  int mapped = 0;
  for (const TreeJoint& t : tree.joints) {
    if (t.nu == 0) continue;
    const std::string name = b.m.constraints()[t.constraint]->name();
    const int j = mujoco_joint(mj, name);
    if (j < 0) throw std::runtime_error("no MuJoCo joint " + name);
    const int qa = mj->jnt_qposadr[j], va = mj->jnt_dofadr[j];
    const double* qp = md->qpos + qa;
    Mat3 R = Mat3::Identity();
    int ang = 0, n = 1;  // where the angular velocity starts in the joint's dofs, how many
    if (mj->jnt_type[j] == mjJNT_BALL || mj->jnt_type[j] == mjJNT_FREE) {
      const int qo = mj->jnt_type[j] == mjJNT_FREE ? 3 : 0;
      R = Quat(qp[qo], qp[qo + 1], qp[qo + 2], qp[qo + 3]).normalized().toRotationMatrix();
      ang = qo;
      n = qo + 3;
    }
    for (int k = 0; k < (mj->jnt_type[j] == mjJNT_FREE   ? 7
                         : mj->jnt_type[j] == mjJNT_BALL ? 4
                                                         : 1);
         ++k)
      out.s.q(t.q_offset + k) = qp[k];
    for (int k = 0; k < n; ++k)
      for (int l = 0; l < n; ++l)
        out.T(t.u_offset + k, va + l) =
            (k >= ang && l >= ang) ? R(k - ang, l - ang) : (k == l ? 1.0 : 0.0);
    mapped += n;
  }
  if (mapped != mj->nv) throw std::runtime_error("the joints do not map one to one");
  out.s.u = out.T * Eigen::Map<const Eigen::VectorXd>(md->qvel, mj->nv);
  return out;
}

// At a random state: M (armature included) and u̇ equal MuJoCo's mj_fullM and qacc.
void expect_same_dynamics(Both& b, unsigned seed, double tol = 1e-9) {
  const mjModel* mj = b.mj.get();
  mjData* md = b.md.get();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int j = 0; j < mj->njnt; ++j) {
    double* qp = md->qpos + mj->jnt_qposadr[j];
    const int type = mj->jnt_type[j];
    if (type == mjJNT_HINGE || type == mjJNT_SLIDE) qp[0] = U(rng);
    if (type == mjJNT_BALL || type == mjJNT_FREE) {
      const int qo = type == mjJNT_FREE ? 3 : 0;
      for (int k = 0; k < qo; ++k) qp[k] += 0.3 * U(rng);
      const Quat q = Quat(1 + U(rng), U(rng), U(rng), U(rng)).normalized();
      qp[qo] = q.w();
      qp[qo + 1] = q.x();
      qp[qo + 2] = q.y();
      qp[qo + 3] = q.z();
    }
  }
  for (int k = 0; k < mj->nv; ++k) md->qvel[k] = 2 * U(rng);
  mj_forward(mj, md);
  const Mapped x = map_state(b);

  Eigen::MatrixXd Mmj(mj->nv, mj->nv);
  mj_fullM(mj, Mmj.data(), md->qM);  // symmetric: row or column major alike
  Data d(b.m);
  Eigen::MatrixXd M;
  mass_matrix(b.m, d, x.s, M);
  const Eigen::MatrixXd M_expected = x.T * Mmj * x.T.transpose();
  EXPECT_LT((M - M_expected).norm(), tol * (1 + Mmj.norm())) << M << "\n\n" << M_expected;

  JointForward forward(b.m);
  Eigen::VectorXd udot;
  ASSERT_EQ(forward(x.s, Eigen::VectorXd(), udot), SolveStatus::Ok)
      << forward.data().diagnostics.message;
  const Eigen::VectorXd expected = x.T * Eigen::Map<const Eigen::VectorXd>(md->qacc, mj->nv);
  EXPECT_LT((udot - expected).cwiseAbs().maxCoeff(), tol * (1 + expected.norm()))
      << udot.transpose() << "\n"
      << expected.transpose();
}

TEST(MjcfMujoco, PlanarMultiJointBodyDefaultsArmatureGeomInertia) {
  Both b = load_both(kPlanar, "planar");
  expect_same_model(b);
  EXPECT_FALSE(b.m.joint_space_only().empty());  // massless frames and armature
  for (unsigned seed : {1u, 2u, 3u}) expect_same_dynamics(b, seed);
}

TEST(MjcfMujoco, HumanoidLikeTreeFreeBallHinges) {
  Both b = load_both(kTree, "tree");
  expect_same_model(b);
  for (unsigned seed : {4u, 5u, 6u}) expect_same_dynamics(b, seed);
}

// Armature alone changes the accelerations: the same tree without it differs from MuJoCo's
// with it (the comparison above would not pass by ignoring armature)
TEST(MjcfMujoco, ArmatureMatters) {
  const std::string xml = std::regex_replace(std::string(kPlanar),
                                             std::regex("armature=\"[0-9.]*\""), "armature=\"0\"");
  ASSERT_EQ(xml.find("armature=\"0.2\""), std::string::npos);
  Both with = load_both(kPlanar, "with");
  Both without = load_both(xml, "without");
  EXPECT_TRUE(with.m.joint_space_only().find("massless") != std::string::npos);
  mj_forward(with.mj.get(), with.md.get());
  const Mapped x = map_state(with);
  JointForward f1(with.m), f2(without.m);
  Eigen::VectorXd a1, a2;
  ASSERT_EQ(f1(x.s, Eigen::VectorXd(), a1), SolveStatus::Ok);
  ASSERT_EQ(f2(x.s, Eigen::VectorXd(), a2), SolveStatus::Ok);
  EXPECT_GT((a1 - a2).norm(), 1e-3);
}

// Mesh geoms (a convex box and the L prism, not convex) with exactmeshinertia, and a
// fullinertia: MuJoCo keeps mesh vertices in single precision and finds a full tensor's
// principal axes iteratively (1e-7), hence 1e-6, MuJoCo's printing precision
TEST(MjcfMujoco, MeshInertia) {
  const std::string xml = R"(<mujoco model="meshes">
    <compiler meshdir="." exactmeshinertia="true"/>
    <asset><mesh file=")" +
                          pid_prefix() + R"(box.obj" name="box" scale="1 2 1"/>
           <mesh file=")" +
                          pid_prefix() + R"(L.obj" name="L"/></asset>
    <worldbody>
      <body name="a" pos="0 0 1"><joint name="ja" axis="0 1 0"/>
        <geom type="mesh" mesh="box" density="700" pos="0 0.1 0.5" euler="10 0 90"/>
        <geom type="sphere" size="0.05" pos="0.2 0 0"/>
        <body name="b" pos="0.3 0 0" quat="1 0.2 0 0.1"><joint name="jb" axis="1 0 0"/>
          <geom type="mesh" mesh="L" density="500" quat="0.9 0.1 0.3 0"/></body>
        <body name="c" pos="0 0 -0.3"><joint name="jc" type="ball"/>
          <inertial pos="0 0 -0.2" mass="3" fullinertia="0.05 0.04 0.03 0.001 -0.002 0.003"/>
        </body>
      </body>
    </worldbody></mujoco>)";
  Both b = load_both(xml, "meshes");
  expect_same_model(b, 1e-6);
  expect_same_dynamics(b, 7, 1e-6);
}

// <connect>: MuJoCo's equality rows are soft (solimp at its maximum 0.9999 leaves a
// regularisation of 1e-4 of the constraint's inertia), appell's hard: at rest (qvel = 0,
// where MuJoCo's reference acceleration is zero) the accelerations agree to about 1e-4
TEST(MjcfMujoco, ConnectEquality) {
  const std::string xml = R"(<mujoco model="fourbar"><worldbody>
    <body name="a"><joint name="ja" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03"/>
      <body name="b" pos="0.5 0 0"><joint name="jb" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.03"/></body></body>
    <body name="c" pos="1 0 0"><joint name="jc" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 -0.5 0 -0.5" size="0.03"/></body>
    </worldbody>
    <equality><connect body1="b" body2="c" anchor="0 0 -0.5" solimp="0.9999 0.9999 0.001"/>
    </equality></mujoco>)";
  Both b = load_both(xml, "fourbar");
  expect_same_model(b);
  mj_forward(b.mj.get(), b.md.get());
  const Mapped x = map_state(b);
  JointForward f(b.m);
  Eigen::VectorXd udot;
  ASSERT_EQ(f(x.s, Eigen::VectorXd(), udot), SolveStatus::Ok) << f.data().diagnostics.message;
  const Eigen::VectorXd expected = x.T * Eigen::Map<const Eigen::VectorXd>(b.md->qacc, b.mj->nv);
  EXPECT_GT(expected.norm(), 1.0);
  EXPECT_LT((udot - expected).norm(), 1e-3 * expected.norm()) << udot.transpose() << "\n"
                                                              << expected.transpose();
}

// ---- joint frames, references, names, switches (against MuJoCo) ----------------------

// Ball joints in bodies turned at the reference pose (Cassie's): MuJoCo's ball quaternion
// turns the body in its own frame, so qpos, the keyframe and the accelerations agree only
// when appell's joint frame is the body's, not the world's
const char* kTurnedBalls = R"(<mujoco model="turned_balls">
  <option gravity="0.5 -0.3 -9.81"/>
  <worldbody>
    <body name="base" pos="0 0 1" euler="30 -20 50">
      <joint name="hinge" axis="1 0 0"/>
      <geom type="box" size="0.1 0.2 0.05"/>
      <body name="arm" pos="0.1 0.2 -0.3" quat="0.7 0.2 -0.5 0.3">
        <joint name="shoulder" type="ball" pos="0 0 0.1" armature="0.01"/>
        <geom type="capsule" fromto="0 0 0 0.3 0.1 -0.4" size="0.04"/>
        <body name="hand" pos="0.3 0.1 -0.4" euler="0 90 0">
          <joint name="wrist" type="ball"/>
          <geom type="box" size="0.05 0.1 0.02" pos="0.05 0 0"/>
        </body>
      </body>
    </body>
  </worldbody>
  <keyframe>
    <key name="pose" qpos="0.3  0.9 0.1 -0.3 0.2  0.8 -0.4 0.3 0.1" qvel="0.5  1 -2 0.5  -1 0.3 2"/>
  </keyframe>
</mujoco>
)";

TEST(MjcfMujoco, BallJointsInTurnedBodiesTurnInTheBodyFrame) {
  Both b = load_both(kTurnedBalls, "turned_balls");
  expect_same_model(b);
  for (unsigned seed : {11u, 12u, 13u}) expect_same_dynamics(b, seed);
  // the keyframe: appell's initial state is MuJoCo's mj_resetDataKeyframe
  const std::string xml = write_temp("mjcf_mujoco_turned_balls.xml", kTurnedBalls);
  const std::string scene = write_temp(
      "turned_balls_key.json", R"({"include": {"mjcf": ")" + xml + R"(", "keyframe": "pose"}})");
  Both k = testing::load_both_files(xml, mjDSBL_CONTACT, scene);
  mj_resetDataKeyframe(k.mj.get(), k.md.get(), mj_name2id(k.mj.get(), mjOBJ_KEY, "pose"));
  mj_forward(k.mj.get(), k.md.get());
  const Mapped x = map_state(k);
  const State& s = k.m.initial_state();
  EXPECT_LT((s.q - x.s.q).cwiseAbs().maxCoeff(), 1e-12) << s.q.transpose() << "\n"
                                                        << x.s.q.transpose();
  EXPECT_LT((s.u - x.s.u).cwiseAbs().maxCoeff(), 1e-12);
  // the bodies where MuJoCo puts them at the keyframe
  for (const char* name : {"arm", "hand"}) {
    const int i = mj_name2id(k.mj.get(), mjOBJ_BODY, name);
    EXPECT_LT((k.m.initial_body_state(k.m.body_index(name)).x - v3(k.md->xipos + 3 * i)).norm(),
              1e-12)
        << name;
  }
  JointForward f(k.m);
  Eigen::VectorXd udot;
  ASSERT_EQ(f(s, Eigen::VectorXd(), udot), SolveStatus::Ok);
  const Eigen::VectorXd expected = x.T * Eigen::Map<const Eigen::VectorXd>(k.md->qacc, k.mj->nv);
  EXPECT_LT((udot - expected).cwiseAbs().maxCoeff(), 1e-9 * (1 + expected.norm()))
      << udot.transpose() << "\n"
      << expected.transpose();
}

// A joint's ref is MuJoCo's qpos0: the body as written sits at q = ref, appell's q is
// MuJoCo's qpos, and the range, springref, keyframe, a joint equality's polynomial (of
// qpos − qpos0) and a fixed tendon's rest length (its length at qpos0) are in those
// coordinates.  Unnamed joints are joint<id + 1> (welded bodies not counted); a site may
// share a body's name; a fromto box takes one size.  (A fixed tendon's springlength is
// given: MuJoCo 2's default is 0, MuJoCo 3's and appell's the length at qpos0.)
const char* kRefs = R"(<mujoco model="refs">
  <compiler autolimits="true"/>
  <option gravity="0.2 0 -9.81"/>
  <worldbody>
    <body name="welded" pos="0 0.5 0"><geom type="sphere" size="0.1"/></body>
    <body name="a" pos="0 0 1" euler="10 20 30">
      <joint type="hinge" axis="0 1 0" ref="30" range="-20 80" stiffness="3" springref="10"/>
      <geom type="box" fromto="0 0 0 0.4 0 -0.2" size="0.05"/>
      <site name="b"/>
      <body name="b" pos="0.4 0 -0.2">
        <joint name="slider" type="slide" axis="1 0.5 0" ref="0.2" range="0 0.5" stiffness="5"/>
        <joint type="hinge" axis="0 0 1" pos="0.1 0 0" ref="-45"/>
        <geom type="capsule" fromto="0 0 0 0 0.2 -0.3" size="0.04"/>
        <body name="c" pos="0 0.2 -0.3">
          <joint name="follower" axis="1 0 0" ref="15"/>
          <geom type="sphere" size="0.06" pos="0.1 0 0"/>
        </body>
      </body>
    </body>
    <body name="d" pos="1 0 1"><joint name="lead" axis="0 1 0" ref="20"/>
      <geom type="sphere" size="0.05" pos="0.2 0 0"/></body>
  </worldbody>
  <tendon><fixed name="t" stiffness="4" springlength="0.3"><joint joint="slider" coef="2"/>
    <joint joint="follower" coef="0.5"/></fixed></tendon>
  <equality><joint joint1="follower" joint2="lead" polycoef="0 0.5 0 0 0"/></equality>
  <keyframe><key name="k" qpos="0.7 0.3 -0.5 0.45 0.1"/></keyframe>
</mujoco>
)";

TEST(MjcfMujoco, JointRefIsQpos0) {
  const std::string xml = write_temp("mjcf_mujoco_refs.xml", kRefs);
  // equalities off in MuJoCo, and not read by appell: the smooth dynamics compared
  const std::string free_scene =
      write_temp("refs_free.json", R"({"include": {"mjcf": ")" + xml + R"("},
        "disable": ["equality"]})");
  Both b =
      testing::load_both_files(xml, mjDSBL_CONTACT | mjDSBL_EQUALITY | mjDSBL_LIMIT, free_scene);
  expect_same_model(b);
  const mjModel* mj = b.mj.get();
  for (int j = 0; j < mj->njnt; ++j) {
    // names: MuJoCo's, else joint<id + 1>
    const std::string name = appell_joint_name(mj, j);
    SCOPED_TRACE(name);
    const auto jt = appell_joint(b.m, name);
    ASSERT_TRUE(jt);
    // the start (qpos0) and the limits, in MuJoCo's coordinates
    const TreeJoint& t = b.m.tree().joints[b.m.tree().tree_index[jt->child()]];
    EXPECT_NEAR(b.m.initial_state().q(t.q_offset), mj->qpos0[mj->jnt_qposadr[j]], 1e-15);
    EXPECT_EQ(jt->properties().limited, mj->jnt_limited[j] != 0);
    if (mj->jnt_limited[j]) {
      EXPECT_NEAR(jt->properties().lower, mj->jnt_range[2 * j], 1e-15);
      EXPECT_NEAR(jt->properties().upper, mj->jnt_range[2 * j + 1], 1e-15);
    }
  }
  ASSERT_EQ(mj->njnt, 5);
  EXPECT_EQ(mj_id2name(mj, mjOBJ_JOINT, 0), nullptr);  // unnamed: appell's joint1 above
  for (unsigned seed : {21u, 22u, 23u}) expect_same_dynamics(b, seed);
  // the springs act at these states (a comparison without them would not pass)
  EXPECT_GT(Eigen::Map<const Eigen::VectorXd>(b.md->qfrc_passive, mj->nv).norm(), 0.5);

  // the keyframe: MuJoCo's qpos is appell's q
  const std::string key_scene =
      write_temp("refs_key.json", R"({"include": {"mjcf": ")" + xml + R"(", "keyframe": "k"},
        "disable": ["equality"]})");
  Both k =
      testing::load_both_files(xml, mjDSBL_CONTACT | mjDSBL_EQUALITY | mjDSBL_LIMIT, key_scene);
  mj_resetDataKeyframe(k.mj.get(), k.md.get(), 0);
  mj_forward(k.mj.get(), k.md.get());
  const Mapped x = map_state(k);
  EXPECT_LT((k.m.initial_state().q - x.s.q).cwiseAbs().maxCoeff(), 1e-12);
  JointForward f(k.m);
  Eigen::VectorXd udot;
  ASSERT_EQ(f(k.m.initial_state(), Eigen::VectorXd(), udot), SolveStatus::Ok);
  const Eigen::VectorXd expected = x.T * Eigen::Map<const Eigen::VectorXd>(k.md->qacc, k.mj->nv);
  EXPECT_LT((udot - expected).cwiseAbs().maxCoeff(), 1e-9 * (1 + expected.norm()));

  // the joint equality: where MuJoCo's residual of it is zero (the follower's qpos found by
  // MuJoCo, the residual being linear in it with slope 1), appell's mimic row holds
  std::string shifted = kRefs;
  shifted.replace(shifted.find("polycoef=\"0 0.5"), 15, "polycoef=\"0.1 0.5");
  const std::string xml_c0 = write_temp("mjcf_mujoco_refs_c0.xml", shifted);
  Both e = testing::load_both_files(xml_c0, mjDSBL_CONTACT);
  const int follow = mj_name2id(e.mj.get(), mjOBJ_JOINT, "follower");
  const int lead = mj_name2id(e.mj.get(), mjOBJ_JOINT, "lead");
  for (double q2 : {-0.4, 0.1, 0.9}) {
    mj_resetData(e.mj.get(), e.md.get());
    e.md->qpos[e.mj->jnt_qposadr[lead]] = q2;
    mj_forward(e.mj.get(), e.md.get());
    double q1 = NAN;
    for (int r = 0; r < e.md->nefc; ++r)
      if (e.md->efc_type[r] == mjCNSTR_EQUALITY)
        q1 = e.md->qpos[e.mj->jnt_qposadr[follow]] - e.md->efc_pos[r];
    ASSERT_TRUE(std::isfinite(q1));
    // the scene loads only where its joints satisfy the mimic (to 1e-6): at MuJoCo's q1,
    // and not 1e-4 away from it
    for (const double dq : {0.0, 1e-4}) {
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", q1 + dq);
      const std::string path =
          write_temp("refs_eq.json", R"({"include": {"mjcf": ")" + xml_c0 + R"(", "q": {"lead": )" +
                                         std::to_string(q2) + R"(, "follower": )" + text + "}}}");
      const std::string error = testing::load_error(path);
      if (dq == 0)
        EXPECT_EQ(error, "") << q2;
      else
        EXPECT_NE(error.find("'follower_mimic' is violated"), std::string::npos) << error;
    }
  }
}

// MuJoCo's <option><flag>: passive forces, actuators and equalities switched off in the
// MJCF, or by the scene's "disable" over an MJCF that leaves them on; either way the
// accelerations are MuJoCo's with the same flags
const char* kSwitches = R"(<mujoco model="switches">
  <option gravity="0 0 -9.81">%FLAG%</option>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="j1" axis="0 1 0" stiffness="20" damping="2"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.04"/>
      <body name="b" pos="0.4 0 0">
        <joint name="j2" axis="0 1 0" damping="1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body name="c" pos="0.3 0 0"><joint name="j3" axis="0 1 0"/>
          <geom type="sphere" size="0.05"/></body>
      </body>
    </body>
  </worldbody>
  <actuator><position joint="j2" kp="30"/><motor joint="j1" gear="2"/></actuator>
  <tendon><fixed name="t" damping="3"><joint joint="j1" coef="1"/><joint joint="j2" coef="-1"/></fixed></tendon>
  <equality><joint joint1="j3" joint2="j2" polycoef="0 1 0 0 0"/></equality>
</mujoco>
)";

TEST(MjcfMujoco, FlagsSwitchOffPassiveActuationEquality) {
  const std::string base = kSwitches;
  const auto with_flag = [&](const std::string& flag) {
    std::string x = base;
    x.replace(x.find("%FLAG%"), 6, flag);
    return x;
  };
  const int off = mjDSBL_PASSIVE | mjDSBL_ACTUATION | mjDSBL_EQUALITY;
  // in the MJCF
  Both in_file = load_both(
      with_flag(R"(<flag passive="disable" actuation="disable" equality="disable"/>)"), "flags");
  EXPECT_EQ(in_file.mj->opt.disableflags & off, off);
  EXPECT_TRUE(in_file.m.forces().empty());
  for (unsigned seed : {31u, 32u}) expect_same_dynamics(in_file, seed);
  // by the scene, over a file that leaves them on
  const std::string xml = write_temp("mjcf_mujoco_switches.xml", with_flag(""));
  const std::string scene = write_temp("switches.json", R"({"include": {"mjcf": ")" + xml + R"("},
        "disable": ["passive", "actuation", "equality"]})");
  Both by_scene = testing::load_both_files(xml, mjDSBL_CONTACT | off, scene);
  for (unsigned seed : {33u, 34u}) expect_same_dynamics(by_scene, seed);
  // each switch alone, against MuJoCo's (equality stays off: MuJoCo's is soft)
  for (const char* one : {"passive", "actuation"}) {
    SCOPED_TRACE(one);
    const std::string s1 = write_temp("switch_one.json", R"({"include": {"mjcf": ")" + xml + R"("},
          "disable": ["equality", ")" + std::string(one) + R"("]})");
    const int flag = std::string(one) == "passive" ? mjDSBL_PASSIVE : mjDSBL_ACTUATION;
    Both b1 = testing::load_both_files(xml, mjDSBL_CONTACT | mjDSBL_EQUALITY | flag, s1);
    expect_same_dynamics(b1, 35u);
    // and the other one is on: it changes the accelerations
    const std::string s0 = write_temp(
        "switch_none.json", R"({"include": {"mjcf": ")" + xml + R"("}, "disable": ["equality"]})");
    Both b0 = testing::load_both_files(xml, mjDSBL_CONTACT | mjDSBL_EQUALITY, s0);
    mj_forward(b0.mj.get(), b0.md.get());
    JointForward f0(b0.m), f1(b1.m);
    Eigen::VectorXd a0, a1;
    State st = map_state(b0).s;
    st.u.setConstant(0.5);
    st.q.setConstant(0.3);
    ASSERT_EQ(f0(st, Eigen::VectorXd(), a0), SolveStatus::Ok);
    ASSERT_EQ(f1(st, Eigen::VectorXd(), a1), SolveStatus::Ok);
    EXPECT_GT((a0 - a1).norm(), 1e-2);
  }
}

#endif  // APPELL_HAVE_MUJOCO

}  // namespace
}  // namespace appell
