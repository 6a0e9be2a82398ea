// scenes/joint_space.cpp and scenes/urdf.cpp: bodies placed by their joints, initial joint
// coordinates, URDF import, and their located errors word for word.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <fstream>
#include <string>

#include "engine/formulations/recursive.hpp"
#include "tests/cli_util.hpp"

namespace appell {
namespace {

std::string error_of(const std::string& text, const std::string& file = "s.json") {
  try {
    load_model_from_string(text, file);
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

// a URDF written to the test's temporary folder; returns its path
std::string write_urdf(const std::string& name, const std::string& xml) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << xml;
  return path;
}

constexpr char kArm[] = R"({"bodies": [
  {"name": "a", "mass": 1, "inertia": {"box": [0.1, 0.1, 1]}, "com": [0, 0, -0.5]},
  {"name": "b", "mass": 1, "inertia": {"box": [0.1, 0.1, 1]}, "com": [0, 0, -0.5]}],
 "constraints": [
  {"name": "j1", "type": "revolute", "bodies": ["world", "a"], "origin": {"xyz": [0, 0, 2], "rpy": [0, 0, 1.5707963267948966]}, "axis": [1, 0, 0], "q": 0.5, "qd": 2},
  {"name": "j2", "type": "revolute", "bodies": ["a", "b"], "origin": {"xyz": [0, 0, -1]}, "axis": [1, 0, 0], "q": -0.25, "qd": 1}]})";

// The pose and velocity a joint-space chain places its bodies at, from the geometry: the
// first link turns by 0.5 about the world y axis (its x after a quarter turn about z).
TEST(JointSpace, PlacesBodiesFromOriginsAndCoordinates) {
  const Model m = load_model_from_string(kArm, "s.json");
  const Body &a = m.bodies()[0], &b = m.bodies()[1];
  // the first joint's axis is the origin frame's x = world y; q turns −z towards −x
  const double q1 = 0.5, q2 = -0.25, u1 = 2.0, u2 = 1.0;
  const Vec3 down1(-std::sin(q1), 0, -std::cos(q1)),
      down2(-std::sin(q1 + q2), 0, -std::cos(q1 + q2));
  EXPECT_LT((a.position - (Vec3(0, 0, 2) + 0.5 * down1)).norm(), 1e-14);
  EXPECT_LT((b.position - (Vec3(0, 0, 2) + down1 + 0.5 * down2)).norm(), 1e-14);
  EXPECT_LT((a.angular_velocity - Vec3(0, u1, 0)).norm(), 1e-14);
  EXPECT_LT((b.angular_velocity - Vec3(0, u1 + u2, 0)).norm(), 1e-14);
  // v = ω × r about the fixed pivot, chained
  const Vec3 va = Vec3(0, u1, 0).cross(0.5 * down1);
  const Vec3 vb = Vec3(0, u1, 0).cross(down1) + Vec3(0, u1 + u2, 0).cross(0.5 * down2);
  EXPECT_LT((a.velocity - va).norm(), 1e-14);
  EXPECT_LT((b.velocity - vb).norm(), 1e-14);
  // the model's joint coordinates are the ones given
  const State& s = m.initial_state();
  EXPECT_NEAR(s.q(0), q1, 1e-14);
  EXPECT_NEAR(s.q(1), q2, 1e-14);
  EXPECT_NEAR(s.u(0), u1, 1e-14);
  EXPECT_NEAR(s.u(1), u2, 1e-14);
}

