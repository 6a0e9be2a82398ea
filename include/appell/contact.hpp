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
#include <string>
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

namespace appell {

// One row of the contact problem of a moreau step: a contact point between two shapes, a
// joint limit, or a joint's Coulomb friction.  The stepper writes the row (its impulse,
// tangents and velocity after the step; engine/contact/moreau.hpp records()); the outputs
// (contacts.csv, `appell eval`, Python; docs/contact.md "Outputs") give its contacts and
// limits with their forces: the step's impulses divided by its length h, the mean force
// over the step (at rest, the force that holds the body; at an impact, impulse / h).
struct ContactSample {
  // a contact: shapes, bodies, point (world), normal a→b, gap, μ and e, all at the step's
  // midpoint, where the row was closed; a limit: shapes and bodies −1, point and normal zero
  // (the outputs'), gap the distance to the bound (rad or m, at the midpoint)
  ContactPoint point;
  int joint = -1;      // a limit or a joint's friction: the model constraint index of its
                       // joint; −1 for a contact
  bool upper = false;  // a limit: its side, in the joint's own coordinate
  // a joint's Coulomb friction (the stepper's alone, never in the outputs): one bounded
  // row, |impulse| ≤ F h
  bool joint_friction = false;
  // the step's impulses (normal, along t1, along t2), N·s (N·m·s on a hinge), the world
  // tangents t1, t2 of a contact, and the row's velocities (u_n, u_t1, u_t2) after the step
  Eigen::Vector3d impulse = Eigen::Vector3d::Zero();
  Eigen::Vector3d t1 = Eigen::Vector3d::Zero(), t2 = Eigen::Vector3d::Zero();
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();
  // the outputs' forces (impulse / h, set by the simulation): a contact: the normal force on
  // b (≥ 0, N; a gets the opposite) and the friction force on b, world frame (perpendicular
  // to the normal, ‖·‖ ≤ μ × normal force); a limit: the normal force (≥ 0, N·m or N) and
  // friction zero
  double normal_force = 0.0;
  Vec3 friction_force = Vec3::Zero();
  // a limit: the generalized force on the joint's coordinate (+ pushes it up: the lower
  // limit's normal force, minus the upper one's); 0 for a contact
  double joint_force = 0.0;
  bool impact = false;  // approaching at the start of the step (a collision, Newton's law)
  enum class State { Open, Stick, Slip } state = State::Open;
};
const char* contact_state_name(ContactSample::State s);  // "open", "stick", "slip"

}  // namespace appell

namespace appell {

// A joint whose limit or Coulomb friction a moreau run cannot enforce: they act on the
// one-coordinate joints of the spanning tree, and a joint that closes a loop has no
// coordinate of its own (engine/contact/joint_limits.cpp).
struct UnenforcedJoint {
  int constraint = -1;  // the model constraint index of the joint
  bool limit = false, friction = false;
};
// Every such joint, counting limits when `limits` and friction when `friction` (the
// scene's contact.joint_limits and contact.joint_friction).  O(constraints · tree joints).
std::vector<UnenforcedJoint> unenforced_joint_properties(const Model& m, bool limits = true,
                                                         bool friction = true);
// One line: "joint 'X' closes a loop ...: its limit cannot be enforced; ..."
std::string describe(const Model& m, const UnenforcedJoint& u);

// A one-coordinate tree joint that q (tree nq) places outside its limits by more than
// `tolerance` (rad or m; by default the moreau stepper's closed gap): the first in tree
// order.  constraint = −1 when every limit holds.  A run refuses such a start: a limit acts
// on velocities, and a coordinate outside it is a position error (docs/contact.md).
struct LimitViolation {
  int constraint = -1;                            // the joint's model constraint index
  bool upper = false;                             // the side, in the joint's own coordinate
  double value = 0.0, bound = 0.0, excess = 0.0;  // q, the bound, how far past it (> 0)
  std::string message;  // "joint 'X' starts 0.3 rad past its upper limit (q = ...)"
};
LimitViolation joint_limit_violation(const Model& m, const Eigen::VectorXd& q,
                                     double tolerance = 1e-7);

}  // namespace appell
