// The contact detector (engine/contact/collision.cpp, Bullet) against closed forms: the
// signed gap of spheres, capsules, boxes and cylinders on planes and on each other, the
// manifolds where surfaces meet flat, the normal from a to b, the point midway
// (collision_pairs_test.cpp: the pair's μ and e, and the filters).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <set>

#include "appell/appell.hpp"
#include "appell/contact.hpp"
#include "appell/geometry.hpp"
#include "tests/collision_world.hpp"

namespace appell {
namespace {

using testing::box;
using testing::plane;
using testing::rigid;
using testing::rot;
using testing::sphere;
using testing::World;

TEST(Collision, NoShapesNoDetector) {
  ModelBuilder b;
  b.add_body(rigid("a"));
  EXPECT_EQ(make_contact_detector(compile(b)), nullptr);
}

// gap = height − r, above and below the plane, on a plane through the origin and on a
// tilted one (n·x − r); the normal from the plane (a) to the sphere (b); the point midway.
TEST(Collision, SpherePlaneGapIsHeightMinusRadius) {
  const double r = 0.3;
  for (double angle : {0.0, 0.4}) {
    const Quat q(Eigen::AngleAxisd(angle, Vec3::UnitX()));
    World w(1, {plane(q), sphere(0, r)});
    const Vec3 n = q * Vec3::UnitZ();
    for (double h : {0.5, 0.3005, 0.3, 0.29, 0.1}) {
      const Vec3 x = Vec3(0.2, 0, 0) + h * n + 0.7 * n.cross(Vec3::UnitX());  // x̂ ⟂ n
      w.place(0, x);
      const auto pts = w.detect(1.0);
      ASSERT_EQ(pts.size(), 1u) << h;
      const ContactPoint& c = pts[0];
      EXPECT_NEAR(c.gap, h - r, 1e-12) << h;
      EXPECT_NEAR((c.normal - n).norm(), 0.0, 1e-12);
      EXPECT_EQ(c.shape_a, 0);
      EXPECT_EQ(c.shape_b, 1);
      EXPECT_EQ(c.body_a, kWorld);
      EXPECT_EQ(c.body_b, 0);
      const Vec3 bottom = x - r * n, on_plane = x - h * n;
      EXPECT_NEAR((c.point - 0.5 * (bottom + on_plane)).norm(), 0.0, 1e-12);
    }
    // farther than the margin: nothing
    w.place(0, Vec3::Zero() + (r + 0.2) * n);
    EXPECT_TRUE(w.detect(0.1).empty());
    EXPECT_EQ(w.detect(0.3).size(), 1u);
  }
}

// the plane listed after the sphere: a is the sphere, the normal points down into the plane
TEST(Collision, PlaneSecondNormalPointsIntoIt) {
  World w(1, {sphere(0, 0.2), plane()});
  w.place(0, Vec3(1, 2, 0.25));
  const auto pts = w.detect(0.1);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_EQ(pts[0].shape_a, 0);
  EXPECT_EQ(pts[0].body_a, 0);
  EXPECT_EQ(pts[0].body_b, kWorld);
  EXPECT_NEAR(pts[0].gap, 0.05, 1e-15);
  EXPECT_EQ(pts[0].normal, Vec3(0, 0, -1));
  EXPECT_NEAR((pts[0].point - Vec3(1, 2, 0.025)).norm(), 0.0, 1e-15);
}

// A sphere over a box's face meets it along the face's normal whatever way the sphere's body
// is turned (a sphere on a hinged link turned by 0.8 rad above a world box); before, the
// normal came out turned with the sphere, and a link swinging onto a table went through it.
TEST(Collision, SphereOnABoxFaceWhateverItsTurn) {
  Shape table = box(kWorld, Vec3(2, 2, 0.1));
  table.position = Vec3(0, 0, -0.1);  // its top face is z = 0
  for (const double turn : {0.0, 0.3, 0.8, 1.4, 2.5})
    for (const double height : {0.06, 0.0505, 0.045}) {
      World w(1, {sphere(0, 0.05), table});
      w.place(0, Vec3(0.35, 0.27, height), rot(Vec3(1, 0.2, 0), turn));
      const auto pts = w.detect(0.1);
      ASSERT_EQ(pts.size(), 1u) << turn << " " << height;
      const ContactPoint& c = pts[0];
      const Vec3 down = c.body_a == 0 ? Vec3(0, 0, -1) : Vec3(0, 0, 1);  // from a to b
      EXPECT_NEAR((c.normal - down).norm(), 0.0, 1e-9) << turn << " " << height;
      EXPECT_NEAR(c.gap, height - 0.05, 1e-9) << turn << " " << height;
      EXPECT_NEAR((c.point - Vec3(0.35, 0.27, 0.5 * (height - 0.05))).norm(), 0.0, 1e-9);
    }
}

// A turned box a little above another meets it face to face in four corners, each at the
// gap, along the faces' normal (the clipping takes GJK's normal in the world; in the first
// box's own frame it missed the faces and left a single point).
TEST(Collision, TurnedBoxAboveABoxGivesFourCorners) {
  for (const double turn : {0.0, M_PI / 2, M_PI}) {
    World w(2, {box(0, Vec3(0.1, 0.2, 0.3)), box(1, Vec3(1, 1, 0.1))});
    // turned about x by π/2 its half extents in the world are (0.1, 0.3, 0.2)
    const double half_z = std::abs(std::cos(turn)) > 0.5 ? 0.3 : 0.2;
    w.place(0, Vec3(0.05, -0.02, 0.1 + half_z + 0.005), rot(Vec3::UnitX(), turn));
    w.place(1, Vec3::Zero());
    const auto pts = w.detect(0.05);
    ASSERT_EQ(pts.size(), 4u) << turn;
    for (const ContactPoint& c : pts) {
      EXPECT_NEAR(c.gap, 0.005, 1e-9) << turn;
      EXPECT_NEAR((c.normal - Vec3(0, 0, -1)).norm(), 0.0, 1e-9) << turn;  // from a to b
      EXPECT_NEAR(c.point.z(), 0.1 + 0.0025, 1e-9) << turn;
    }
  }
}

// two spheres: gap = |c2 − c1| − r1 − r2, normal along c2 − c1, separated and overlapping
TEST(Collision, SphereSphere) {
  World w(2, {sphere(0, 0.5), sphere(1, 0.25)});
  const Vec3 dir = Vec3(1, 2, -0.5).normalized();
  for (double dist : {0.9, 0.76, 0.7, 0.3}) {
    w.place(0, Vec3(0.1, 0.2, 0.3));
    w.place(1, Vec3(0.1, 0.2, 0.3) + dist * dir, rot(Vec3(1, 1, 0), 0.7));
    const auto pts = w.detect(0.2);
    ASSERT_EQ(pts.size(), 1u) << dist;
    EXPECT_NEAR(pts[0].gap, dist - 0.75, 1e-12);
    EXPECT_NEAR((pts[0].normal - dir).norm(), 0.0, 1e-9);
    const Vec3 on_a = Vec3(0.1, 0.2, 0.3) + 0.5 * dir;
    const Vec3 on_b = Vec3(0.1, 0.2, 0.3) + (dist - 0.25) * dir;
    EXPECT_NEAR((pts[0].point - 0.5 * (on_a + on_b)).norm(), 0.0, 1e-9);
  }
  w.place(1, Vec3(0.1, 0.2, 0.3) + 1.0 * dir);
  EXPECT_TRUE(w.detect(0.2).empty());
}

// a capsule lying on a plane touches at both ends; tilted by α, its ends' heights differ
// by L sin α, and the gap of each is that height minus r
TEST(Collision, CapsulePlaneEnds) {
  Shape cap;
  cap.type = ShapeType::Capsule;
  cap.body = 0;
  cap.radius = 0.1;
  cap.length = 0.8;
  World w(1, {plane(), cap});
  for (double alpha : {0.0, 0.01}) {
    const Mat3 Q = rot(Vec3::UnitY(), M_PI / 2 + alpha);  // capsule axis near world x
    const Vec3 x(0.3, 0.4, 0.1 + 2e-4);
    w.place(0, x, Q);
    const auto pts = w.detect(0.01);
    ASSERT_EQ(pts.size(), 2u) << alpha;
    std::set<double> want, got;
    for (double s : {-0.4, 0.4}) want.insert((x + Q * Vec3(0, 0, s)).z() - 0.1);
    for (const ContactPoint& c : pts) {
      EXPECT_NEAR((c.normal - Vec3::UnitZ()).norm(), 0.0, 1e-15);
      bool match = false;
      for (double g : want) match = match || std::abs(c.gap - g) < 1e-12;
      EXPECT_TRUE(match) << c.gap;
      got.insert(c.feature);
    }
    EXPECT_EQ(got.size(), 2u);  // the two ends, two features
  }
}

// A capsule lying along a box's top face touches it along a line: its two ends, each gap
// the end's height less the radius; along the box's edge, its two ends again, each at the
// edge's distance to the axis less the radius.
TEST(Collision, CapsuleAlongABoxFaceGivesItsEnds) {
  Shape cap;
  cap.type = ShapeType::Capsule;
  cap.body = 0;
  cap.radius = 0.05;
  cap.length = 0.4;
  Shape box;
  box.type = ShapeType::Box;
  box.body = 1;
  box.half_extents = Vec3(0.5, 0.5, 0.1);
  World w(2, {cap, box});
  w.place(1, Vec3::Zero());
  for (double alpha : {0.0, 0.02}) {
    const Mat3 Q = rot(Vec3::UnitY(), M_PI / 2 + alpha);  // axis near world x
    const Vec3 x(0.1, 0.2, 0.1 + 0.05 + 3e-4);
    w.place(0, x, Q);
    const auto pts = w.detect(0.01);
    std::vector<double> want;
    for (double s : {-0.2, 0.2}) {
      const double g = (x + Q * Vec3(0, 0, s)).z() - 0.1 - 0.05;
      if (g < 0.01) want.push_back(g);
    }
    ASSERT_EQ(pts.size(), want.size()) << alpha;
    for (const ContactPoint& c : pts) {
      EXPECT_NEAR(std::abs(c.normal.z()), 1.0, 1e-9)
          << c.normal.transpose() << " p " << c.point.transpose() << " f " << c.feature << " gap "
          << c.gap;
      bool match = false;
      for (double g : want) match = match || std::abs(c.gap - g) < 1e-9;
      EXPECT_TRUE(match) << c.gap;
    }
  }
  // along the box's edge x = 0.5, z = 0.1, the axis parallel to it (world y)
  const Mat3 Q = rot(Vec3::UnitX(), M_PI / 2);
  const Vec3 x(0.5 + 0.03, 0.0, 0.1 + 0.03);
  w.place(0, x, Q);
  const auto pts = w.detect(0.05);
  ASSERT_EQ(pts.size(), 2u);
  std::set<int> features;
  for (const ContactPoint& c : pts) {
    EXPECT_NEAR(c.gap, std::hypot(0.03, 0.03) - 0.05, 1e-9);
    features.insert(c.feature);
  }
  EXPECT_EQ(features.size(), 2u);
}

// A box resting on a plane tilted by a known angle, itself turned a little about the
// plane's normal and tilted by β about the plane's x: the four bottom corners within the
// margin, each gap the corner's signed height above the plane.
TEST(Collision, BoxOnTiltedPlaneGivesFourCorners) {
  const double theta = 0.3, beta = 2e-4;
  const Quat q(Eigen::AngleAxisd(theta, Vec3::UnitX()));
  const Vec3 half(0.5, 0.3, 0.2);
  World w(1, {plane(q), box(0, half)});
  const Mat3 Rp = q.toRotationMatrix();
  const Vec3 n = Rp.col(2);
  const Mat3 Q = Rp * rot(Vec3::UnitZ(), 0.4) * rot(Vec3::UnitX(), beta);
  const Vec3 x = Rp * Vec3(0.7, -0.2, 0.2 - 1e-5);
  w.place(0, x, Q);
  const double margin = 1e-3;
  const auto pts = w.detect(margin);
  std::vector<double> heights;
  for (int k = 0; k < 8; ++k) {
    const Vec3 corner(k & 1 ? half.x() : -half.x(), k & 2 ? half.y() : -half.y(),
                      k & 4 ? half.z() : -half.z());
    const Vec3 p = x + Q * corner;
    if (n.dot(p) < margin) heights.push_back(n.dot(p));
  }
  ASSERT_EQ(heights.size(), 4u);
  ASSERT_EQ(pts.size(), 4u);
  std::set<int> features;
  for (const ContactPoint& c : pts) {
    EXPECT_NEAR((c.normal - n).norm(), 0.0, 1e-15);
    double best = 1e9;
    for (double h : heights) best = std::min(best, std::abs(c.gap - h));
    EXPECT_LT(best, 1e-12) << c.gap;
    // the point is midway between the corner and the plane: its height is gap / 2
    EXPECT_NEAR(n.dot(c.point), 0.5 * c.gap, 1e-12);
    features.insert(c.feature);
  }
  EXPECT_EQ(features.size(), 4u);  // the corners' indices, distinct
  // corners at heights of a few β: a margin below them gives only those below
  EXPECT_LT(w.detect(1e-5).size(), 4u);
}

// Two stacked boxes, the upper shifted: the corners of the overlap of their faces, apart
// by δ and overlapping by δ; the normal from the lower box (a) up.
TEST(Collision, BoxOnBoxGivesTheOverlapsCorners) {
  const Vec3 half(0.5, 0.3, 0.2);
  World w(2, {box(0, half), box(1, half)});
  for (double delta : {1e-4, -1e-4}) {
    w.place(0, Vec3::Zero());
    w.place(1, Vec3(0.1, 0.05, 0.4 + delta));
    const auto pts = w.detect(1e-3);
    ASSERT_EQ(pts.size(), 4u) << delta;
    std::set<std::pair<long, long>> corners;
    for (const ContactPoint& c : pts) {
      EXPECT_NEAR(c.gap, delta, 1e-12);
      EXPECT_NEAR((c.normal - Vec3::UnitZ()).norm(), 0.0, 1e-12);
      EXPECT_NEAR(c.point.z(), 0.2 + delta / 2, 1e-12);
      corners.insert({std::lround(c.point.x() * 100), std::lround(c.point.y() * 100)});
      EXPECT_EQ(c.body_a, 0);
      EXPECT_EQ(c.body_b, 1);
    }
    // the overlap is [−0.4, 0.5] × [−0.25, 0.3]
    const std::set<std::pair<long, long>> want = {{-40, -25}, {-40, 30}, {50, -25}, {50, 30}};
    EXPECT_EQ(corners, want);
  }
}

TEST(Collision, BoxOnBoxTurnedByARoundingErrorKeepsItsFourCorners) {
  // the upper box turned about x by 1e-9 rad and set so that its face crosses the lower
  // one's: two corners overlap by 1e-10 m, two are 1e-10 m apart.  Every corner is a contact
  // at its own gap (the rigid face's: ± 1e-10 m), not only the two that overlap.
  const Vec3 half(0.1, 0.1, 0.1);
  World w(2, {box(0, half), box(1, half)});
  const double tilt = 1e-9;
  w.place(0, Vec3::Zero());
  w.place(1, Vec3(0, 0, 0.2), rot(Vec3::UnitX(), tilt));
  const auto pts = w.detect(1e-3);
  ASSERT_EQ(pts.size(), 4u);
  int above = 0;
  for (const ContactPoint& c : pts) {
    // the corner at y = ±0.1 of the upper face is raised by ±0.1 tilt
    const double want = (c.point.y() > 0 ? 1 : -1) * 0.1 * tilt;
    EXPECT_NEAR(c.gap, want, 1e-13);
    above += c.gap > 0;
  }
  EXPECT_EQ(above, 2);
}

// a cylinder standing on its face: its bottom rim's points, all at the gap δ, on the
// circle of radius r
TEST(Collision, CylinderOnItsFaceGivesRimPoints) {
  Shape cyl;
  cyl.type = ShapeType::Cylinder;
  cyl.body = 0;
  cyl.radius = 0.3;
  cyl.length = 0.4;
  World w(1, {plane(), cyl});
  const Vec3 x(0.5, -0.2, 0.2 + 3e-5);
  w.place(0, x, rot(Vec3::UnitZ(), 0.3));
  const auto pts = w.detect(1e-3);
  ASSERT_GE(pts.size(), 3u);
  for (const ContactPoint& c : pts) {
    EXPECT_NEAR(c.gap, 3e-5, 1e-12);
    EXPECT_NEAR((c.point - x).head<2>().norm(), 0.3, 1e-12);
  }
  // tilted by 0.2 rad: one rim point is deepest, at height z − (L/2) cos − r sin
  w.place(0, Vec3(0, 0, 0.2), rot(Vec3::UnitX(), 0.2));
  const auto tilted = w.detect(1e-3);
  ASSERT_FALSE(tilted.empty());
  double low = 1e9;
  for (const ContactPoint& c : tilted) low = std::min(low, c.gap);
  EXPECT_NEAR(low, 0.2 - 0.2 * std::cos(0.2) - 0.3 * std::sin(0.2), 1e-12);
}

// a body state that is not finite gives no point (and no crash); the others still do
TEST(Collision, NonFiniteStatesGiveNothing) {
  World w(3, {plane(), sphere(0, 0.5), sphere(1, 0.5), sphere(2, 0.5)});
  w.place(0, Vec3(0, 0, std::nan("")));
  w.place(1, Vec3(0.2, 0, 0.4));
  w.place(2, Vec3(0.4, 0, 0.4), Mat3::Constant(std::numeric_limits<double>::infinity()));
  const auto pts = w.detect(1e-3);
  ASSERT_EQ(pts.size(), 1u);  // sphere 1 on the plane
  EXPECT_EQ(pts[0].body_b, 1);
  EXPECT_NEAR(pts[0].gap, -0.1, 1e-12);
  w.place(0, Vec3(0, 0, 0.4));
  w.place(2, Vec3(5, 0, 5));
  EXPECT_EQ(w.detect(1e-3).size(), 3u);  // finite again: two on the plane, 0–1 overlap
}

}  // namespace
}  // namespace appell
