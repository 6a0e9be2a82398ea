// URDF import and the scene file reader against hostile and unusual input: loops in the
// tree, chains as long as the body limit, deep XML, unbounded files, names that cannot be
// CSV columns or JSON keys, formats appell does not read, mimics of fixed joints, joint
// damping, and the base a URDF gets.  Every bad input ends as one located line.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <appell/appell.hpp>
#include <appell/tree.hpp>
#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/formulations/recursive.hpp"
#include "scenes/xml_outline.hpp"
#include "tests/cli_util.hpp"

namespace appell {
namespace {

// a file in a fresh folder of the test's temporary folder (includes are relative to it)
std::string write(const std::string& name, const std::string& text) {
  static const std::string dir = [] {
    const std::string d = ::testing::TempDir() + "urdf_hardening_" + std::to_string(getpid());
    ::mkdir(d.c_str(), 0700);
    return d + "/";
  }();
  std::ofstream(dir + name, std::ios::binary) << text;
  return dir + name;
}

constexpr char kInertial[] =
    R"(<inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>)";

std::string link(const std::string& name) {
  return "<link name=\"" + name + "\">" + kInertial + "</link>";
}
std::string joint(const std::string& name, const std::string& parent, const std::string& child,
                  const std::string& type = "continuous", const std::string& extra = "") {
  return "<joint name=\"" + name + "\" type=\"" + type + "\"><parent link=\"" + parent +
         "\"/><child link=\"" + child + "\"/><origin xyz=\"0 0 -0.5\"/><axis xyz=\"0 1 0\"/>" +
         extra + "</joint>";
}
std::string robot(const std::string& body, const std::string& name = "r") {
  return "<?xml version=\"1.0\"?>\n<robot name=\"" + name + "\"><link name=\"base\"/>" + body +
         "</robot>\n";
}

// `appell check` and `eval` of `path` refuse it with exactly `expected` (after "error: ")
// on one line, status 2, nothing on stdout
void expect_cli_refuses(const std::string& path, const std::string& expected) {
  for (const char* command : {"check", "eval"}) {
    const testing::CliResult r = testing::run_cli(std::string(command) + " '" + path + "'");
    EXPECT_EQ(r.status, 2) << command << " " << path;
    EXPECT_EQ(r.err, "error: " + expected + "\n") << command;
    EXPECT_EQ(r.out, "") << command;
  }
}

// 1. A link with two parent joints is a loop: refused, not walked round forever.
TEST(UrdfHardening, LinkWithTwoParentJointsIsRefused) {
  const std::string path = write(
      "loop.urdf", robot(link("a") + link("b") + link("c") + joint("ja", "base", "a") +
                         joint("jb", "a", "b") + joint("jc", "b", "c") + joint("jloop", "c", "b")));
  expect_cli_refuses(path, path +
                               ": link 'b' has two parent joints 'jb' and 'jloop'; a URDF is a "
                               "tree (a scene can close a loop with a joint that has an anchor)");
}

// A loop the root does not reach (each of its links has one parent): named by its joints.
TEST(UrdfHardening, LoopAwayFromTheRootIsRefused) {
  const std::string path =
      write("island.urdf", robot(link("x") + link("a") + link("b") + joint("jx", "base", "x") +
                                 joint("ja", "b", "a") + joint("jb", "a", "b")));
  EXPECT_EQ(testing::load_error(path),
            path +
                ": joints 'ja', 'jb' form a loop (links 'a' -> 'b' -> 'a') "
                "that the root link 'base' does not reach; a URDF is a tree");
}

// What urdfdom itself refuses (a joint naming a link that does not exist, a loop with no
// root, two roots) is one clean line naming the file.
TEST(UrdfHardening, BrokenTreesAreOneLocatedLine) {
  const std::string unknown =
      write("unknown.urdf", robot(link("a") + joint("j", "base", "nowhere")));
  const std::string rootless = "<robot name=\"r\">" + link("a") + link("b") +
                               joint("ja", "a", "b") + joint("jb", "b", "a") + "</robot>";
  const std::string cycle = write("rootless.urdf", rootless);
  const std::string two =
      write("two_roots.urdf", robot(link("a") + link("b") + joint("j", "a", "b")));
  for (const std::string& path : {unknown, cycle, two}) {
    const testing::CliResult r = testing::run_cli("check '" + path + "'");
    EXPECT_EQ(r.status, 2) << path;
    EXPECT_EQ(r.err.rfind("error: " + path + ": not a valid URDF: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

std::string chain_urdf(int n) {
  std::string body;
  for (int i = 0; i < n; ++i) {
    const std::string name = "l" + std::to_string(i);
    body +=
        link(name) + joint("j" + std::to_string(i), i ? "l" + std::to_string(i - 1) : "base", name);
  }
  return robot(body);
}

// Runs f on a thread whose stack is `bytes` long: what recursed along a chain would
// overflow it.
template <typename F>
void on_small_stack(size_t bytes, F f) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, bytes);
  pthread_t thread;
  auto run = [](void* p) -> void* {
    (*static_cast<F*>(p))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, &f), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

// 2. A chain of 8,000 links (within the 10,000-body limit) loads and compiles on a 1 MiB
// stack: nothing on the URDF path recurses along the chain (the recursive walk and the
// recursive placement of bodies needed about a hundred bytes of stack a link, and more
// under the sanitizers).
TEST(UrdfHardening, LongChainLoadsWithoutRecursion) {
  const int n = 8000;
  const std::string path = write("chain.urdf", chain_urdf(n));
  Scene scene;
  int nu = 0;
  on_small_stack(1u << 20, [&] {
    scene = load_scene(path);
    nu = compile(scene).tree().nu;
  });
  ASSERT_EQ(scene.model.nbody(), n);
  ASSERT_EQ(static_cast<int>(scene.model.constraints().size()), n);
  EXPECT_EQ(nu, n);
  // the tip hangs n × 0.5 below the origin (every joint at zero, links along −z)
  const Body& tip = scene.model.bodies()[scene.model.body_index("l" + std::to_string(n - 1))];
  EXPECT_NEAR(tip.position.z(), -0.5 * n, 1e-9 * n);
}

// The same through the command line, at a length the dense check can afford.
TEST(UrdfHardening, ChainThroughTheCommandLine) {
  const std::string path = write("chain30.urdf", chain_urdf(30));
  const testing::CliResult r = testing::run_cli("check '" + path + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("degrees of freedom: 30\n"), std::string::npos);
}

// 3. Deep XML is refused before urdfdom (and tinyxml2's recursion) sees it.
TEST(UrdfHardening, DeepXmlIsRefusedBeforeParsing) {
  std::string deep = "<robot name=\"r\">\n";
  for (int i = 0; i < 50000; ++i) deep += "<a>";
  const std::string path = write("deep.urdf", deep);
  expect_cli_refuses(
      path, path + ": line 2: element <a> is nested deeper than the limit of 64 XML elements");
  // 64 levels (robot, gazebo, 62 more) load: urdfdom ignores <gazebo>
  std::string ok =
      "<robot name=\"r\"><link name=\"base\"/>" + link("a") + joint("j", "base", "a") + "<gazebo>";
  for (int i = 0; i < 62; ++i) ok += "<g>";
  for (int i = 0; i < 62; ++i) ok += "</g>";
  EXPECT_EQ(testing::load_error(write("deep_ok.urdf", ok + "</gazebo></robot>")), "");
  ok.insert(ok.find("<g>"), "<g>");
  EXPECT_NE(testing::load_error(write("deep_65.urdf", ok + "</g></gazebo></robot>")), "");
}

// A <limit> whose lower bound is above its upper one holds the joint nowhere (the arm sat
// 0.5 rad past both bounds): refused at the joint, as a scene's "limit" and MJCF's range
TEST(UrdfHardening, LimitLowerAboveUpperIsRefused) {
  const std::string path = write(
      "inverted_limit.urdf",
      robot(link("arm") + joint("elbow", "base", "arm", "revolute",
                                R"(<limit lower="0.5" upper="-0.5" effort="1" velocity="1"/>)")));
  expect_cli_refuses(path, path +
                               ": joint 'elbow': <limit> lower 0.5 is above upper -0.5; "
                               "expected lower <= upper");
  // equal bounds hold the joint at one angle: read
  const std::string pinned = write(
      "pinned_limit.urdf",
      robot(link("arm") + joint("elbow", "base", "arm", "revolute",
                                R"(<limit lower="0.2" upper="0.2" effort="1" velocity="1"/>)")));
  EXPECT_EQ(testing::load_error(pinned), "");
}

TEST(UrdfHardening, XmlOutlineSkipsWhatTinyxmlSkips) {
  auto depth_line = [](const std::string& text, int limit) {
    return xml_outline(text, limit).too_deep_line;
  };
  // comments, CDATA, processing instructions, DOCTYPE and quoted '>' open nothing
  const std::string quiet =
      "<?xml version=\"1.0\"?><!DOCTYPE robot><robot a='<b>' c=\"x>y\"><!-- <a><a><a> -->"
      "<![CDATA[<a><a><a>]]><?pi <a><a>?><l/><l></l></robot>";
  EXPECT_EQ(xml_outline(quiet).root, "robot");
  EXPECT_EQ(depth_line(quiet, 2), 0);
  EXPECT_EQ(depth_line("<r>\n<a>\n<b></b></a></r>", 2), 3);
  // tinyxml2 ends any other <! at the first '>': elements after it count
  EXPECT_EQ(depth_line("<r><!DOCTYPE x [ > <a><b></b></a> ]></r>", 2), 1);
  // end tags close, self-closing tags never open
  EXPECT_EQ(depth_line("<r><a></a><a></a><a/><a/></r>", 2), 0);
  EXPECT_EQ(xml_outline("\xEF\xBB\xBF  <mujoco model='m'/>").root, "mujoco");
}

// 4. Every read is bounded, and only regular files are read.
TEST(UrdfHardening, OnlyRegularFilesAreRead) {
  const std::string dir = write("folder.urdf", "");
  std::remove(dir.c_str());
  ::mkdir(dir.c_str(), 0700);
  expect_cli_refuses(dir, dir + ": is a directory, not a file");
  const std::string zero = write("zero.urdf", "");
  std::remove(zero.c_str());
  ASSERT_EQ(::symlink("/dev/zero", zero.c_str()), 0);
  const std::string device =
      ": not a regular file (a device, a pipe or a socket); scenes and URDFs are read from files";
  expect_cli_refuses(zero, zero + device);
  expect_cli_refuses("/dev/zero", "/dev/zero" + device);
  // a FIFO without a writer: refused at once, not waited on
  const std::string fifo = write("fifo.urdf", "");
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(testing::load_error(fifo), fifo + device);
  // through a scene's include, at the include
  const std::string scene = write("zero.json", R"({"include": {"urdf": "zero.urdf"}})");
  EXPECT_EQ(testing::load_error(scene),
            scene + ": /include/urdf: cannot read the URDF file '" + zero + "'" + device);
  std::remove(zero.c_str());
  std::remove(fifo.c_str());
  ::rmdir(dir.c_str());
}

TEST(UrdfHardening, LargeUrdfIsRefusedAtTheLimit) {
  const std::string big =
      write("big.urdf", robot(link("a") + joint("j", "base", "a")) + std::string((16u << 20), ' '));
  const std::string limit = "the file is larger than the limit of 16 MiB for a scene";
  EXPECT_EQ(testing::load_error(big), big + ": " + limit);
  const std::string scene = write("big.json", R"({"include": {"urdf": "big.urdf"}})");
  EXPECT_EQ(testing::load_error(scene),
            scene + ": /include/urdf: cannot read the URDF file '" + big + "': " + limit);
  std::remove(big.c_str());
}

// 5. Names follow the scene format's rule, checked at load with the element named.
TEST(UrdfHardening, NamesMustBeUtf8WithoutCommasOrControls) {
  const std::string bad_utf8 = write("utf8.urdf", robot(link("a\xff"
                                                             "b") +
                                                        joint("j", "base",
                                                              "a\xff"
                                                              "b")));
  expect_cli_refuses(bad_utf8, bad_utf8 + ": link 'a\\xffb': the name is not valid UTF-8");
  const std::string comma = write("comma.urdf", robot(link("a") + joint("j,1", "base", "a")));
  expect_cli_refuses(comma, comma +
                                ": joint 'j,1': the name contains a comma, a double quote or a "
                                "control character; names become CSV column names and may not");
  const std::string newline =
      write("newline.urdf", robot(link("a&#10;b") + joint("j", "base", "a&#10;b")));
  EXPECT_EQ(testing::load_error(newline),
            newline +
                ": link 'a\\nb': the name contains a comma, a double quote "
                "or a control character; names become CSV column names "
                "and may not");
  // an overlong encoding of '/' is not UTF-8 either
  const std::string overlong =
      write("overlong.urdf", robot(link("a\xc0\xaf") + joint("j", "base", "a\xc0\xaf")));
  EXPECT_EQ(testing::load_error(overlong),
            overlong + ": link 'a\\xc0\\xaf': the name is not valid UTF-8");
  const std::string robot_name =
      write("robot_name.urdf", robot(link("a") + joint("j", "base", "a"), "r\xfe"));
  EXPECT_EQ(testing::load_error(robot_name),
            robot_name + ": <robot name='r\\xfe'>: the name is not valid UTF-8");
  // valid UTF-8 passes, and eval's JSON carries it
  const std::string accents =
      write("accents.urdf", robot(link("bras_é") + joint("épaule", "base", "bras_é")));
  const testing::CliResult r = testing::run_cli("eval '" + accents + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  EXPECT_TRUE(out["bodies"].contains("bras_é"));
}

// 6. The format is read from the content: MJCF and other XML are named, a URDF may be .xml.
TEST(UrdfHardening, FormatIsDetectedByContent) {
  const std::string mjcf = write("model.xml", "<mujoco model=\"m\"><worldbody/></mujoco>\n");
  // an MJCF is read as one (tests/mjcf_test.cpp); this one has nothing that moves
  expect_cli_refuses(mjcf, mjcf + ": nothing moves: no body with mass in <worldbody>");
  const std::string sdf = write("world.sdf", "<?xml version=\"1.0\"?>\n<sdf version=\"1.6\"/>");
  expect_cli_refuses(sdf, sdf +
                              ": an XML file whose root element is <sdf> is not a format appell "
                              "reads; appell reads JSON scenes and URDF (root element <robot>)");
  const std::string xml = write("arm.xml", robot(link("a") + joint("j", "base", "a")));
  const testing::CliResult r = testing::run_cli("check '" + xml + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  // includes go by content too
  const std::string inc_xml = write("inc_xml.json", R"({"include": {"urdf": "arm.xml"}})");
  EXPECT_EQ(testing::load_error(inc_xml), "");
  const std::string inc_mjcf = write("inc_mjcf.json", R"({"include": {"urdf": "model.xml"}})");
  EXPECT_EQ(testing::load_error(inc_mjcf),
            inc_mjcf + ": /include/urdf: '" + mjcf +
                "': an MJCF (MuJoCo XML, root element <mujoco>) is included with \"include\": "
                "{\"mjcf\": ...}");
  const std::string inc_json = write("inc_json.json", R"({"include": {"urdf": "inc_xml.json"}})");
  EXPECT_EQ(testing::load_error(inc_json),
            inc_json + ": /include/urdf: '" + inc_xml +
                "' is JSON; a scene includes a URDF (XML, root element "
                "<robot>)");
}

// A pendulum: link "bob" (mass m, centre l below the pin, inertia i0 about it) on a
// continuous joint about y, with <dynamics damping="d">.
constexpr double kM = 2.0, kL = 0.5, kI0 = 0.01, kD = 0.3, kG = 9.81;
std::string pendulum_urdf(double damping) {
  return robot(
      "<link name=\"bob\"><inertial><origin xyz=\"0 0 -0.5\"/><mass value=\"2\"/>"
      "<inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" izz=\"0.01\"/>"
      "</inertial></link><joint name=\"pin\" type=\"continuous\"><parent link=\"base\"/>"
      "<child link=\"bob\"/><axis xyz=\"0 1 0\"/><dynamics damping=\"" +
      std::to_string(damping) + "\" friction=\"0.2\"/></joint>");
}

// 7. <dynamics damping> acts: q̈ = (−m g l sin q − d q̇) / (i0 + m l²), and the energy
// falls at the rate −d q̇².
TEST(UrdfHardening, JointDampingIsApplied) {
  write("pendulum.urdf", pendulum_urdf(kD));
  const double q = 0.7, qd = -1.3, I = kI0 + kM * kL * kL;
  const std::string scene =
      write("pendulum.json", R"({"include": {"urdf": "pendulum.urdf", "q": {"pin": 0.7},
                                  "qd": {"pin": -1.3}}, "integrator": {"dt": 0.001},
                                  "contact": {"joint_friction": false}})");
  const Scene s = load_scene(scene);
  ASSERT_EQ(s.model.forces().size(), 1u);
  EXPECT_EQ(s.model.forces()[0]->type(), "joint_damping");
  const Model m = compile(s);
  const double expected = (-kM * kG * kL * std::sin(q) - kD * qd) / I;
  for (Formulation f : {Formulation::Recursive, Formulation::Pinv, Formulation::Sparse}) {
    Data d(m);
    ASSERT_EQ(forward(m, d, f), SolveStatus::Ok);
    // the bob's angular acceleration about y is q̈
    EXPECT_NEAR(d.udot(m.u_offset(0) + 4), expected, 1e-9 * std::abs(expected));
  }
  // E(T) − E(0) = −d ∫ q̇² dt (trapezoid over the samples of an rk4 run)
  SimulationOptions o = SimulationOptions::from_settings(s.settings);
  o.integrator.duration = 0.5;
  double e0 = 0, e1 = 0, dissipated = 0, w_prev = 0, t_prev = 0;
  const SimulationResult r = simulate(m, o, [&](const Sample& x) {
    const double w = x.data.body[0].w.y();  // the bob's angular velocity: q̇
    if (x.index == 0)
      e0 = x.energy;
    else
      dissipated += 0.5 * (w * w + w_prev * w_prev) * (x.t - t_prev) * kD;
    e1 = x.energy;
    w_prev = w;
    t_prev = x.t;
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT(e1 - e0, -0.1);
  EXPECT_NEAR(e1 - e0, -dissipated, 1e-4 * dissipated);
  // friction is a bounded row of the contact stepper (docs/contact.md), not a force: an
  // undamped pendulum has no force
  write("undamped.urdf", pendulum_urdf(0));
  const Scene u = load_scene(write("undamped.json", R"({"include": {"urdf": "undamped.urdf"}})"));
  EXPECT_TRUE(u.model.forces().empty());
}

// The 7-DoF example arm has damped joints: one damping force a joint, it simulates, and
// its energy never rises.
TEST(UrdfHardening, DampedExampleArmLosesEnergy) {
  const Scene scene =
      load_scene(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/robots/seven_dof_arm.json");
  EXPECT_EQ(scene.model.forces().size(), 7u);
  const Model m = compile(scene);
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.integrator.duration = 0.3;
  double e0 = 0, last = 0, rise = 0;
  const SimulationResult r = simulate(m, o, [&](const Sample& x) {
    if (x.index == 0) e0 = last = x.energy;
    rise = std::max(rise, x.energy - last);
    last = x.energy;
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT(rise, 1e-9 * (1 + std::abs(e0)));
  EXPECT_LT(last, e0 - 1e-3);
}

// 8. Mimic errors name the URDF and the joint, never a pointer into a generated document.
TEST(UrdfHardening, MimicErrorsNameTheUrdfJoint) {
  const std::string fixed_leader =
      write("mimic_fixed.urdf",
            robot(link("a") + link("b") + joint("y", "base", "a", "fixed") +
                  joint("x", "a", "b", "continuous", "<mimic joint=\"y\" multiplier=\"2\"/>")));
  expect_cli_refuses(fixed_leader,
                     fixed_leader +
                         ": joint 'x': <mimic joint='y'>: mimic of fixed joint 'y'; a mimic joins "
                         "revolute, continuous or prismatic joints");
  // a fixed follower has no coordinate: its <mimic> is left out, and the leader stays free
  // (one degree of freedom: y's), whether the welded link has mass or not
  for (const std::string& mass : {std::string(""), std::string("0")}) {
    const std::string b = mass.empty() ? link("b") : "<link name=\"b\"/>";
    const std::string fixed_follower =
        write("mimic_follower" + mass + ".urdf",
              robot(link("a") + b + joint("y", "base", "a") +
                    joint("x", "a", "b", "fixed", "<mimic joint=\"y\" multiplier=\"2\"/>")));
    const Model m = compile(load_scene(fixed_follower));
    EXPECT_EQ(m.tree().nu, 1) << fixed_follower;
    for (const ConstraintPtr& c : m.constraints()) EXPECT_NE(c->type(), "mimic") << c->name();
  }
  const std::string unknown =
      write("mimic_unknown.urdf",
            robot(link("a") + joint("x", "base", "a", "continuous", "<mimic joint=\"nobody\"/>")));
  EXPECT_EQ(testing::load_error(unknown),
            unknown + ": joint 'x': <mimic joint='nobody'>: no joint 'nobody' in the URDF");
  // what the scene parsers find on the URDF's part is said in the URDF's words: a scene
  // that starts the leader and the follower off their mimic
  const std::string ok =
      write("mimic_ok.urdf",
            robot(link("a") + link("b") + joint("y", "base", "a") +
                  joint("x", "a", "b", "continuous", "<mimic joint=\"y\" multiplier=\"2\"/>")));
  const std::string scene =
      write("mimic_off.json", R"({"include": {"urdf": "mimic_ok.urdf", "q": {"x": 1, "y": 0}}})");
  const std::string error = testing::load_error(scene);
  EXPECT_EQ(error.rfind(ok + ": joint 'x': <mimic joint='y'>: constraint 'x_mimic' is violated", 0),
            0u)
      << error;
  EXPECT_EQ(error.find("/constraints"), std::string::npos) << error;
}

// 9. The base is part of the scene: fixed by default, floating when the include says so
// or the URDF has a floating joint from the world.
TEST(UrdfHardening, TheBaseIsStated) {
  const std::string arm = write("base_arm.urdf", robot(link("a") + joint("j", "base", "a")));
  const Scene fixed = load_scene(arm);
  EXPECT_EQ(fixed.robot.urdf, arm);
  EXPECT_FALSE(fixed.robot.floating);
  EXPECT_EQ(fixed.robot.root_link, "base");
  EXPECT_EQ(describe(fixed.robot),
            "fixed: the root link 'base' is the world (the default for a URDF; to float it, "
            "include it in a scene with \"base\": \"floating\")");
  write("base_body.urdf",
        "<robot name=\"r\">" + link("torso") + link("a") + joint("j", "torso", "a") + "</robot>");
  const Scene floating = load_scene(
      write("floating.json", R"({"include": {"urdf": "base_body.urdf", "base": "floating"}})"));
  EXPECT_TRUE(floating.robot.floating);
  EXPECT_EQ(floating.robot.free_joint, "root_joint");
  const std::string own =
      write("own_float.urdf", "<robot name=\"r\"><link name=\"world\"/>" + link("torso") +
                                  joint("float", "world", "torso", "floating") + "</robot>");
  const Scene s = load_scene(own);
  EXPECT_TRUE(s.robot.floating);
  EXPECT_EQ(describe(s.robot), "floating: the URDF's floating joint 'float'");
  // a fixed base with every link welded to the root moves nothing, and says what to do
  const std::string welded =
      write("welded.urdf", "<robot name=\"r\">" + link("torso") + link("a") +
                               joint("j", "torso", "a", "fixed") + "</robot>");
  EXPECT_EQ(testing::load_error(welded),
            welded +
                ": nothing moves: every link is welded to the root link 'torso', which a fixed "
                "base makes the world (to float the robot, include it in a scene with \"base\": "
                "\"floating\")");
  EXPECT_EQ(
      describe(load_scene(write("plain.json",
                                R"({"bodies": [{"name": "p", "type": "particle", "mass": 1}]})"))
                   .robot),
      "");
  // check prints it, beside the base the spanning tree shows
  const testing::CliResult r = testing::run_cli("check '" + arm + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("robot base: " + describe(fixed.robot) + "\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace appell
