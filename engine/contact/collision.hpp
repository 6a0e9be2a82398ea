// The contact detector on Bullet's collision library (BulletCollision, double precision):
// its dynamic AABB tree for the broad phase, GJK/EPA for the signed distance of two convex
// shapes, support-vertex queries for convex shapes against planes, its box–box detector
// for overlapping boxes and its polyhedral clipping for the manifold of two polyhedra
// (boxes, convex meshes).  Private to the library.
//
// Why Bullet (measured with both libraries, Debian's FCL 0.7 and Bullet 3.24 float64, on
// a box half-sunk 1e-4 into a plane, two stacked boxes 1e-4 into each other and 1e-4
// apart, a cylinder on its face and a pile of 20 boxes on a plane):
//   FCL: box–halfspace and cylinder–halfspace give one deepest point, no point at all when
//        separated, and distance() to a halfspace crashes (libccd has no halfspace support
//        function); box–box gives 4 points penetrating, 0 when 1e-4 apart (distance(): one);
//        the pile of 20 boxes (ground as a box) took 43 µs a query.
//   Bullet: GJK/EPA (btGjkEpaSolver2) gives the signed distance of every convex pair,
//        separated or penetrating, to 1e-16 on boxes, with witness points; its polyhedral
//        clipping (btPolyhedralContactClipping) gives the 4 corners of two stacked boxes,
//        with exact depths, separated or not; the pile took 9 µs a query in its own world
//        (box–box detector) and 80 µs through the clipping path.
// Here (the same machine, loaded by other builds): the pile of 20 boxes, each 1e-6 into
// the next, 80 points in 79 µs a query (1e-6 apart: 63 µs); exactly touching faces cost
// about 190 µs (GJK degenerates into EPA); Bullet's own world through its clipping path
// took 430–610 µs and FCL 100–130 µs (40 points) at the same time.
// Neither gives a plane manifold in one query (Bullet's perturbation gives 3 of 4 corners
// with perturbed depths): against a plane the manifold is the convex shape's support
// points (box corners, hull vertices, cylinder rim points, capsule ends), each with its
// exact signed height.
#pragma once

#include <memory>
#include <vector>

#include "appell/contact.hpp"

namespace appell {

// The detector of m's shapes (m must have some), or null when the filters keep every
// pair apart.  O(shapes) to build, O(shapes²) to find that no pair can touch.
std::unique_ptr<ContactDetector> make_bullet_detector(const Model& m);

}  // namespace appell
