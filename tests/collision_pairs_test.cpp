// The contact detector's pairs (engine/contact/collision.cpp): the pair's μ and e, the
// groups, masks and exclusions that keep shapes apart, a mesh that is a box, and a pile.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "appell/appell.hpp"
#include "appell/contact.hpp"
#include "appell/geometry.hpp"
#include "tests/collision_world.hpp"

namespace appell {
namespace {

using testing::box;
using testing::plane;
using testing::sphere;
using testing::World;

// μ = √(μa μb), e = max(ea, eb) on every point of a pair
TEST(Collision, PairCoefficients) {
  Shape p = plane();
  p.friction = 0.9;
  p.restitution = 0.1;
  Shape s = sphere(0, 0.1);
  s.friction = 0.4;
  s.restitution = 0.7;
  World w(1, {p, s});
  w.place(0, Vec3(0, 0, 0.1));
  const auto pts = w.detect(1e-3);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].friction, 0.6, 1e-15);
  EXPECT_EQ(pts[0].restitution, 0.7);
}

// filters: group/mask bits; two shapes of one body never
TEST(Collision, GroupsAndMasks) {
  Shape a = sphere(0, 0.5), b = sphere(1, 0.5), c = sphere(0, 0.2);
  a.group = 2;
  b.mask = ~2u;
  World w(2, {a, b, c});
  w.place(0, Vec3::Zero());
  w.place(1, Vec3(0.6, 0, 0));
  // a–b filtered out by b's mask, a–c on one body; c–b: 0.6 − 0.7 < 0
  auto pts = w.detect(1e-3);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_EQ(pts[0].shape_a, 1);
  EXPECT_EQ(pts[0].shape_b, 2);  // indices: a = 0, b = 1, c = 2; ordered a < b
  EXPECT_NEAR(pts[0].gap, 0.6 - 0.7, 1e-12);
  EXPECT_NEAR((pts[0].normal - Vec3(-1, 0, 0)).norm(), 0.0, 1e-12);  // from b (shape 1) to c
}

// Shapes the filters keep from every other convex shape meet the planes alone (the
// detector leaves them out of its broad phase); a pair that may meet still does.  Two
// overlapping spheres 0.02 into a plane: with b's mask without a's group, two plane
// points; with the pair allowed, also the spheres' own.
TEST(Collision, ShapesKeptFromEachOtherStillMeetThePlane) {
  for (const bool apart : {true, false}) {
    Shape a = sphere(0, 0.5), b = sphere(1, 0.5);
    a.group = 2;
    if (apart) b.mask = ~2u;
    World w(2, {plane(), a, b});
    w.place(0, Vec3(0, 0, 0.48));
    w.place(1, Vec3(0.6, 0, 0.48));
    std::set<std::pair<int, int>> pairs;
    for (const ContactPoint& c : w.detect(1e-3)) {
      pairs.insert({c.shape_a, c.shape_b});
      const double gap = c.shape_a == 0 ? -0.02 : 0.6 - 1.0;  // a plane point, or a–b
      EXPECT_NEAR(c.gap, gap, 1e-12);
    }
    std::set<std::pair<int, int>> want = {{0, 1}, {0, 2}};
    if (!apart) want.insert({1, 2});
    EXPECT_EQ(pairs, want) << apart;
  }
}