TEST(JointSpace, ErrorsWordForWord) {
  const std::string arm = kArm;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = arm;
    s.replace(s.find(from), from.size(), to);
    return error_of(s);
  };
  EXPECT_EQ(with(R"("com": [0, 0, -0.5]},)", R"("com": [0, 0, -0.5], "position": [0, 0, 1]},)"),
            "s.json: /bodies/0/position: body 'a' is placed by the joint at /constraints/0 "
            "(origin); give its initial state as the joint's q and qd instead");
  EXPECT_EQ(with(R"("q": 0.5)", R"("q": [0.5, 1])"),
            "s.json: /constraints/0/q: a revolute joint takes one number, got an array of 2");
  EXPECT_EQ(with(R"("bodies": ["a", "b"], "origin": {"xyz": [0, 0, -1]})",
                 R"("bodies": ["a", "b"], "anchor": [0, 0, 0])"),
            "s.json: /bodies/1/com: com is the centre of mass in a link frame, for a body placed "
            "by a joint with an origin; a body with a world position has its centre of mass at "
            "that position");
  EXPECT_EQ(with(R"("bodies": ["world", "a"])", R"("bodies": ["b", "a"])"),
            "s.json: /constraints/0/bodies: the joints with an origin form a cycle through body "
            "'a'; a loop needs one joint with an anchor");
  EXPECT_EQ(with(R"("origin": {"xyz": [0, 0, 2])", R"("origin": {"xyz": [0, 0, 2], "z": 1)"),
            "s.json: /constraints/0/origin/z: unknown key 'z'; expected one of: xyz, rpy");
  EXPECT_EQ(with(R"("bodies": ["world", "a"])", R"("bodies": ["world", "c"])"),
            "s.json: /constraints/0/bodies/1: unknown body 'c'; expected a body name or 'world'");
  // a fixed joint has no coordinates; a world-pose joint takes no q
  EXPECT_EQ(error_of(R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}],
      "constraints": [{"type": "fixed", "bodies": ["world", "a"], "origin": {}, "q": 0}]})"),
            "s.json: /constraints/0/q: a fixed joint has no coordinates; remove this key");
  EXPECT_EQ(error_of(R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}],
      "constraints": [{"type": "revolute", "bodies": ["world", "a"], "anchor": [0, 0, 0],
                       "axis": [1, 0, 0], "q": 0.1}]})"),
            "s.json: /constraints/0/q: q is for a joint that places its child (with an origin); "
            "with world poses, give the child's position and velocity");
}

// A free joint's q is (position, quaternion) and its qd (velocity, angular velocity) of
// the link frame in the world.
TEST(JointSpace, FreeJointCoordinates) {
  const Model m = load_model_from_string(R"({"bodies": [
      {"name": "a", "mass": 1, "inertia": {"box": [0.1, 0.2, 0.3]}, "com": [0.1, 0, 0]}],
    "constraints": [{"type": "free", "bodies": ["world", "a"], "origin": {},
      "q": {"position": [1, 2, 3], "quaternion": [0, 0, 0, 2]},
      "qd": {"velocity": [0, 0, 1], "angular_velocity": [0, 0, 4]}}]})");
  const Body& a = m.bodies()[0];
  // half a turn about z: the centre of mass at (1, 2, 3) + (−0.1, 0, 0)
  EXPECT_LT((a.position - Vec3(0.9, 2, 3)).norm(), 1e-14);
  // v̄ = v_origin + ω × (x̄ − x_origin) = (0, 0, 1) + (0, 0, 4) × (−0.1, 0, 0)
  EXPECT_LT((a.velocity - Vec3(0, -0.4, 1)).norm(), 1e-14);
  EXPECT_EQ(error_of(R"({"bodies": [{"name": "a", "mass": 1, "inertia": {"sphere": 1}}],
      "constraints": [{"type": "free", "bodies": ["world", "a"], "origin": {},
      "q": {"quaternion": [0, 0, 0, 0]}}]})"),
            "s.json: /constraints/0/q: the quaternion [w, x, y, z] must be nonzero");
}

constexpr char kLink[] =
    R"(<inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>)";

std::string robot(const std::string& body) {
  return R"(<?xml version="1.0"?><robot name="r"><link name="base"/>)" + body + "</robot>";
}

