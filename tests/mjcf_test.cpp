// MJCF import (scenes/mjcf.cpp): compiled masses, centres, inertias, frames and joint axes
// against hand-computed values; default classes; the example arm in URDF and MJCF.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli_util.hpp"
#include "tests/mjcf_files.hpp"

namespace appell {
namespace {

using testing::body_of;
using testing::load_mjcf_text;

constexpr double kPi = 3.14159265358979323846;

std::shared_ptr<const Joint> joint(const Scene& s, const std::string& name) {
  for (const ConstraintPtr& c : s.model.constraints())
    if (c->name() == name) return std::dynamic_pointer_cast<const Joint>(c);
  return nullptr;
}
Mat3 world_inertia(const Body& b) {
  const Mat3 Q = b.orientation.toRotationMatrix();
  return Q * b.inertia * Q.transpose();
}
Vec3 world_axis(const Scene& s, const Joint& j) {
  const Body& c = s.model.bodies()[j.child()];
  return c.orientation.toRotationMatrix() * j.frames().E_C.col(2);
}
Mat3 rows(double a, double b, double c, double d, double e, double f, double g, double h,
          double i) {
  Mat3 R;
  R << a, b, c, d, e, f, g, h, i;
  return R;
}
std::string world(const std::string& compiler, const std::string& body_attrs) {
  return "<mujoco><compiler " + compiler + "/><worldbody><body name='b' pos='1 2 3' " + body_attrs +
         "><joint name='j' type='hinge' pos='0 0 0.1' axis='1 0 0'/>"
         "<inertial pos='0.1 0 0' mass='2' diaginertia='1 2 3'/></body></worldbody></mujoco>";
}

// Every pose form gives the body frame R: the centre, the inertia, the joint's anchor and
// axis follow it (the rotations written out by hand).
TEST(Mjcf, EveryPoseFormPlacesTheBody) {
  const Mat3 Rx90Ry90 = rows(0, 0, 1, 1, 0, 0, 0, 1, 0);    // intrinsic x then y
  const Mat3 Ry90Rx90 = rows(0, 1, 0, 0, 0, -1, -1, 0, 0);  // extrinsic X then Y
  const Mat3 Rz90 = rows(0, -1, 0, 1, 0, 0, 0, 0, 1);
  const Mat3 Ry90 = rows(0, 0, 1, 0, 1, 0, -1, 0, 0);
  const struct {
    std::string compiler, attrs;
    Mat3 R;
  } cases[] = {
      {"", "quat='1 0 1 0'", Ry90},
      {"", "euler='90 90 0'", Rx90Ry90},
      {"eulerseq='XYZ'", "euler='90 90 0'", Ry90Rx90},
      {"angle='radian'", "euler='1.5707963267948966 1.5707963267948966 0'", Rx90Ry90},
      {"", "axisangle='0 0 2 90'", Rz90},
      {"angle='radian'", "axisangle='0 0 1 1.5707963267948966'", Rz90},
      {"", "xyaxes='0 1 0 -1 0 0'", Rz90},
      {"", "zaxis='1 0 0'", Ry90},
  };
  const Vec3 p(1, 2, 3);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.compiler + " " + c.attrs);
    const Scene s = load_mjcf_text(world(c.compiler, c.attrs));
    const Body& b = body_of(s, "b");
    EXPECT_NEAR(b.mass, 2, 1e-15);
    EXPECT_LT((b.position - (p + c.R * Vec3(0.1, 0, 0))).norm(), 1e-12);
    const Mat3 I = c.R * Vec3(1, 2, 3).asDiagonal() * c.R.transpose();
    EXPECT_LT((world_inertia(b) - I).norm(), 1e-12);
    const auto j = joint(s, "j");
    ASSERT_TRUE(j);
    EXPECT_LT((j->anchor() - (p + c.R * Vec3(0, 0, 0.1))).norm(), 1e-12);
    EXPECT_LT((world_axis(s, *j) - c.R * Vec3(1, 0, 0)).norm(), 1e-12);
  }
}

