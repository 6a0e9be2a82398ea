// Internal to the scene loader: joint space in scenes (docs/scene-format.md "Joint space").
//
// A joint with an "origin" places its child, as URDF does: the child's link frame is the
// joint frame, which sits at `origin` = (xyz, rpy) in the parent's link frame at the
// reference pose (every joint coordinate zero), and moves with the joint's motion R(q),
// d(q) (appell/joint_type.hpp, J1).  A placed body's centre of mass sits at "com" in its
// link frame, and its inertia is given in the link frame's axes; a body with a world
// "position" has its link frame at its centre of mass.
//
// The reference pose defines the joint frames (so q = 0 there); the initial state, t = 0,
// is the reference moved by every joint's "q" and "qd" (J1, J2), base to tip.  World-pose
// scenes never reach this code: their bodies' reference and initial poses coincide.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "appell/body.hpp"
#include "appell/joint.hpp"
#include "appell/joint_type.hpp"
#include "scenes/reader.hpp"

namespace appell {

struct SceneContext;
class Constraint;

// A body as the loader parsed it, before it is added to the model.
struct SceneBody {
  Body body;
  Node node;
  bool posed = false;  // gave a world position, orientation or velocity
  Vec3 com = Vec3::Zero();
};

// What the joint form with "origin" needs to build its Joint: the reference poses of its
// two bodies and the joint frame in the world at the reference.
struct JointPlacement {
  int parent = kWorld, child = kWorld;
  BodyState parent0, child0;  // reference poses (centre-of-mass frames)
  Vec3 anchor = Vec3::Zero();
  Vec3 axis = Vec3::UnitZ(), axis2 = Vec3::UnitY();  // world directions at the reference
  std::vector<double> q, u;  // the joint's "q" and "qd" (neutral, zero when absent)
};

// The placements of a scene, by the joint's file and JSON Pointer (placement_key).
using Placements = std::map<std::string, JointPlacement>;
std::string placement_key(const Node& joint);

// Extra names of bodies: URDF links merged into their parent through fixed joints (the
// world for a fixed base).  Maps a name to the body's name (or "world") and the merged
// link's frame (p, R) in that body's link frame, which joints placed on it start from.
struct Alias {
  std::string body;
  Vec3 p = Vec3::Zero();
  Mat3 R = Mat3::Identity();
};
using Aliases = std::map<std::string, Alias>;

// Places every body that is the child of a joint with an "origin" in `constraint_lists`
// (one "constraints" array per scene part), from its parent's link frame and the joint's
// "q", "qd"; writes their initial pose and velocity into `bodies` and returns what
// placed_joint() needs.  Throws SceneError, located, on every misuse.
Placements place_bodies(const std::vector<Node>& constraint_lists, std::vector<SceneBody>& bodies,
                        const Aliases& aliases);

// The instance of `type` a joint at n uses: with the number at its key
// syntax().parameter (a screw joint's "pitch"), else the registered type itself.
std::shared_ptr<const JointType> configured_type(const Node& n, const JointType& type);

// A joint's "limit": {"lower": l, "upper": u} (l ≤ u, finite; the callers allow the key on
// one-coordinate joints only) into its properties; nothing when absent.  Throws
// SceneError, located.
void parse_joint_limit(const Node& n, Joint& joint);
// A joint's "armature" (rotor inertia on each of its quasi-velocities, >= 0), when given.
void parse_joint_armature(const Node& n, Joint& joint);
// The Joint of a joint with an "origin" (called by the joint parser).
std::shared_ptr<const Constraint> placed_joint(const Node& n, const std::string& name,
                                               const SceneContext& ctx, const JointType& type);

// A joint's coordinates "q" (rates = false) or rates "qd" (rates = true) at `n`: a number
// for one coordinate, else an array of nq (nu) in the type's order; a free joint also takes
// {"position", "quaternion"} / {"velocity", "angular_velocity"}.  Quaternions are
// normalised.  Located errors.
std::vector<double> joint_values(const Node& n, const JointType& type, bool rates);

// R = Rz(yaw) Ry(pitch) Rx(roll), URDF's fixed-axis roll-pitch-yaw.
Mat3 rpy_rotation(const Vec3& rpy);

}  // namespace appell