TEST(Urdf, ErrorsNameTheFileAndTheLinkOrJoint) {
  const std::string massless =
      write_urdf("massless.urdf",
                 robot(R"(<link name="arm"/><joint name="j" type="continuous"><parent link="base"/>
               <child link="arm"/><axis xyz="0 0 1"/></joint>)"));
  EXPECT_EQ(testing::load_error(massless),
            massless +
                ": link 'arm' is moved by the revolute joint 'j' but has no <inertial> with mass "
                "> 0");
  const std::string inertia = write_urdf(
      "inertia.urdf",
      robot(R"(<link name="arm"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0"
               iyy="1" iyz="0" izz="3"/></inertial></link><joint name="j" type="continuous">
               <parent link="base"/><child link="arm"/></joint>)"));
  EXPECT_EQ(testing::load_error(inertia),
            inertia +
                ": link 'arm': <inertia>: principal moments [1, 1, 3] violate the triangle "
                "inequality");
  const std::string broken = write_urdf("broken.urdf", "<robot name=\"r\"><link name=\"a\">");
  EXPECT_EQ(testing::load_error(broken).rfind(broken + ": not a valid URDF: ", 0), 0u)
      << testing::load_error(broken);
  const std::string axis = write_urdf(
      "axis.urdf", robot(std::string(R"(<link name="arm">)") + kLink +
                         R"(</link><joint name="j" type="continuous"><parent link="base"/>
                            <child link="arm"/><axis xyz="0 0 0"/></joint>)"));
  EXPECT_EQ(testing::load_error(axis), axis + ": joint 'j': <axis> must be a nonzero direction");
}

TEST(Urdf, IncludeErrorsAreLocatedInTheScene) {
  const std::string dir = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/robots/";
  const std::string file = dir + "s.json";
  EXPECT_EQ(error_of(R"({"include": {"urdf": "two_link_arm.urdf", "q": {"wrist": 1}}})", file),
            file + ": /include/q/wrist: no moving joint 'wrist' in " + dir +
                "two_link_arm.urdf (fixed joints to massless links are merged away)");
  EXPECT_EQ(error_of(R"({"include": {"urdf": "two_link_arm.urdf", "base": "flying"}})", file),
            file + ": /include/base: unknown base 'flying'; expected fixed or floating");
  EXPECT_EQ(error_of(R"({"include": {"urdf": "nowhere.urdf"}})", file),
            file + ": /include/urdf: cannot open the URDF file '" + dir + "nowhere.urdf'");
  EXPECT_EQ(error_of(R"({"include": {"urdf": "two_link_arm.urdf", "q": {"elbow": [1, 2]}}})", file),
            file + ": /include/q/elbow: a revolute joint takes one number, got an array of 2");
  // loops and other constraints name the URDF's links, merged ones included
  EXPECT_EQ(error_of(R"({"include": {"urdf": "two_link_arm.urdf"},
      "constraints": [{"type": "distance", "bodies": ["tool", "world"],
                       "points": [[0, 0, 0.1], [1, 0, 0.1]]}]})",
                     file),
            "");
}

// A body placed on a merged link (tool, massless, fixed 0.4 below the forearm's origin)
// starts from that link's frame; a merged link cannot be a joint's child.
TEST(Urdf, JointsOnMergedLinksStartFromTheirFrame) {
  const std::string dir = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/robots/";
  const std::string file = dir + "s.json";
  const Model m = load_model_from_string(R"({"include": {"urdf": "two_link_arm.urdf"},
      "bodies": [{"name": "bob", "mass": 0.1, "inertia": {"sphere": 0.01}, "com": [0, 0, -0.1]}],
      "constraints": [{"name": "bob_pin", "type": "revolute", "bodies": ["tool", "bob"],
                       "origin": {"rpy": [0, 0, 0.3]}, "axis": [1, 0, 0]}]})",
                                         file);
  // the shoulder at z = 1, the elbow 0.5 below, the tool 0.4 below that, the bob 0.1 below
  EXPECT_LT((m.bodies()[m.body_index("bob")].position - Vec3(0, 0, 0)).norm(), 1e-14);
  EXPECT_EQ(error_of(R"({"include": {"urdf": "two_link_arm.urdf"},
      "constraints": [{"type": "revolute", "bodies": ["upper", "tool"], "origin": {},
                       "axis": [1, 0, 0]}]})",
                     file),
            file +
                ": /constraints/0/bodies/1: link 'tool' is merged into 'fore' (fixed to it, "
                "or to the ground); a joint cannot move it");
}

