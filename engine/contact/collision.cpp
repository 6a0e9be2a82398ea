// Bullet's collision library behind ContactDetector (why Bullet: collision.hpp).
//
// Per query: every shape's world pose from d.body, its AABB grown by margin/2 into the
// broad phase (so two shapes closer than the margin overlap), then per candidate pair:
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
#include <BulletCollision/CollisionDispatch/btBoxBoxDetector.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btConvexPolyhedron.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>
#include <BulletCollision/NarrowPhaseCollision/btPolyhedralContactClipping.h>
#include <LinearMath/btAabbUtil2.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <unordered_set>

#include "appell/joint.hpp"
#include "appell/model.hpp"
#include "appell/tree.hpp"
#include "engine/contact/shapes/shape_kind.hpp"

namespace appell {

namespace {

btVector3 bt(const Vec3& v) {
  return btVector3(v.x(), v.y(), v.z());
}
Vec3 eig(const btVector3& v) {
  return Vec3(v.x(), v.y(), v.z());
}
btTransform bt(const Mat3& R, const Vec3& x) {
  return btTransform(
      btMatrix3x3(R(0, 0), R(0, 1), R(0, 2), R(1, 0), R(1, 1), R(1, 2), R(2, 0), R(2, 1), R(2, 2)),
      bt(x));
}

// Collects the points Bullet's clipping reports: on b's face, depth against a's.
struct ClipResult final : btDiscreteCollisionDetectorInterface::Result {
  struct Point {
    Vec3 on_b;
    Vec3 n;  // from a to b (Bullet's normal is on b, pointing to a)
    double depth;
  };
  std::vector<Point> points;
  void setShapeIdentifiersA(int, int) override {}
  void setShapeIdentifiersB(int, int) override {}
  void addContactPoint(const btVector3& normal_on_b, const btVector3& p, btScalar depth) override {
    points.push_back({eig(p), -eig(normal_on_b), depth});
  }
};

// the contact point of shapes a < b
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
      Entry& e = entries_[i];
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
    for (const ConstraintPtr& c : m.constraints()) {
      const auto* j = dynamic_cast<const Joint*>(c.get());
      if (!j || c->rows() == 0) continue;
      const bool to_world = j->parent() == kWorld || j->child() == kWorld;
      if (!to_world || j->joint_type().nu() == 0) joined_.insert(pair_key(j->parent(), j->child()));
    }
    // a chain of joints through massless frames (an MJCF body with several joints) joins
    // its two ends as one joint does
    const auto massless = [&](int b) {
      return b != kWorld && m.bodies()[b].rigid() && m.bodies()[b].mass == 0;
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
    for (Entry& e : entries_)
      if (e.proxy) broadphase_.destroyProxy(e.proxy, nullptr);
  }

  void detect(const Model& m, const Data& d, double margin,
              std::vector<ContactPoint>& out) override {
    const std::vector<Shape>& shapes = m.shapes();
    // a non-finite or negative margin grows nothing (and finds only what overlaps)
    const double half = std::isfinite(margin) && margin > 0 ? margin / 2 : 0.0;
    const btVector3 grow(half, half, half);
    for (size_t i = 0; i < entries_.size(); ++i) {
      Entry& e = entries_[i];
      const Shape& s = shapes[i];
      if (e.body == kWorld) {
        e.R = e.R0;
        e.x = s.position;
      } else {
        const BodyState& b = d.body[e.body];
        e.R = b.Q * e.R0;
        e.x = b.x + b.Q * s.position;
      }
      // a body state that is not finite (a failed step) gives no contact, and keeps NaN
      // out of the tree
      e.finite = e.x.allFinite() && e.R.allFinite();
      e.tr = bt(e.finite ? e.R : Mat3::Identity(), e.finite ? e.x : Vec3::Zero());
      if (!e.proxy) continue;
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
        convex_pair(m, a, b, margin, out);
    }
    for (size_t k = 0; k < planes_.size(); ++k)
      for (int i : plane_partners_[k])
        if (entries_[planes_[k]].finite && entries_[i].finite)
          plane_pair(m, planes_[k], i, margin, out);
  }

 private:
  struct Entry {
    int body = kWorld;
    Mat3 R0 = Mat3::Identity();                      // the shape frame in the body frame
    std::shared_ptr<btConvexShape> shape;            // null for a plane; meshes share
    const btConvexPolyhedron* polyhedron = nullptr;  // boxes and meshes: faces for clipping
    const ShapeKind* kind = nullptr;                 // its type
    btBroadphaseProxy* proxy = nullptr;
    Mat3 R = Mat3::Identity();  // world pose at this query
    Vec3 x = Vec3::Zero();
    btTransform tr;
    btVector3 lo, hi;     // its box at this query, grown by half the margin (with a proxy)
    double radius = 0.0;  // of a sphere about x holding the shape
    bool finite = true;
  };

 public:
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