// A nested body composes its pose with its parent's; an <inertial quat> rotates the tensor.
TEST(Mjcf, NestedBodiesAndInertialFrames) {
  const Scene s = load_mjcf_text(R"(<mujoco><worldbody>
    <body name='a' pos='0 0 1' axisangle='0 0 1 90'>
      <joint name='ja' axis='0 1 0'/>
      <inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>
      <body name='c' pos='1 0 0'>
        <joint name='jc' type='slide' axis='1 0 0'/>
        <inertial pos='0 0 -0.5' quat='0.7071067811865476 0 0 0.7071067811865476' mass='3'
                  diaginertia='0.1 0.2 0.3'/>
      </body></body></worldbody></mujoco>)");
  const Mat3 Rz90 = rows(0, -1, 0, 1, 0, 0, 0, 0, 1);
  const Body& c = body_of(s, "c");
  EXPECT_LT((c.position - Vec3(0, 1, 0.5)).norm(), 1e-12);
  // the inertial frame is turned 90° about z in a body turned 90° about z: 180° in all
  const Mat3 R = Rz90 * Rz90;
  EXPECT_LT((world_inertia(c) - R * Vec3(0.1, 0.2, 0.3).asDiagonal() * R.transpose()).norm(),
            1e-12);
  EXPECT_LT((world_axis(s, *joint(s, "ja")) - Vec3(-1, 0, 0)).norm(), 1e-12);
  EXPECT_LT((world_axis(s, *joint(s, "jc")) - Vec3(0, 1, 0)).norm(), 1e-12);
  EXPECT_EQ(joint(s, "jc")->joint_type().name(), std::string("prismatic"));
}

// Bodies without <inertial>: MuJoCo's solid primitives of density 1000 (or the geom's
// density or mass), summed with the parallel-axis theorem.
TEST(Mjcf, InertiaFromGeoms) {
  const double a = 0.1, b = 0.2, c = 0.3, rho = 500;
  const Scene box = load_mjcf_text(R"(<mujoco><worldbody><body name='b'><joint name='j'/>
      <geom type='box' size='0.1 0.2 0.3' density='500'/></body></worldbody></mujoco>)");
  const double m = 8 * rho * a * b * c;
  EXPECT_NEAR(body_of(box, "b").mass, m, 1e-12);
  EXPECT_LT((world_inertia(body_of(box, "b")) -
             Mat3(Vec3(m * (b * b + c * c) / 3, m * (a * a + c * c) / 3, m * (a * a + b * b) / 3)
                      .asDiagonal()))
                .norm(),
            1e-12);

  // a capsule: a cylinder (length H) and two hemispheres, each hemisphere's inertia about
  // its flat face's centre 2/5 m r², its centre 3r/8 from the face
  const double r = 0.1, H = 0.4, rho1 = 1000;
  const Scene cap = load_mjcf_text(R"(<mujoco><worldbody><body name='b'><joint name='j'/>
      <geom type='capsule' fromto='0 0 -0.2 0 0 0.2' size='0.1'/></body></worldbody></mujoco>)");
  const double mc = rho1 * kPi * r * r * H, mh = rho1 * 2.0 / 3 * kPi * r * r * r;
  const double d = 3 * r / 8;
  const double Ih_face = 0.4 * mh * r * r, Ih_c = Ih_face - mh * d * d;
  const double Ixx = mc * (3 * r * r + H * H) / 12 + 2 * (Ih_c + mh * std::pow(H / 2 + d, 2));
  const double Izz = mc * r * r / 2 + 2 * 0.4 * mh * r * r;
  EXPECT_NEAR(body_of(cap, "b").mass, mc + 2 * mh, 1e-12);
  EXPECT_LT((world_inertia(body_of(cap, "b")) - Mat3(Vec3(Ixx, Ixx, Izz).asDiagonal())).norm(),
            1e-12);

  // a sphere of given mass beside a box: the centre between them, Steiner's terms
  const Scene two = load_mjcf_text(R"(<mujoco><worldbody><body name='b'><joint name='j'/>
      <geom type='sphere' size='0.1' mass='3' pos='1 0 0'/>
      <geom type='box' size='0.1 0.1 0.1' mass='1' pos='-1 0 0'/></body></worldbody></mujoco>)");
  const Body& t = body_of(two, "b");
  EXPECT_NEAR(t.mass, 4, 1e-12);
  EXPECT_LT((t.position - Vec3(0.5, 0, 0)).norm(), 1e-12);
  const double Is = 0.4 * 3 * 0.01, Ib = 1 * (0.02) / 3;
  const double steiner = 3 * 0.25 + 1 * 2.25;
  EXPECT_LT(
      (world_inertia(t) - Mat3(Vec3(Is + Ib, Is + Ib + steiner, Is + Ib + steiner).asDiagonal()))
          .norm(),
      1e-12);
}