// a joint's parent and child are not tested (unless a shape asks), nor welded bodies
TEST(Collision, JoinedAndWeldedBodiesExcluded) {
  const std::string scene = R"({"bodies": [
      {"name": "a", "mass": 1, "inertia": {"sphere": 0.1}, "position": [0, 0, 0],
       "shapes": [{"type": "sphere", "radius": 0.5}]},
      {"name": "b", "mass": 1, "inertia": {"sphere": 0.1}, "position": [0.6, 0, 0],
       "shapes": [{"type": "sphere", "radius": 0.5JOINED}]},
      {"name": "c", "mass": 1, "inertia": {"sphere": 0.1}, "position": [0, 0.6, 0],
       "shapes": [{"type": "sphere", "radius": 0.5}]}],
    "constraints": [
      {"name": "hinge", "type": "revolute", "bodies": ["a", "b"], "anchor": [0.3, 0, 0], "axis": [0, 0, 1]},
      {"name": "weld", "type": "fixed", "bodies": ["a", "c"]}]})";
  for (const bool joined : {false, true}) {
    std::string text = scene;
    text.replace(text.find("JOINED"), 6, joined ? ", \"collide_with_joined\": true" : "");
    const Model m = load_model_from_string(text);
    Data d(m);
    ASSERT_EQ(forward(m, d), SolveStatus::Ok);
    auto det = make_contact_detector(m);
    std::vector<ContactPoint> pts;
    det->detect(m, d, 1e-3, pts);
    // a–c welded: never; a–b hinged: only when asked; b–c overlap (|(0.6, −0.6)| < 1) and
    // are not joined
    std::set<std::pair<int, int>> pairs;
    for (const ContactPoint& c : pts) pairs.insert({c.body_a, c.body_b});
    std::set<std::pair<int, int>> want = {{1, 2}};
    if (joined) want.insert({0, 1});
    EXPECT_EQ(pairs, want) << joined;
  }
}

// a cube mesh (OBJ written here) behaves as the box: four corners on the plane, the
// overlap's corners on a box
TEST(Collision, CubeMeshIsTheBox) {
  const std::string obj = ::testing::TempDir() + "collision_cube.obj";
  {
    std::ofstream f(obj);
    for (int k = 0; k < 8; ++k)
      f << "v " << (k & 1 ? 0.5 : -0.5) << " " << (k & 2 ? 0.5 : -0.5) << " "
        << (k & 4 ? 0.5 : -0.5) << "\n";
    f << "f 1 3 4 2\nf 5 6 8 7\nf 1 2 6 5\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6\n";
  }
  const std::string text = R"({"shapes": [{"type": "plane"}], "bodies": [
      {"name": "cube", "mass": 1, "inertia": {"box": [1, 1, 1]}, "position": [0.2, 0.1, 0.49999],
       "shapes": [{"type": "mesh", "file": ")" +
                           obj + R"("}]},
      {"name": "box", "mass": 1, "inertia": {"box": [1, 1, 1]}, "position": [0.5, 0.3, 1.50002],
       "shapes": [{"type": "box", "size": [1, 1, 1]}]}]})";
  const Model m = load_model_from_string(text);
  ASSERT_EQ(m.shapes().size(), 3u);
  ASSERT_EQ(m.shapes()[0].type, ShapeType::ConvexMesh);  // the bodies' shapes, then the world's
  Data d(m);
  ASSERT_EQ(forward(m, d), SolveStatus::Ok);
  auto det = make_contact_detector(m);
  std::vector<ContactPoint> pts;
  det->detect(m, d, 1e-3, pts);
  int on_plane = 0, on_cube = 0;
  for (const ContactPoint& c : pts) {
    if (c.shape_a == 0 && c.shape_b == 2) {
      ++on_plane;
      EXPECT_NEAR(c.gap, -1e-5, 1e-12);
      EXPECT_EQ(c.normal, Vec3(0, 0, -1));  // from the cube (a) into the plane (b)
    } else if (c.shape_a == 0 && c.shape_b == 1) {
      ++on_cube;
      EXPECT_NEAR(c.gap, 3e-5, 1e-12);  // cube top 0.99999, box bottom 1.00002
    }
  }
  EXPECT_EQ(on_plane, 4);
  EXPECT_EQ(on_cube, 4);
}

// a pile of 20 boxes on the ground: 4 corners per face contact, 20 contacts
TEST(Collision, PileOfBoxes) {
  std::vector<Shape> shapes = {plane()};
  for (int i = 0; i < 20; ++i) shapes.push_back(box(i, Vec3(0.5, 0.3, 0.2)));
  World w(20, shapes);
  for (int i = 0; i < 20; ++i) w.place(i, Vec3(0.01 * i, 0, 0.2 + 0.4 * i - 1e-6));
  const auto pts = w.detect(1e-4);
  EXPECT_EQ(pts.size(), 80u);
  for (const ContactPoint& c : pts) EXPECT_LT(c.gap, 1e-4);
}

}  // namespace
}  // namespace appell
