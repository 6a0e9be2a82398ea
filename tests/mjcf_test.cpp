// MJCF import (scenes/mjcf.cpp): compiled masses, centres, inertias, frames and joint axes
// against hand-computed values; default classes; the example arm in URDF and MJCF.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli_util.hpp"

namespace appell {
namespace {

constexpr double kPi = 3.14159265358979323846;

Scene load(const std::string& xml) {
  return load_scene_from_string(xml, "model.xml");
}
const Body& body(const Scene& s, const std::string& name) {
  for (const Body& b : s.model.bodies())
    if (b.name == name) return b;
  throw std::runtime_error("no body " + name);
}
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
    const Scene s = load(world(c.compiler, c.attrs));
    const Body& b = body(s, "b");
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
  const Scene s = load(R"(<mujoco><worldbody>
    <body name='a' pos='0 0 1' axisangle='0 0 1 90'>
      <joint name='ja' axis='0 1 0'/>
      <inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>
      <body name='c' pos='1 0 0'>
        <joint name='jc' type='slide' axis='1 0 0'/>
        <inertial pos='0 0 -0.5' quat='0.7071067811865476 0 0 0.7071067811865476' mass='3'
                  diaginertia='0.1 0.2 0.3'/>
      </body></body></worldbody></mujoco>)");
  const Mat3 Rz90 = rows(0, -1, 0, 1, 0, 0, 0, 0, 1);
  const Body& c = body(s, "c");
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
  const Scene box = load(R"(<mujoco><worldbody><body name='b'><joint name='j'/>
      <geom type='box' size='0.1 0.2 0.3' density='500'/></body></worldbody></mujoco>)");
  const double m = 8 * rho * a * b * c;
  EXPECT_NEAR(body(box, "b").mass, m, 1e-12);
  EXPECT_LT((world_inertia(body(box, "b")) -
             Mat3(Vec3(m * (b * b + c * c) / 3, m * (a * a + c * c) / 3, m * (a * a + b * b) / 3)
                      .asDiagonal()))
                .norm(),
            1e-12);

  // a capsule: a cylinder (length H) and two hemispheres, each hemisphere's inertia about
  // its flat face's centre 2/5 m r², its centre 3r/8 from the face
  const double r = 0.1, H = 0.4, rho1 = 1000;
  const Scene cap = load(R"(<mujoco><worldbody><body name='b'><joint name='j'/>
      <geom type='capsule' fromto='0 0 -0.2 0 0 0.2' size='0.1'/></body></worldbody></mujoco>)");
  const double mc = rho1 * kPi * r * r * H, mh = rho1 * 2.0 / 3 * kPi * r * r * r;
  const double d = 3 * r / 8;
  const double Ih_face = 0.4 * mh * r * r, Ih_c = Ih_face - mh * d * d;
  const double Ixx = mc * (3 * r * r + H * H) / 12 + 2 * (Ih_c + mh * std::pow(H / 2 + d, 2));
  const double Izz = mc * r * r / 2 + 2 * 0.4 * mh * r * r;
  EXPECT_NEAR(body(cap, "b").mass, mc + 2 * mh, 1e-12);
  EXPECT_LT((world_inertia(body(cap, "b")) - Mat3(Vec3(Ixx, Ixx, Izz).asDiagonal())).norm(), 1e-12);

