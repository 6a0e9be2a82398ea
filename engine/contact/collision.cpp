// Bullet's collision library behind ContactDetector (why Bullet: collision.hpp).
//
// Per query: every shape's world pose from d.body, its AABB grown by margin/2 into the
// broad phase (so two shapes closer than the margin overlap), then per candidate pair (two
// convex shapes in collision_convex.cpp):
//   box–box        overlapping: Bullet's box–box detector (up to 4 points, exact depths)
//   convex–convex  GJK/EPA signed distance; for two polyhedra the clipped manifold of
//                  their facing faces (each point's depth measured by Bullet against the
//                  reference face), kept when its deepest point agrees with GJK/EPA
//   plane–convex   the support vertex against the plane normal (the deepest point), and
//                  the shape's features near the plane: box corners, hull vertices, the
//                  rims of a cylinder (8 points each), the two ends of a capsule
// Planes are not in the broad phase (their AABB is infinite): each is paired with every
// other shape that its filters allow.
#include "engine/contact/collision.hpp"

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionShapes/btPolyhedralConvexShape.h>
#include <LinearMath/btAabbUtil2.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <unordered_set>

#include "appell/joint.hpp"
#include "appell/model.hpp"
#include "appell/tree.hpp"
#include "engine/contact/collision_pairs.hpp"
#include "engine/contact/shapes/shape_kind.hpp"

namespace appell {

namespace collision_detail {

ContactPoint pair_point(const Model& m, int a, int b, const Vec3& at, const Vec3& normal,
                        double gap, int feature) {
  const Shape& sa = m.shapes()[a];
  const Shape& sb = m.shapes()[b];
  ContactPoint c;
  c.shape_a = a;
  c.shape_b = b;
  c.body_a = sa.body;
  c.body_b = sb.body;
  c.point = at;
  c.normal = normal;
  c.gap = gap;
  c.friction = pair_friction(sa, sb, m.friction_rule());
  c.restitution = pair_restitution(sa, sb);
  c.feature = feature;
  return c;
}

namespace {

std::uint64_t pair_key(int a, int b) {
  if (a > b) std::swap(a, b);
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a + 1)) << 32) |
         static_cast<std::uint32_t>(b + 1);
}

class BulletDetector final : public ContactDetector {
 public:
  explicit BulletDetector(const Model& m) {
    const std::vector<Shape>& shapes = m.shapes();
    entries_.resize(shapes.size());
    BulletMeshes meshes;
    for (size_t i = 0; i < shapes.size(); ++i) {
      DetectorEntry& e = entries_[i];
      const Shape& s = shapes[i];
      e.body = s.body;
      e.R0 = s.orientation.normalized().toRotationMatrix();
      e.kind = &s.type.kind();
      if (e.kind->bullet) e.shape = e.kind->bullet(s, meshes);
      if (!e.shape) {
        planes_.push_back(static_cast<int>(i));
        continue;
      }
      e.polyhedron =
          e.shape->isPolyhedral()
              ? static_cast<btPolyhedralConvexShape*>(e.shape.get())->getConvexPolyhedron()
              : nullptr;
      // a sphere about the shape's origin holding it: its box in its own frame, corner to
      // origin (Bullet's margin included)
      btTransform own;
      own.setIdentity();
      btVector3 lo, hi;
      e.shape->getAabb(own, lo, hi);
      for (int k = 0; k < 3; ++k) lo[k] = std::max(std::abs(lo[k]), std::abs(hi[k]));
      e.radius = lo.length();
    }
    // bodies a joint joins (parent and child); welded bodies share a composite.  A free
    // joint constrains nothing and joins nothing: a body floating on one from the world (an
    // MJCF <freejoint>, a robot's floating base) still lands on the world's ground.  Nor
    // does a joint that moves its body join it to the world (MuJoCo's parent filter leaves
    // out body 0 too): a link jointed to the world still meets the world's floor and walls;
    // a body welded to the world never does.
    for (const Joint* j : m.joints()) {
      if (j->rows() == 0) continue;
      const bool to_world = j->parent() == kWorld || j->child() == kWorld;
      if (!to_world || j->joint_type().nu() == 0) joined_.insert(pair_key(j->parent(), j->child()));
    }
    // a chain of joints through massless frames (an MJCF body with several joints) joins
    // its two ends as one joint does
    const auto massless = [&](int b) {
      return b != kWorld && m.bodies()[b].mass == 0;  // (a particle has mass)
    };
    for (const TreeJoint& t : m.tree().joints) {
      int p = t.parent_body;
      while (massless(p) && m.tree().joints[m.tree().tree_index[p]].parent_body != p) {
        p = m.tree().joints[m.tree().tree_index[p]].parent_body;
        if (p != kWorld) joined_.insert(pair_key(p, t.body));
      }
    }
    // The filters are the model's: what each shape may meet is known here.  A shape goes
    // into the broad phase only when the filters let it meet another convex shape; one that
    // meets planes alone (a box on the ground, a robot whose links the filters keep apart)
    // is tested against those planes, and the tree is not updated for it at every query.
    const int n = static_cast<int>(entries_.size());
    for (int i = 0; i < n; ++i) {
      if (!entries_[i].shape) continue;
      bool meets_convex = false;
      for (int j = 0; j < n && !meets_convex; ++j)
        meets_convex = j != i && entries_[j].shape && allowed(m, std::min(i, j), std::max(i, j));
      if (meets_convex)
        entries_[i].proxy =
            broadphase_.createProxy(btVector3(0, 0, 0), btVector3(0, 0, 0), 0,
                                    reinterpret_cast<void*>(size_t(i)), 1, -1, nullptr);
    }
    plane_partners_.resize(planes_.size());
    for (size_t k = 0; k < planes_.size(); ++k)
      for (int i = 0; i < n; ++i)
        if (entries_[i].shape && allowed(m, std::min(planes_[k], i), std::max(planes_[k], i)))
          plane_partners_[k].push_back(i);
  }