// <default> classes inherit, a body's childclass reaches its elements, an element's class
// wins over it; joint damping becomes a joint_damping force, stiffness a joint spring.
TEST(Mjcf, DefaultClassesInherit) {
  const Scene s = load_mjcf_text(R"(<mujoco>
    <default>
      <joint damping='0.5'/>
      <default class='a'>
        <joint axis='1 0 0'/>
        <default class='b'><geom density='2000'/></default>
      </default>
      <default class='c'><joint axis='0 0 1' stiffness='4' springref='30'/></default>
    </default>
    <worldbody>
      <body name='u' childclass='b'>
        <joint name='ju'/>
        <geom type='box' size='0.1 0.1 0.1'/>
        <body name='v' pos='0 0 -1'>
          <joint name='jv' class='c'/>
          <geom type='box' size='0.1 0.1 0.1' density='1000'/>
        </body>
      </body>
    </worldbody></mujoco>)");
  EXPECT_NEAR(body_of(s, "u").mass, 2000 * 0.008, 1e-12);
  EXPECT_NEAR(body_of(s, "v").mass, 1000 * 0.008, 1e-12);
  EXPECT_LT((world_axis(s, *joint(s, "ju")) - Vec3(1, 0, 0)).norm(), 1e-12);
  EXPECT_LT((world_axis(s, *joint(s, "jv")) - Vec3(0, 0, 1)).norm(), 1e-12);
  EXPECT_EQ(joint(s, "ju")->properties().damping, 0.5);
  EXPECT_EQ(joint(s, "jv")->properties().damping, 0.5);
  int springs = 0, dampers = 0;
  for (const ForcePtr& f : s.model.forces()) {
    springs += std::dynamic_pointer_cast<const JointSpring>(f) != nullptr;
    dampers += std::dynamic_pointer_cast<const JointDamping>(f) != nullptr;
  }
  EXPECT_EQ(springs, 1);
  EXPECT_EQ(dampers, 2);
}

// Geoms become collision shapes: MuJoCo's half sizes made full, friction's first value,
// contype/conaffinity as group/mask; a world plane is the world's.
TEST(Mjcf, GeomsBecomeShapes) {
  const Scene s = load_mjcf_text(R"(<mujoco><worldbody>
    <geom name='floor' type='plane' size='1 1 0.1' friction='0.8 0.1 0.1'/>
    <body name='b' pos='0 0 1'><freejoint/>
      <geom name='box' type='box' size='0.1 0.2 0.3' contype='2' conaffinity='5'/>
      <geom name='cyl' type='cylinder' size='0.05 0.25' pos='0 0 0.5'/>
    </body></worldbody></mujoco>)");
  const auto& shapes = s.model.shapes();
  ASSERT_EQ(shapes.size(), 3u);
  std::map<std::string, const Shape*> by;
  for (const Shape& sh : shapes) by[sh.name] = &sh;
  EXPECT_EQ(by.at("floor")->body, kWorld);
  EXPECT_EQ(by.at("floor")->friction, 0.8);
  EXPECT_LT((by.at("box")->half_extents - Vec3(0.1, 0.2, 0.3)).norm(), 1e-15);
  EXPECT_EQ(by.at("box")->group, 2u);
  EXPECT_EQ(by.at("box")->mask, 5u);
  EXPECT_EQ(by.at("cyl")->radius, 0.05);
  EXPECT_NEAR(by.at("cyl")->length, 0.5, 1e-15);
  // a free body floats where MJCF put it
  const Body& b = body_of(s, "b");
  EXPECT_NEAR(
      b.position.z(),
      1 + 0.5 * (kPi * 0.0025 * 0.5 * 1000) / (kPi * 0.0025 * 0.5 * 1000 + 8 * 0.006 * 1000),
      1e-12);
}