  // a sphere of given mass beside a box: the centre between them, Steiner's terms
  const Scene two = load(R"(<mujoco><worldbody><body name='b'><joint name='j'/>
      <geom type='sphere' size='0.1' mass='3' pos='1 0 0'/>
      <geom type='box' size='0.1 0.1 0.1' mass='1' pos='-1 0 0'/></body></worldbody></mujoco>)");
  const Body& t = body(two, "b");
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
  const Scene s = load(R"(<mujoco>
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
  EXPECT_NEAR(body(s, "u").mass, 2000 * 0.008, 1e-12);
  EXPECT_NEAR(body(s, "v").mass, 1000 * 0.008, 1e-12);
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
  const Scene s = load(R"(<mujoco><worldbody>
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
  const Body& b = body(s, "b");
  EXPECT_NEAR(
      b.position.z(),
      1 + 0.5 * (kPi * 0.0025 * 0.5 * 1000) / (kPi * 0.0025 * 0.5 * 1000 + 8 * 0.006 * 1000),
      1e-12);
}

// What is not read is a located warning; bad input a located error.
TEST(Mjcf, UnsupportedIsWarnedAndErrorsAreLocated) {
  const Scene s = load(
      "<mujoco>\n<worldbody>\n<body name='b'><joint/>\n"
      "<geom size='0.1'/></body>\n</worldbody>\n<sensor/>\n</mujoco>");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], "model.xml:6: /mujoco/sensor: not supported, ignored");
  try {
    load(
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
    // two joints are read (tests/mjcf_mujoco_test.cpp); a body they move needs mass
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

namespace appell {
namespace {

// Actuators at ctrl = 0: a position servo pulls to q = 0 with kp gear², a velocity actuator
// damps with kv gear², a motor adds nothing; I q̈ = −kp g² q − kv qd.
TEST(Mjcf, ActuatorsAtZeroControl) {
  const std::string xml = testing::write_temp("act.xml", R"(<mujoco><worldbody>
    <body name='b'><joint name='j' axis='0 0 1'/>
      <inertial pos='0 0 0' mass='1' diaginertia='2 2 2'/></body></worldbody>
    <actuator><position joint='j' kp='10' gear='2'/><velocity joint='j' kv='3'/>
      <motor joint='j' gear='5'/></actuator></mujoco>)");
  const std::string scene =
      testing::write_temp("act.json", R"({"gravity": [0, 0, 0], "include": {"mjcf": ")" + xml +
                                          R"(", "q": {"j": 0.5}, "qd": {"j": 1.0}}})");
  const testing::CliResult r = testing::run_cli("eval --json " + scene);
  ASSERT_EQ(r.status, 0) << r.err;
  const double qdd = nlohmann::json::parse(r.out)["joints"]["j"]["qdd"][0].get<double>();
  EXPECT_NEAR(qdd, (-10 * 4 * 0.5 - 3 * 1.0) / 2, 1e-12);
}

}  // namespace
}  // namespace appell

namespace appell {
namespace {

// A named site is a frame of its body: a scene's joint placed from it starts there.
TEST(Mjcf, SitesAreNamedFrames) {
  const std::string xml = testing::write_temp("site.xml", R"(<mujoco><worldbody>
    <body name='b' pos='0 0 1' axisangle='0 0 1 90'><joint name='j'/>
      <inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>
      <site name='s' pos='1 0 0'/></body></worldbody></mujoco>)");
  const std::string scene =
      testing::write_temp("site.json", R"({"include": {"mjcf": ")" + xml + R"("},
        "bodies": [{"name": "tip", "mass": 1, "inertia": {"sphere": 0.1}}],
        "constraints": [{"name": "jt", "type": "revolute", "bodies": ["s", "tip"],
                         "origin": {"xyz": [0.5, 0, 0]}, "axis": [0, 0, 1]}]})");
  const Scene s = load_scene(scene);
  EXPECT_LT((body(s, "tip").position - Vec3(0, 1.5, 1)).norm(), 1e-12);
  EXPECT_TRUE(s.warnings.empty());
}

}  // namespace
}  // namespace appell

namespace appell {
namespace {

// The quadruped, floating, in URDF (the include's "base") and MJCF (its free joint): equal
// accelerations of every joint, the free joint's included.
TEST(Mjcf, QuadrupedMatchesItsUrdf) {
  const std::string dir = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/robots/";
  const std::string state = R"(, "q": {
      "root_joint": {"position": [0, 0, 0.5], "quaternion": [0.96, 0.2, 0.1, -0.17]},
      "fl_hip": 0.1, "fr_hip": -0.1, "hl_hip": 0.2, "hr_hip": -0.2,
      "fl_knee": -0.8, "fr_knee": -0.8, "hl_knee": -1.0, "hr_knee": -1.0},
    "qd": {"root_joint": {"velocity": [0.5, 0, 1.0], "angular_velocity": [0.2, 0.5, 0.1]},
           "fl_knee": 1.0, "hr_hip": -0.7}}})";
  const std::string u =
      testing::write_temp("quad_urdf.json", R"({"include": {"urdf": ")" + dir +
                                                R"(quadruped.urdf", "base": "floating")" + state);
  const std::string m = testing::write_temp(
      "quad_mjcf.json", R"({"include": {"mjcf": ")" + dir + "quadruped.xml\"" + state);
  const testing::CliResult ru = testing::run_cli("eval --json " + u);
  const testing::CliResult rm = testing::run_cli("eval --json " + m);
  ASSERT_EQ(ru.status, 0) << ru.err;
  ASSERT_EQ(rm.status, 0) << rm.err;
  const auto ju = nlohmann::json::parse(ru.out)["joints"],
             jm = nlohmann::json::parse(rm.out)["joints"];
  EXPECT_EQ(ju.size(), 9u);
  EXPECT_EQ(jm.size(), 9u);
  double largest = 0;
  for (auto it = ju.begin(); it != ju.end(); ++it) {
    ASSERT_TRUE(jm.contains(it.key())) << it.key();
    const auto& a = it.value()["qdd"];
    const auto& b = jm[it.key()]["qdd"];
    ASSERT_EQ(a.size(), b.size()) << it.key();
    for (size_t k = 0; k < a.size(); ++k) {
      EXPECT_NEAR(a[k].get<double>(), b[k].get<double>(), 1e-12) << it.key() << " " << k;
      largest = std::max(largest, std::abs(a[k].get<double>()));
    }
  }
  EXPECT_GT(largest, 1.0);  // a state that moves
}

}  // namespace
}  // namespace appell

