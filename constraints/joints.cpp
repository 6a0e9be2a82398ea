#include "constraints/joints.hpp"

namespace appell {

const char* joint_type_name(JointType t) {
  switch (t) {
    case JointType::Spherical:
      return "spherical";
    case JointType::Revolute:
      return "revolute";
    case JointType::Prismatic:
      return "prismatic";
    case JointType::Cylindrical:
      return "cylindrical";
    case JointType::Universal:
      return "universal";
    case JointType::Fixed:
      return "fixed";
  }
  return "joint";
}

Joint::Joint(std::string name, JointType type, int parent, int child, const BodyState& parent0,
             const BodyState& child0, const Vec3& anchor, const Vec3& axis, const Vec3& axis2)
    : Constraint(std::move(name), {parent, child}), type_(type), anchor_(anchor) {
  parent_ = {parent, slot(parent)};
  child_ = {child, slot(child)};
  axis_ = axis.normalized();
  axis2_ = axis2.norm() > 0 ? axis2.normalized() : Vec3(axis2);
  // a prismatic or fixed joint acts at the child's centre of mass
  const Vec3 p = (type == JointType::Prismatic || type == JointType::Fixed) ? child0.x : anchor;
  Xp_ = parent0.Q.transpose() * (p - parent0.x);
  Xc_ = child0.Q.transpose() * (p - child0.x);
  Vec3 n1, n2;
  perpendicular_basis(axis_, n1, n2);
  Np1_ = parent0.Q.transpose() * n1;
  Np2_ = parent0.Q.transpose() * n2;
  Ap_ = parent0.Q.transpose() * axis_;
  Ac_ = child0.Q.transpose() * (type == JointType::Universal ? axis2_ : axis_);
  R0_ = parent0.Q.transpose() * child0.Q;
}

int Joint::rows() const {
  switch (type_) {
    case JointType::Spherical:
      return 3;
    case JointType::Revolute:
      return 5;
    case JointType::Prismatic:
      return 5;
    case JointType::Cylindrical:
      return 4;
    case JointType::Universal:
      return 4;
    case JointType::Fixed:
      return 6;
  }
  return 0;
}

void Joint::evaluate(const StateView& in, const RowSpan& out) const {
  const End& P = parent_;
  const End& C = child_;
  int row = 0;
  switch (type_) {
    case JointType::Spherical:
      point_coincident_rows(in, P, C, Xp_, Xc_, out, row);
      break;
    case JointType::Revolute:
      row = point_coincident_rows(in, P, C, Xp_, Xc_, out, row);
      row = angle_row(in, P, C, Np1_, Ac_, 0.0, out, row);
      angle_row(in, P, C, Np2_, Ac_, 0.0, out, row);
      break;
    case JointType::Prismatic:
      row = rotation_lock_rows(in, P, C, R0_, out, row);
      row = plane_row(in, P, C, Xp_, Xc_, Np1_, 0.0, out, row);
      plane_row(in, P, C, Xp_, Xc_, Np2_, 0.0, out, row);
      break;
    case JointType::Cylindrical:
      row = angle_row(in, P, C, Np1_, Ac_, 0.0, out, row);
      row = angle_row(in, P, C, Np2_, Ac_, 0.0, out, row);
      row = plane_row(in, P, C, Xp_, Xc_, Np1_, 0.0, out, row);
      plane_row(in, P, C, Xp_, Xc_, Np2_, 0.0, out, row);
      break;
    case JointType::Universal:
      row = point_coincident_rows(in, P, C, Xp_, Xc_, out, row);
      angle_row(in, P, C, Ap_, Ac_, 0.0, out, row);
      break;
    case JointType::Fixed:
      row = point_coincident_rows(in, P, C, Xp_, Xc_, out, row);
      rotation_lock_rows(in, P, C, R0_, out, row);
      break;
  }
}

}  // namespace appell