  ~BulletDetector() override {
    for (DetectorEntry& e : entries_)
      if (e.proxy) broadphase_.destroyProxy(e.proxy, nullptr);
  }

  void detect(const Model& m, const Data& d, double margin,
              std::vector<ContactPoint>& out) override {
    const std::vector<Shape>& shapes = m.shapes();
    // a non-finite or negative margin grows nothing (and finds only what overlaps)
    const double half = std::isfinite(margin) && margin > 0 ? margin / 2 : 0.0;
    const btVector3 grow(half, half, half);
    for (size_t i = 0; i < entries_.size(); ++i) {
      DetectorEntry& e = entries_[i];
      const Shape& s = shapes[i];
      // the origin now; the orientation where a pair needs it (pose(): a shape the
      // planes' bounding-sphere test leaves out never needs it)
      e.state = e.body == kWorld ? nullptr : &d.body[e.body];
      e.x = e.state ? Vec3(e.state->x + e.state->Q * s.position) : s.position;
      e.posed = false;
      // a body state that is not finite (a failed step) gives no contact, and keeps NaN
      // out of the tree
      e.finite = e.x.allFinite();
      if (!e.proxy) continue;
      pose(e);
      btVector3& lo = e.lo;
      btVector3& hi = e.hi;
      if (e.finite) {
        e.shape->getAabb(e.tr, lo, hi);
        lo -= grow;
        hi += grow;
      } else {
        lo = hi = btVector3(0, 0, 0);
      }
      broadphase_.setAabb(e.proxy, lo, hi, nullptr);
    }
    broadphase_.calculateOverlappingPairs(nullptr);
    const btBroadphasePairArray& pairs =
        broadphase_.getOverlappingPairCache()->getOverlappingPairArray();
    for (int k = 0; k < pairs.size(); ++k) {
      const btBroadphaseProxy* p0 = pairs[k].m_pProxy0;
      const btBroadphaseProxy* p1 = pairs[k].m_pProxy1;
      // the tree's pair cache drops pairs that stopped overlapping a few at a time
      if (!TestAabbAgainstAabb2(p0->m_aabbMin, p0->m_aabbMax, p1->m_aabbMin, p1->m_aabbMax))
        continue;
      int a = static_cast<int>(reinterpret_cast<size_t>(p0->m_clientObject));
      int b = static_cast<int>(reinterpret_cast<size_t>(p1->m_clientObject));
      if (a > b) std::swap(a, b);
      if (entries_[a].finite && entries_[b].finite && allowed(m, a, b))
        convex_pair(m, entries_[a], entries_[b], a, b, margin, scratch_, out);
    }
    for (size_t k = 0; k < planes_.size(); ++k)
      for (int i : plane_partners_[k])
        if (entries_[planes_[k]].finite && entries_[i].finite)
          plane_pair(m, planes_[k], i, margin, out);
  }