namespace appell {
namespace {

// <equality><joint polycoef="c0 c1"> is a mimic q1 = c0 + c1 q2: the follower starts there
// and keeps to it (its acceleration c1 times the leader's).
TEST(Mjcf, JointEqualityIsAMimic) {
  const std::string xml = testing::write_temp("eq.xml", R"(<mujoco><worldbody>
    <body name='u'><joint name='a' axis='0 1 0'/>
      <inertial pos='0 0 -0.5' mass='1' diaginertia='0.1 0.1 0.1'/>
      <body name='v' pos='0 0 -1'><joint name='b' axis='0 1 0'/>
        <inertial pos='0 0 -0.5' mass='1' diaginertia='0.1 0.1 0.1'/></body></body>
    </worldbody><equality><joint joint1='b' joint2='a' polycoef='0.1 2'/></equality></mujoco>)");
  const std::string scene =
      testing::write_temp("eq.json", R"({"include": {"mjcf": ")" + xml + R"(", "q": {"a": 0.3}}})");
  const testing::CliResult r = testing::run_cli("eval --json " + scene);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out)["joints"];
  EXPECT_NEAR(j["b"]["q"][0].get<double>(), 0.1 + 2 * 0.3, 1e-12);
  EXPECT_NEAR(j["b"]["qdd"][0].get<double>(), 2 * j["a"]["qdd"][0].get<double>(), 1e-9);
  EXPECT_GT(std::abs(j["a"]["qdd"][0].get<double>()), 0.1);
}

}  // namespace
}  // namespace appell

namespace appell {
namespace {

// A chain of 90 bodies loads; deeper nesting than the parser takes is one located line.
TEST(Mjcf, DeepNestingIsBoundedAndLocated) {
  const auto chain = [](int n) {
    std::string s = "<mujoco><worldbody>\n";
    for (int i = 0; i < n; ++i) s += "<body pos='0 0 -0.1'><joint/><geom size='0.01'/>";
    for (int i = 0; i < n; ++i) s += "</body>";
    return s + "</worldbody></mujoco>";
  };
  EXPECT_EQ(load(chain(90)).model.bodies().size(), 90u);
  try {
    load(chain(120));
    FAIL();
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()),
              "model.xml:2: element <body> is nested deeper than the limit of 96 XML elements");
  }
}

}  // namespace
}  // namespace appell

namespace appell {
namespace {

// <option gravity timestep> are the scene's gravity and step, unless the scene says them.
TEST(Mjcf, OptionGivesGravityAndStep) {
  const std::string text = R"(<mujoco><option gravity='1 0 -2' timestep='0.005'/><worldbody>
    <body name='b'><joint type='slide' axis='1 0 0'/><geom size='0.1'/></body>
    </worldbody></mujoco>)";
  const Scene s = load(text);
  EXPECT_EQ(s.model.gravity, Vec3(1, 0, -2));
  EXPECT_EQ(s.settings.integrator.dt, 0.005);
  const std::string xml = testing::write_temp("opt.xml", text);
  const std::string own =
      testing::write_temp("opt.json", R"({"gravity": [0, 0, -9.81], "integrator": {"dt": 0.002},
                     "include": {"mjcf": ")" +
                                          xml + "\"}}");
  const Scene t = load_scene(own);
  EXPECT_EQ(t.model.gravity, Vec3(0, 0, -9.81));
  EXPECT_EQ(t.settings.integrator.dt, 0.002);
  const std::string theirs =
      testing::write_temp("opt2.json", R"({"include": {"mjcf": ")" + xml + "\"}}");
  EXPECT_EQ(load_scene(theirs).settings.integrator.dt, 0.005);
}

}  // namespace
}  // namespace appell

namespace appell {
namespace {

// Elements whose contents would be lost are refused, not warned about.
TEST(Mjcf, ElementsHoldingBodiesAreRefused) {
  try {
    load(
        "<mujoco><worldbody>\n<body name='b'><joint/><geom size='1'/>\n<frame pos='1 0 0'>"
        "<geom size='1'/></frame></body></worldbody></mujoco>");
    FAIL();
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()),
              "model.xml:3: /mujoco/worldbody/body/frame: <frame> is not supported (the bodies "
              "and geoms it holds would be lost)");
  }
}

}  // namespace
}  // namespace appell