// What is not read is a located warning; bad input a located error.
TEST(Mjcf, UnsupportedIsWarnedAndErrorsAreLocated) {
  const Scene s = load_mjcf_text(
      "<mujoco>\n<worldbody>\n<body name='b'><joint/>\n"
      "<geom size='0.1'/></body>\n</worldbody>\n<sensor/>\n</mujoco>");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], "model.xml:6: /mujoco/sensor: not supported, ignored");
  try {
    load_mjcf_text(
        "<mujoco>\n<worldbody>\n<body name='b'>\n<joint type='screw'/>\n"
        "<geom size='0.1'/></body></worldbody></mujoco>");
    FAIL();
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()),
              "model.xml:4: /mujoco/worldbody/body/joint: unknown joint type 'screw'; expected "
              "hinge, slide, ball or free");
  }
  const std::string bad = testing::write_temp(
      "bad.xml", "<mujoco>\n<worldbody>\n<body>\n<joint/><joint/>\n</body></worldbody></mujoco>");
  for (const char* command : {"check", "eval"}) {
    const testing::CliResult r = testing::run_cli(std::string(command) + " " + bad);
    EXPECT_EQ(r.status, 2);
    // two joints are read (tests/mjcf_closed_forms_test.cpp); a body they move needs mass
    EXPECT_EQ(r.err, "error: " + bad +
                         ":3: /mujoco/worldbody/body: a body moved by a joint needs mass (an "
                         "<inertial> or geoms)\n");
  }
}

// The example arm, shipped as URDF and as MJCF, at a state off its rest: equal accelerations.
TEST(Mjcf, TwoLinkArmMatchesItsUrdf) {
  const std::string dir = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/robots/";
  const std::string state =
      R"(, "q": {"shoulder": 0.7, "elbow": -1.1}, "qd": {"shoulder": 0.4, "elbow": -2.0}})";
  const std::string u = testing::write_temp(
      "arm_urdf.json", R"({"include": {"urdf": ")" + dir + "two_link_arm.urdf\"" + state + "}");
  const std::string m = testing::write_temp(
      "arm_mjcf.json", R"({"include": {"mjcf": ")" + dir + "two_link_arm.xml\"" + state + "}");
  const testing::CliResult ru = testing::run_cli("eval --json " + u);
  const testing::CliResult rm = testing::run_cli("eval --json " + m);
  ASSERT_EQ(ru.status, 0) << ru.err;
  ASSERT_EQ(rm.status, 0) << rm.err;
  const auto ju = nlohmann::json::parse(ru.out), jm = nlohmann::json::parse(rm.out);
  int compared = 0;
  for (const char* j : {"shoulder", "elbow"}) {
    const double a = ju["joints"][j]["qdd"][0].get<double>(),
                 b = jm["joints"][j]["qdd"][0].get<double>();
    EXPECT_NEAR(a, b, 1e-12) << j;
    EXPECT_GT(std::abs(a), 0.1) << j;  // a state that moves
    ++compared;
  }
  EXPECT_EQ(compared, 2);
  // the MJCF alone loads
  const testing::CliResult rc = testing::run_cli("check " + dir + "two_link_arm.xml");
  EXPECT_EQ(rc.status, 0) << rc.err;
}

}  // namespace
}  // namespace appell
