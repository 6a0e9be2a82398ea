// Contacts between the bodies' collision shapes at one state: what a collision detector
// gives the contact stepper.
//
// A detector is built per simulation (it keeps the collision library's objects and their
// poses, so it is not shared between threads) from the model's shapes:
//
//   std::unique_ptr<appell::ContactDetector> det = appell::make_contact_detector(model);
//   std::vector<appell::ContactPoint> points;
//   if (det) det->detect(model, data, /*margin=*/1e-3, points);  // d.body set (forward())
#pragma once

#include <memory>
#include <vector>

#include "appell/data.hpp"

namespace appell {

// One point of contact between two shapes, in the world frame.  Body −1 is the world
// (the ground and every shape fixed to it).  The normal points from a to b: b is pushed
// along +normal, a along −normal; the relative normal velocity
//   u_n = normal · (v_b(point) − v_a(point))
// is positive when the shapes separate.
struct ContactPoint {
  int shape_a = -1, shape_b = -1;  // indices into Model::shapes(); −1 for a point not of a shape
  int body_a = -1, body_b = -1;    // the bodies carrying the shapes (−1: the world)
  Vec3 point = Vec3::Zero();       // midway between the two surfaces
  Vec3 normal = Vec3::UnitZ();     // unit, from a to b
  double gap = 0.0;                // signed distance along normal; negative: penetration
  double friction = 0.0;           // Coulomb μ of the pair
  double restitution = 0.0;        // Newton's e of the pair
  int feature = -1;                // the point's place in its pair's manifold, stable from
                                   // one step to the next where it can be (warm starts); −1: none
};

// Finds the contact points of a model's bodies at the body states of a Data.
class ContactDetector {
 public:
  virtual ~ContactDetector() = default;
  // Appends to `out` every point of every pair of shapes (filters applied) whose gap is
  // below `margin` at the body states d.body.  Where surfaces meet flat it gives a
  // manifold of several points (a box on a plane: its four corners).
  virtual void detect(const Model& m, const Data& d, double margin,
                      std::vector<ContactPoint>& out) = 0;
};

// A detector of the model's collision shapes, or null when no two of its shapes can ever
// touch (none, or all kept apart by the filters: a lone robot's own shapes).
std::unique_ptr<ContactDetector> make_contact_detector(const Model& m);

}  // namespace appell
