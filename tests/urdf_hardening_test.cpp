// URDF import and the scene file reader against hostile and unusual input: loops in the
// tree, chains as long as the body limit, deep XML, unbounded files, names that cannot be
// CSV columns or JSON keys, formats appell does not read.  Every bad input ends as one
// located line (urdf_joints_test.cpp: joint damping, mimics, and the base a URDF gets).
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
#include "tests/urdf_files.hpp"

namespace appell {
namespace {

using urdf_test::expect_cli_refuses;
using urdf_test::joint;
using urdf_test::link;
using urdf_test::robot;
using urdf_test::write;

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

}  // namespace
}  // namespace appell