// <mimic> holds the follower at multiplier × leader + offset: the two joint accelerations
// keep that ratio, on every formulation, and the zero state starts on the constraint.
TEST(Urdf, MimicHoldsTheRatio) {
  const std::string path = write_urdf(
      "mimic.urdf",
      robot(std::string(R"(<link name="a">)") + kLink + R"(</link><link name="b">)" + kLink +
            R"(</link><joint name="j1" type="continuous"><parent link="base"/><child link="a"/>
            <origin xyz="0 0 0"/><axis xyz="0 1 0"/></joint>
            <joint name="j2" type="continuous"><parent link="a"/><child link="b"/>
            <origin xyz="0.5 0 0"/><axis xyz="0 1 0"/><mimic joint="j1" multiplier="-2" offset="0.1"/>
            </joint>)"));
  const Model m = load_model(path);
  for (Formulation f :
       {Formulation::Pinv, Formulation::Recursive, Formulation::Sparse, Formulation::GibbsAppell}) {
    Data d(m);
    ASSERT_EQ(forward(m, d, f), SolveStatus::Ok);
    const double w1 = d.udot(4), w2 = d.udot(10) - d.udot(4);  // ω̇_y of a, of b relative to a
    EXPECT_GT(std::abs(w1), 1.0);
    EXPECT_NEAR(w2, -2.0 * w1, 1e-9 * std::abs(w1));
  }
  // the follower starts at −2 · 0 + 0.1
  EXPECT_NEAR(m.initial_state().q(1), 0.1, 1e-14);
}

// Two fingers on prismatic joints, the second mimicking the first (a gripper): the slides'
// accelerations keep the ratio and every formulation agrees; a floating base needs mass.
TEST(Urdf, PrismaticMimicAndFloatingBase) {
  const std::string path =
      write_urdf("gripper.urdf",
                 robot(std::string(R"(<link name="hand">)") + kLink + R"(</link><link name="f1">)" +
                       kLink + R"(</link><link name="f2">)" + kLink +
                       R"(</link><joint name="wrist" type="continuous"><parent link="base"/>
            <child link="hand"/><axis xyz="1 0 0"/></joint>
            <joint name="s1" type="prismatic"><parent link="hand"/><child link="f1"/>
            <origin xyz="0 0.1 -0.3"/><axis xyz="0 1 0"/>
            <limit lower="0" upper="0.04" effort="10" velocity="1"/></joint>
            <joint name="s2" type="prismatic"><parent link="hand"/><child link="f2"/>
            <origin xyz="0 -0.1 -0.3"/><axis xyz="0 -1 0"/>
            <limit lower="0" upper="0.04" effort="10" velocity="1"/>
            <mimic joint="s1" multiplier="1" offset="0"/></joint>)"));
  const std::string scene =
      R"({"include": {"urdf": ")" + path +
      R"(", "q": {"wrist": 0.7, "s1": 0.01}, "qd": {"wrist": 3, "s1": 0.2}}})";
  const Model m = load_model_from_string(scene, "s.json");
  Eigen::VectorXd first;
  for (Formulation f :
       {Formulation::Pinv, Formulation::Recursive, Formulation::Sparse, Formulation::GibbsAppell}) {
    Data d(m);
    ASSERT_EQ(forward(m, d, f), SolveStatus::Ok);
    if (first.size() == 0) first = d.udot;
    EXPECT_LT((d.udot - first).norm(), 1e-9 * first.norm());
  }
  // the slides, from the states: s = (x_f − x_hand) · e in the hand frame
  const Model& cm = m;
  Data d(cm);
  ASSERT_EQ(forward(cm, d, Formulation::Pinv), SolveStatus::Ok);
  EXPECT_NEAR(
      MimicConstraint::coordinate(static_cast<const Joint&>(*cm.constraints()[2]), d.view()), 0.01,
      1e-12);
  EXPECT_EQ(error_of(R"({"include": {"urdf": ")" + path + R"(", "base": "floating"}})"),
            path +
                ": link 'base' is the root of a floating base but has no <inertial> with mass "
                "> 0 (a URDF whose massless root holds a floating joint floats already: use "
                "base fixed)");
}

// `appell check` and `eval` take a URDF directly; check counts in joint space: the delta
// robot has 3 arms + 6 platform velocities, 6 rod rows of rank 6, so 3 DoF; limits listed.
TEST(Urdf, CliChecksAndEvaluatesRobots) {
  const std::string dir = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/robots/";
  const testing::CliResult delta = testing::run_cli("check '" + dir + "delta.json'");
  ASSERT_EQ(delta.status, 0) << delta.err;
  EXPECT_NE(
      delta.out.find("joint coordinates: 10 (q), joint velocities: 9 (u), in 4 tree joints\n"),
      std::string::npos)
      << delta.out;
  EXPECT_NE(delta.out.find("constraints beyond the tree: 6 rows, rank 6\n"), std::string::npos);
  EXPECT_NE(delta.out.find("degrees of freedom: 3\n"), std::string::npos);
  // the delta robot's scene turns limits off ("contact": {"joint_limits": false})
  EXPECT_NE(delta.out.find("limits [-1.5, 1.5] effort 50 velocity 5 (not enforced: "
                           "contact.joint_limits is false)"),
            std::string::npos)
      << delta.out;
  const testing::CliResult hinge = testing::run_cli("check '" + std::string(APPELL_SOURCE_DIR) +
                                                    "/scenes/examples/limits_pendulum.json'");
  EXPECT_NE(hinge.out.find("limits [-1, 1] effort 0 velocity 0 (enforced)"), std::string::npos)
      << hinge.out;
  const testing::CliResult eval = testing::run_cli("eval '" + dir + "seven_dof_arm.urdf'");
  ASSERT_EQ(eval.status, 0) << eval.err;
  EXPECT_NE(eval.out.find("\"dof\": 7"), std::string::npos) << eval.out;
  const testing::CliResult bad = testing::run_cli("check '" + dir + "missing.urdf'");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "error: " + dir + "missing.urdf: cannot open the file\n");
  EXPECT_EQ(bad.out, "");
}

}  // namespace
}  // namespace appell
