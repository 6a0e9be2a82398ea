// A joint between a parent and a child body ("world" is the fixed ground), as a constraint.
//
// The joint is defined by the bodies' poses at t = 0 (the reference pose): the anchor is
// the material point of each body that sits there (the child's centre of mass for types
// whose syntax has no anchor), and the axes are directions fixed in the bodies.  What the
// joint allows is its JointType (appell/joint_type.hpp, one file per type in
// constraints/joints/); the maximal formulations see its canonical rows, the recursive one
// its motion subspace.
#pragma once

#include <vector>

#include "appell/joint_type.hpp"

namespace appell {

// What a robot description says about a joint beyond its kinematics (URDF <dynamics>,
// <limit>).  Data only: the joint's rows and motion ignore it.  `damping` is the viscous
// coefficient c of a generalized force −c u on each of the joint's quasi-velocities, which
// the URDF loader applies as a JointDamping force; `friction` (Coulomb) is read and not
// applied; the limits of a revolute or prismatic joint are enforced by the moreau stepper
// (docs/contact.md) unless the run turns joint limits off.
struct JointProperties {
  double damping = 0.0;
  double friction = 0.0;
  // rotor inertia added to the diagonal of the joint-space mass matrix, on each of the
  // joint's quasi-velocities (MJCF's armature); the recursive formulation only
  double armature = 0.0;
  bool limited = false;  // lower, upper, effort, velocity hold a <limit>
  double lower = 0.0, upper = 0.0, effort = 0.0, velocity = 0.0;
};

class Joint final : public Constraint {
 public:
  // parent0/child0: the bodies' poses at t = 0 (a resting identity state for the world).
  // anchor: world point (ignored when the type has none: the child's centre is used);
  // axis: world direction (the z of the joint frame); axis2: the child's axis of a
  // two-axis type (universal).
  Joint(std::string name, const JointType& type, int parent, int child, const BodyState& parent0,
        const BodyState& child0, const Vec3& anchor, const Vec3& axis = Vec3::UnitZ(),
        const Vec3& axis2 = Vec3::UnitY());
  // the same, with a type instance the joint keeps (JointType::with_parameter)
  Joint(std::string name, std::shared_ptr<const JointType> type, int parent, int child,
        const BodyState& parent0, const BodyState& child0, const Vec3& anchor,
        const Vec3& axis = Vec3::UnitZ(), const Vec3& axis2 = Vec3::UnitY());

  std::string type() const override { return type_->name(); }
  int rows() const override { return type_->rows(); }
  bool holonomic(int) const override { return true; }
  void evaluate(const StateView& in, const RowSpan& out) const override;
  bool evaluate_tangent(const StateView& in, const StateView& tangent, const RowSpan& out,
                        const RowSpan& dout) const override;

  const JointType& joint_type() const { return *type_; }
  // the same, to build another Joint of this type (keeps a parameterised instance alive)
  const std::shared_ptr<const JointType>& joint_type_ptr() const { return owned_; }
  int parent() const { return parent_.body; }
  int child() const { return child_.body; }
  // the slots of the parent and the child in bodies() (−1 for the world)
  int parent_slot() const { return parent_.slot; }
  int child_slot() const { return child_.slot; }
  const JointFrames& frames() const { return frames_; }
  // the anchor in the world at t = 0
  const Vec3& anchor() const { return anchor_; }
  const JointProperties& properties() const { return properties_; }
  void set_properties(const JointProperties& p) { properties_ = p; }
  // The joint's coordinates q (nq) and quasi-velocities u (nu) at t = 0 when the
  // description states them (a scene joint with an origin: its "q" and "qd", as MuJoCo's
  // qpos0 and qvel): compile() starts the model's State from them exactly, whole turns
  // of an angle included.  Empty when the bodies' poses at t = 0 define the joint: its
  // q, u are then read off those poses.  Throws std::invalid_argument unless q has nq
  // entries and u nu.
  void set_initial_coordinates(std::vector<double> q, std::vector<double> u);
  const std::vector<double>& initial_q() const { return initial_q_; }
  const std::vector<double>& initial_u() const { return initial_u_; }

 private:
  const JointType* type_;
  std::shared_ptr<const JointType> owned_;  // *type_ (owning when the joint keeps it)
  End parent_, child_;
  Vec3 anchor_;
  JointFrames frames_;
  JointProperties properties_;
  std::vector<double> initial_q_, initial_u_;  // stated coordinates at t = 0, or empty
};

}  // namespace appell
