// Bounds of the MJCF and URDF loaders (scenes/xml_outline.hpp, scenes/mjcf.cpp): what a
// document may hold is checked before the work it would cause, and the work is linear in
// the document.  The documents are generated here at sizes where a quadratic step would
// take tens of seconds (or gigabytes); the assertions are on the outcome (the error, its
// place, the count of warnings kept), not on time.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <string>

#include "tests/cli_util.hpp"

namespace appell {
namespace {

std::string error_of(const std::string& text, const std::string& file = "model.xml") {
  try {
    load_scene_from_string(text, file);
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

// tinyxml2 compares each attribute of an element with those before it: an element of
// 80,000 attributes took 17 s to parse.  The scan before the parse stops at the first
// element past 256 attributes (MJCF and URDF elements have fewer than 50).
TEST(XmlLimits, AttributesOfOneElement) {
  std::string many = "<mujoco>\n<option";
  for (int i = 0; i < 100000; ++i) many += " a" + std::to_string(i) + "='1'";
  many += "/></mujoco>";
  EXPECT_EQ(error_of(many),
            "model.xml:2: element <option> has more than the limit of 256 attributes");
  std::string robot = "<robot name='r'>\n<link name='a'";
  for (int i = 0; i < 300; ++i) robot += " a" + std::to_string(i) + "='1'";
  robot += "/></robot>";
  EXPECT_EQ(error_of(robot, "r.urdf"),
            "r.urdf: line 2: element <link> has more than the limit of 256 attributes");
}

// A document of more than 1,000,000 elements is refused at the first one past, before
// tinyxml2 builds it
TEST(XmlLimits, ElementsOfOneDocument) {
  std::string many = "<mujoco>";
  many.reserve(4100000);
  for (int i = 0; i < 999999; ++i) many += "<a/>";  // with <mujoco>: 1,000,000
  many += "\n<b/></mujoco>";
  EXPECT_EQ(error_of(many), "model.xml:2: element <b> is past the limit of 1000000 XML elements");
}

// 30,000 unread attributes, each of its own name on its own element (each a warning):
// every warning's place is found in O(depth), and 100 are kept with a count of the rest
TEST(XmlLimits, WarningsAreLinearAndCapped) {
  std::string xml = "<mujoco><worldbody><body name='b'><joint/><geom size='0.1'/></body>\n";
  for (int i = 0; i < 30000; ++i)
    xml += "<site name='s" + std::to_string(i) + "' x" + std::to_string(i) + "='1'/>";
  xml += "</worldbody><sensor/></mujoco>";
  const Scene s = load_scene_from_string(xml, "model.xml");
  ASSERT_EQ(s.warnings.size(), 101u);
  EXPECT_EQ(s.warnings.back(), "model.xml: 29901 more warnings not shown (the first 100 are)");
}

// 12,000 bodies: refused at the 10,001st, counted before any is converted
TEST(XmlLimits, BodiesAreCountedFirst) {
  std::string xml = "<mujoco><worldbody>\n";
  for (int i = 0; i < 12000; ++i) xml += "<body><joint/><geom size='0.1'/></body>\n";
  xml += "</worldbody></mujoco>";
  EXPECT_EQ(error_of(xml),
            "model.xml:10002: /mujoco/worldbody/body[10001]: more than the limit of 10000 bodies");
}

// 12,000 geoms in one body: refused at the 10,001st (a body's shapes are one list)
TEST(XmlLimits, GeomsOfOneBodyAreCountedFirst) {
  std::string xml = "<mujoco><worldbody><body name='b'><joint/>\n";
  for (int i = 0; i < 12000; ++i) xml += "<geom size='0.1'/>\n";
  xml += "</body></worldbody></mujoco>";
  EXPECT_EQ(error_of(xml),
            "model.xml:10002: /mujoco/worldbody/body/geom[10001]: more than the "
            "limit of 10000 geoms in one body");
}

// 2,000 default classes under a main class of 50,000 attributes, used by 5,000 geoms: a
// class holds only what its own <default> says (copying the main's into each class took
// some 10 GB); every geom still reads the main's density through its class
TEST(XmlLimits, DefaultClassesAreNotCopied) {
  std::string xml = "<mujoco><default>\n";
  for (int k = 0; k < 200; ++k) {
    xml += "<geom";
    for (int i = 0; i < 250; ++i)
      xml += " u" + std::to_string(k) + "_" + std::to_string(i) + "='1'";
    xml += "/>\n";
  }
  xml += "<geom density='2000'/>\n";
  for (int c = 0; c < 2000; ++c) xml += "<default class='c" + std::to_string(c) + "'/>\n";
  xml += "</default><worldbody><body name='b'><joint/>\n";
  for (int g = 0; g < 5000; ++g)
    xml += "<geom class='c" + std::to_string(g % 2000) + "' type='box' size='0.1 0.1 0.1'/>\n";
  xml += "</body></worldbody></mujoco>";
  const Scene s = load_scene_from_string(xml, "model.xml");
  EXPECT_NEAR(s.model.bodies().at(0).mass, 5000 * 2000 * 0.008, 1e-6);
  EXPECT_EQ(s.warnings.size(), 101u);
}

}  // namespace
}  // namespace appell