  // whether any two shapes pass the filters (else there is nothing ever to detect)
  bool any_pair(const Model& m) const {
    const int n = static_cast<int>(m.shapes().size());
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b)
        if (allowed(m, a, b)) return true;
    return false;
  }

 private:
  // the filters of appell/geometry.hpp
  bool allowed(const Model& m, int a, int b) const {
    const Shape& sa = m.shapes()[a];
    const Shape& sb = m.shapes()[b];
    const int ba = sa.body, bb = sb.body;
    if (ba == bb) return false;
    if (ba != kWorld && bb != kWorld && m.composite(ba) == m.composite(bb)) return false;
    if (!(sa.group & sb.mask) || !(sb.group & sa.mask)) return false;
    if (!(sa.collide_with_joined || sb.collide_with_joined) && joined_.count(pair_key(ba, bb)))
      return false;
    return true;
  }

  // e's orientation and Bullet transform at this query, once; false when not finite
  static bool pose(DetectorEntry& e) {
    if (e.posed) return e.finite;
    e.posed = true;
    e.R = e.state ? Mat3(e.state->Q * e.R0) : e.R0;
    e.finite = e.finite && e.R.allFinite();
    e.tr = bt(e.finite ? e.R : Mat3::Identity(), e.finite ? e.x : Vec3::Zero());
    return e.finite;
  }

  // plane p and convex shape i
  void plane_pair(const Model& m, int p, int i, double margin, std::vector<ContactPoint>& out) {
    DetectorEntry& ep = entries_[p];
    DetectorEntry& es = entries_[i];
    if (!pose(ep)) return;
    const Vec3 np = ep.R.col(2);  // the plane's outward normal
    const double c = np.dot(ep.x);
    // its bounding sphere, or its box, a margin above the plane: nothing to find
    if (np.dot(es.x) - es.radius - c >= margin) return;
    if (!pose(es)) return;
    if (es.proxy) {
      const btVector3 mid = 0.5 * (es.lo + es.hi), half = 0.5 * (es.hi - es.lo);
      const double lowest = np.dot(eig(mid)) - std::abs(np.x()) * half.x() -
                            std::abs(np.y()) * half.y() - std::abs(np.z()) * half.z();
      if (lowest - c >= margin) return;
    }
    // the library's deepest point of the shape against the plane
    const Vec3 down_local = es.R.transpose() * (-np);
    const Vec3 deepest = es.x + es.R * eig(es.shape->localGetSupportingVertex(bt(down_local)));
    const double low = np.dot(deepest) - c;
    if (!(low < margin)) return;
    // orient from a to b: the normal is the plane's when the plane is a; the shape's type
    // adds its points nearest the plane (PlaneContact::add, below)
    const bool plane_first = p < i;
    const Vec3 n = plane_first ? np : Vec3(-np);
    PlaneContact contact{
        es.R, es.x,   np,  c, deepest, low, *es.shape, &m, plane_first ? p : i, plane_first ? i : p,
        n,    margin, &out};
    if (es.kind->plane_points)
      es.kind->plane_points(m.shapes()[i], contact);
    else
      contact.add(deepest, low, 0);
  }

  btDbvtBroadphase broadphase_;
  std::vector<DetectorEntry> entries_;
  std::vector<int> planes_;
  std::vector<std::vector<int>> plane_partners_;  // per plane: the shapes it may meet
  std::unordered_set<std::uint64_t> joined_;
  PairScratch scratch_;  // the convex pairs' storage
};

}  // namespace

}  // namespace collision_detail

void PlaneContact::keep(const Vec3& w, double gap, int feature) {
  out->push_back(
      collision_detail::pair_point(*model, a, b, w - 0.5 * gap * n, normal, gap, feature));
}

std::unique_ptr<ContactDetector> make_bullet_detector(const Model& m) {
  auto det = std::make_unique<collision_detail::BulletDetector>(m);
  if (!det->any_pair(m)) return nullptr;
  return det;
}

}  // namespace appell
