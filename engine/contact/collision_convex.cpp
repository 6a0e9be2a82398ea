// Two convex shapes against each other (the contact detector's narrow phase, collision.cpp):
//   box–box        overlapping: Bullet's box–box detector (up to 4 points, exact depths)
//   convex–convex  GJK/EPA signed distance; for two polyhedra the clipped manifold of
//                  their facing faces (each point's depth measured by Bullet against the
//                  reference face), kept when its deepest point agrees with GJK/EPA
//   capsule–polyhedron  its two ends' spheres, and the closest point when deeper
#include <BulletCollision/CollisionDispatch/btBoxBoxDetector.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>

#include <algorithm>
#include <cmath>

#include "engine/contact/collision_pairs.hpp"

namespace appell::collision_detail {

namespace {

// Two boxes, a < b: true when the box–box detector settled the pair (its points added, or
// the boxes apart by more than the margin), false when GJK/EPA is to measure it
bool box_pair(const Model& m, const DetectorEntry& ea, const DetectorEntry& eb, int a, int b,
              double margin, ClipResult& clip, std::vector<ContactPoint>& out) {
  clip.points.clear();
  btBoxBoxDetector boxes(static_cast<const btBoxShape*>(ea.shape.get()),
                         static_cast<const btBoxShape*>(eb.shape.get()));
  btDiscreteCollisionDetectorInterface::ClosestPointInput input;
  input.m_transformA = ea.tr;
  input.m_transformB = eb.tr;
  boxes.getClosestPoints(input, clip, nullptr);
  // the separating direction and the gap: the detector's where they overlap, GJK's apart
  Vec3 n;
  double gap = 0.0;
  if (!clip.points.empty()) {
    n = clip.points.front().n;
  } else {
    btGjkEpaSolver2::sResults r;
    const btVector3 guess = eb.tr.getOrigin() - ea.tr.getOrigin();
    if (!btGjkEpaSolver2::SignedDistance(ea.shape.get(), ea.tr, eb.shape.get(), eb.tr,
                                         guess.fuzzyZero() ? btVector3(1, 0, 0) : guess, r))
      return true;
    gap = r.distance - ea.shape->getMargin() - eb.shape->getMargin();
    n = -eig(ea.tr.getBasis() * r.normal);
    if (!(gap < margin) || !n.allFinite() || std::abs(n.norm() - 1) > 1e-6) return true;
  }
  // The detector keeps only points that overlap: a resting face whose box turned by a
  // rounding error overlaps at two corners and is a hair apart at the others, and gave
  // two points (a stack of ten tipped over).  So b is moved along n into a by the gap
  // and the margin (at most a tenth of the thinner box), measured there, and moved
  // back: a rigid shift adds the same length to every point's gap, and every corner
  // within the margin is found, in one consistent face.
  const double shift =
      std::max(gap, 0.0) + std::min(margin, 0.1 * std::min(m.shapes()[a].half_extents.minCoeff(),
                                                           m.shapes()[b].half_extents.minCoeff()));
  clip.points.clear();
  input.m_transformB.setOrigin(eb.tr.getOrigin() - bt(Vec3(shift * n)));
  boxes.getClosestPoints(input, clip, nullptr);
  for (ClipResult::Point& p : clip.points) {
    p.on_b += shift * n;
    p.depth += shift * n.dot(p.n);
  }
  if (clip.points.empty()) return false;
  int f = 0;
  for (const ClipResult::Point& p : clip.points)
    if (p.depth < margin)
      out.push_back(pair_point(m, a, b, p.on_b - 0.5 * p.depth * p.n, p.n, p.depth, f++));
  return true;
}

// Two polyhedra, a < b, at GJK/EPA's normal n and gap: true when the clipped manifold of
// their facing faces agrees with GJK/EPA, its points then added
bool polyhedra_pair(const Model& m, const DetectorEntry& ea, const DetectorEntry& eb, int a, int b,
                    const Vec3& n, double gap, double margin, PairScratch& scratch,
                    std::vector<ContactPoint>& out) {
  ClipResult& clip = scratch.clip;
  clip.points.clear();
  btPolyhedralContactClipping::clipHullAgainstHull(bt(Vec3(-n)), *ea.polyhedron, *eb.polyhedron,
                                                   ea.tr, eb.tr, -BT_LARGE_FLOAT, margin,
                                                   scratch.verts1, scratch.verts2, clip);
  // the clipping measures depths against a's face nearest the normal: right where
  // faces meet (face–face, vertex–face); elsewhere (edge–edge) its deepest point
  // disagrees with GJK/EPA's distance, and the single point is kept
  double deepest = BT_LARGE_FLOAT;
  for (const ClipResult::Point& p : clip.points) deepest = std::min(deepest, p.depth);
  const double size = (eb.x - ea.x).norm() + 1.0;
  if (clip.points.empty() || !(std::abs(deepest - gap) <= 1e-9 * size)) return false;
  int f = 0;
  for (const ClipResult::Point& p : clip.points)
    out.push_back(pair_point(m, a, b, p.on_b - 0.5 * p.depth * n, n, p.depth, f++));
  return true;
}

// A capsule and a polyhedron, a < b, at GJK/EPA's normal n, gap and closest points on_a,
// on_b: the capsule's two ends' spheres, each measured on its own (features 0 and 1), and
// the closest point (feature 2) where it is deeper than both
void capsule_on_polyhedron(const Model& m, const DetectorEntry& ea, const DetectorEntry& eb, int a,
                           int b, const Vec3& n, double gap, const Vec3& on_a, const Vec3& on_b,
                           double margin, std::vector<ContactPoint>& out) {
  const bool capsule_a = ea.shape->getShapeType() == CAPSULE_SHAPE_PROXYTYPE;
  const DetectorEntry& ec = capsule_a ? ea : eb;
  const DetectorEntry& ep = capsule_a ? eb : ea;
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
}

}  // namespace

void convex_pair(const Model& m, const DetectorEntry& ea, const DetectorEntry& eb, int a, int b,
                 double margin, PairScratch& scratch, std::vector<ContactPoint>& out) {
  // two boxes that overlap: Bullet's box–box detector (ODE's dBoxBox, separating axes)
  // gives up to 4 points with exact depths at a tenth of EPA's cost (resting stacks
  // overlap a little at every step); apart, it gives nothing and GJK below measures
  if (ea.shape->getShapeType() == BOX_SHAPE_PROXYTYPE &&
      eb.shape->getShapeType() == BOX_SHAPE_PROXYTYPE &&
      box_pair(m, ea, eb, a, b, margin, scratch.clip, out))
    return;
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
  if (ea.polyhedron && eb.polyhedron &&
      polyhedra_pair(m, ea, eb, a, b, n, gap, margin, scratch, out))
    return;
  const Vec3 on_a = eig(r.witnesses[0]) + ma * n;
  const Vec3 on_b = eig(r.witnesses[1]) - mb * n;
  // a capsule along a box's or a mesh's face touches it along a line: its two ends'
  // spheres, each measured on its own, and the middle point where it is deeper
  const bool capsule_a = ea.shape->getShapeType() == CAPSULE_SHAPE_PROXYTYPE;
  const bool capsule_b = eb.shape->getShapeType() == CAPSULE_SHAPE_PROXYTYPE;
  if ((capsule_a && eb.polyhedron) || (capsule_b && ea.polyhedron)) {
    capsule_on_polyhedron(m, ea, eb, a, b, n, gap, on_a, on_b, margin, out);
    return;
  }
  out.push_back(pair_point(m, a, b, 0.5 * (on_a + on_b), n, gap, 0));
}

}  // namespace appell::collision_detail