  // two convex shapes, a < b
  void convex_pair(const Model& m, int a, int b, double margin, std::vector<ContactPoint>& out) {
    const Entry& ea = entries_[a];
    const Entry& eb = entries_[b];
    // two boxes that overlap: Bullet's box–box detector (ODE's dBoxBox, separating axes)
    // gives up to 4 points with exact depths at a tenth of EPA's cost (resting stacks
    // overlap a little at every step); apart, it gives nothing and GJK below measures
    if (ea.shape->getShapeType() == BOX_SHAPE_PROXYTYPE &&
        eb.shape->getShapeType() == BOX_SHAPE_PROXYTYPE) {
      clip_.points.clear();
      btBoxBoxDetector boxes(static_cast<const btBoxShape*>(ea.shape.get()),
                             static_cast<const btBoxShape*>(eb.shape.get()));
      btDiscreteCollisionDetectorInterface::ClosestPointInput input;
      input.m_transformA = ea.tr;
      input.m_transformB = eb.tr;
      boxes.getClosestPoints(input, clip_, nullptr);
      // the separating direction and the gap: the detector's where they overlap, GJK's apart
      Vec3 n;
      double gap = 0.0;
      if (!clip_.points.empty()) {
        n = clip_.points.front().n;
      } else {
        btGjkEpaSolver2::sResults r;
        const btVector3 guess = eb.tr.getOrigin() - ea.tr.getOrigin();
        if (!btGjkEpaSolver2::SignedDistance(ea.shape.get(), ea.tr, eb.shape.get(), eb.tr,
                                             guess.fuzzyZero() ? btVector3(1, 0, 0) : guess, r))
          return;
        gap = r.distance - ea.shape->getMargin() - eb.shape->getMargin();
        n = -eig(ea.tr.getBasis() * r.normal);
        if (!(gap < margin) || !n.allFinite() || std::abs(n.norm() - 1) > 1e-6) return;
      }
      // The detector keeps only points that overlap: a resting face whose box turned by a
      // rounding error overlaps at two corners and is a hair apart at the others, and gave
      // two points (a stack of ten tipped over).  So b is moved along n into a by the gap
      // and the margin (at most a tenth of the thinner box), measured there, and moved
      // back: a rigid shift adds the same length to every point's gap, and every corner
      // within the margin is found, in one consistent face.
      const double shift = std::max(gap, 0.0) +
                           std::min(margin, 0.1 * std::min(m.shapes()[a].half_extents.minCoeff(),
                                                           m.shapes()[b].half_extents.minCoeff()));
      clip_.points.clear();
      input.m_transformB.setOrigin(eb.tr.getOrigin() - bt(Vec3(shift * n)));
      boxes.getClosestPoints(input, clip_, nullptr);
      for (ClipResult::Point& p : clip_.points) {
        p.on_b += shift * n;
        p.depth += shift * n.dot(p.n);
      }
      if (!clip_.points.empty()) {
        int f = 0;
        for (const ClipResult::Point& p : clip_.points)
          if (p.depth < margin)
            out.push_back(pair_point(m, a, b, p.on_b - 0.5 * p.depth * p.n, p.n, p.depth, f++));
        return;
      }
    }
    btGjkEpaSolver2::sResults r;
    const btVector3 guess = eb.tr.getOrigin() - ea.tr.getOrigin();
    if (!btGjkEpaSolver2::SignedDistance(ea.shape.get(), ea.tr, eb.shape.get(), eb.tr,
                                         guess.fuzzyZero() ? btVector3(1, 0, 0) : guess, r))
      return;  // GJK and EPA both failed (degenerate simplex): no point this query
    // Bullet measures the shapes' cores (a sphere's centre, a capsule's segment): the
    // margins are the rest of the shapes
    const double ma = ea.shape->getMargin(), mb = eb.shape->getMargin();
    const double gap = r.distance - ma - mb;
    if (!(gap < margin)) return;
    // Bullet's normal points from b to a, and it is in a's own frame (GJK and EPA run in
    // it; the witnesses come back in the world, the normal does not): turned into the world,
    // else a turned sphere met a table along a normal turned with it (appell issue 33)
    const Vec3 n = -eig(ea.tr.getBasis() * r.normal);
    if (!n.allFinite() || std::abs(n.norm() - 1) > 1e-6) return;
    if (ea.polyhedron && eb.polyhedron) {
      clip_.points.clear();
      btPolyhedralContactClipping::clipHullAgainstHull(bt(Vec3(-n)), *ea.polyhedron, *eb.polyhedron,
                                                       ea.tr, eb.tr, -BT_LARGE_FLOAT, margin,
                                                       verts1_, verts2_, clip_);
      // the clipping measures depths against a's face nearest the normal: right where
      // faces meet (face–face, vertex–face); elsewhere (edge–edge) its deepest point
      // disagrees with GJK/EPA's distance, and the single point is kept
      double deepest = BT_LARGE_FLOAT;
      for (const ClipResult::Point& p : clip_.points) deepest = std::min(deepest, p.depth);
      const double size = (eb.x - ea.x).norm() + 1.0;
      if (!clip_.points.empty() && std::abs(deepest - gap) <= 1e-9 * size) {
        int f = 0;
        for (const ClipResult::Point& p : clip_.points)
          out.push_back(pair_point(m, a, b, p.on_b - 0.5 * p.depth * n, n, p.depth, f++));
        return;
      }
    }
    const Vec3 on_a = eig(r.witnesses[0]) + ma * n;
    const Vec3 on_b = eig(r.witnesses[1]) - mb * n;
    // a capsule along a box's or a mesh's face touches it along a line: its two ends'
    // spheres, each measured on its own, and the middle point where it is deeper
    const bool capsule_a = ea.shape->getShapeType() == CAPSULE_SHAPE_PROXYTYPE;
    const bool capsule_b = eb.shape->getShapeType() == CAPSULE_SHAPE_PROXYTYPE;
    if ((capsule_a && eb.polyhedron) || (capsule_b && ea.polyhedron)) {
      const Entry& ec = capsule_a ? ea : eb;
      const Entry& ep = capsule_a ? eb : ea;
      const Shape& sc = m.shapes()[capsule_a ? a : b];
      btSphereShape sphere(sc.radius);
      double lowest_end = BT_LARGE_FLOAT;
      for (int k = 0; k < 2; ++k) {
        btTransform end = ec.tr;
        end.setOrigin(bt(ec.x + ec.R.col(2) * (k ? 0.5 * sc.length : -0.5 * sc.length)));
        btGjkEpaSolver2::sResults e;
        const btVector3 g = ep.tr.getOrigin() - end.getOrigin();
        const bool ok =
            capsule_a ? btGjkEpaSolver2::SignedDistance(&sphere, end, ep.shape.get(), ep.tr, -g, e)
                      : btGjkEpaSolver2::SignedDistance(ep.shape.get(), ep.tr, &sphere, end, g, e);
        const double egap = e.distance - sphere.getMargin() - ep.shape->getMargin();
        // the normal from the witnesses (a's core point to b's), whose difference is exact
        // where the end sphere's own normal from EPA/GJK is not (a point core has no face)
        const Vec3 w0 = eig(e.witnesses[0]), w1 = eig(e.witnesses[1]);
        const double span = (w1 - w0).norm();
        const Vec3 en = span > 1e-12 ? Vec3((e.distance < 0 ? -1.0 : 1.0) * (w1 - w0) / span)
                                     : Vec3(-eig((capsule_a ? end : ep.tr).getBasis() * e.normal));
        if (!ok || !(egap < margin) || !en.allFinite() || std::abs(en.norm() - 1) > 1e-6) continue;
        const Vec3 ea_pt = w0 + (capsule_a ? sphere.getMargin() : ep.shape->getMargin()) * en;
        const Vec3 eb_pt = w1 - (capsule_a ? ep.shape->getMargin() : sphere.getMargin()) * en;
        out.push_back(pair_point(m, a, b, 0.5 * (ea_pt + eb_pt), en, egap, k));
        lowest_end = std::min(lowest_end, egap);
      }
      // the closest point is an end's (the capsule lies along the face or tilts onto an
      // end), or lies between them (across an edge): then it is a point of its own
      const double size = (eb.x - ea.x).norm() + sc.length + 1.0;
      if (gap >= lowest_end - 1e-9 * size) return;
      out.push_back(pair_point(m, a, b, 0.5 * (on_a + on_b), n, gap, 2));
      return;
    }
    out.push_back(pair_point(m, a, b, 0.5 * (on_a + on_b), n, gap, 0));
  }

  // plane p and convex shape i
  void plane_pair(const Model& m, int p, int i, double margin, std::vector<ContactPoint>& out) {
    const Entry& ep = entries_[p];
    const Entry& es = entries_[i];
    const Vec3 np = ep.R.col(2);  // the plane's outward normal
    const double c = np.dot(ep.x);
    // its bounding sphere, or its box, a margin above the plane: nothing to find
    if (np.dot(es.x) - es.radius - c >= margin) return;
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
  std::vector<Entry> entries_;
  std::vector<int> planes_;
  std::vector<std::vector<int>> plane_partners_;  // per plane: the shapes it may meet
  std::unordered_set<std::uint64_t> joined_;
  ClipResult clip_;
  btVertexArray verts1_, verts2_;
};

}  // namespace

void PlaneContact::keep(const Vec3& w, double gap, int feature) {
  out->push_back(pair_point(*model, a, b, w - 0.5 * gap * n, normal, gap, feature));
}

std::unique_ptr<ContactDetector> make_bullet_detector(const Model& m) {
  auto det = std::make_unique<BulletDetector>(m);
  if (!det->any_pair(m)) return nullptr;
  return det;
}

}  // namespace appell
