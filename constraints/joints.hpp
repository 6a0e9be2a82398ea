// Joints between a parent and a child body ("world" is the fixed ground).
//
// A joint is defined by the bodies' poses at t = 0: the anchor is the material point of
// each body that sits there, an axis is a direction fixed in the body it belongs to.
// Each joint is a composition of the row kernels of kernels.hpp:
//
//   type         rows  kernels                                            freedom
//   spherical     3    point_coincident(anchor)                             3 rot
//   revolute      5    point_coincident + angle(n1_P ⊥ a_C) + angle(n2_P ⊥ a_C)   1 rot
//   prismatic     5    rotation_lock + plane(n1_P) + plane(n2_P) at the child's centre   1 trans
//   cylindrical   4    angle×2 + plane(n1_P) + plane(n2_P) at the anchor   1 rot + 1 trans
//   universal     4    point_coincident + angle(axes[0]_P ⊥ axes[1]_C)      2 rot
//   fixed         6    point_coincident(child centre) + rotation_lock       none
//
// n1, n2 complete the axis (fixed in the parent) to an orthonormal basis.
#pragma once

#include "constraints/kernels.hpp"

namespace appell {

enum class JointType { Spherical, Revolute, Prismatic, Cylindrical, Universal, Fixed };

const char* joint_type_name(JointType t);

class Joint final : public Constraint {
 public:
  // parent0/child0: the bodies' poses at t = 0 (a resting identity state for the world).
  // anchor: world point; axis: world direction (revolute, prismatic, cylindrical);
  // axis2: the child's axis of a universal joint (axis is the parent's).
  Joint(std::string name, JointType type, int parent, int child, const BodyState& parent0,
        const BodyState& child0, const Vec3& anchor, const Vec3& axis, const Vec3& axis2);

  std::string type() const override { return joint_type_name(type_); }
  int rows() const override;
  bool holonomic(int) const override { return true; }
  void evaluate(const StateView& in, const RowSpan& out) const override;

  // the joint's definition, for tree formulations (world frame, t = 0)
  JointType joint_type() const { return type_; }
  int parent() const { return parent_.body; }
  int child() const { return child_.body; }
  const Vec3& anchor() const { return anchor_; }
  const Vec3& axis() const { return axis_; }
  const Vec3& axis2() const { return axis2_; }

 private:
  JointType type_;
  End parent_, child_;
  Vec3 anchor_, axis_, axis2_;
  Vec3 Xp_, Xc_;    // the anchor (or the child's centre) in each body's frame
  Vec3 Ap_, Ac_;    // the axis in the parent's / child's frame
  Vec3 Np1_, Np2_;  // normals to the axis, parent frame
  Mat3 R0_;         // Q_Pᵀ Q_C at t = 0
};

}  // namespace appell
