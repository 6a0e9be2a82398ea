// A joint that mimics another (URDF <mimic>): one holonomic row between two joint
// coordinates,
//     g = q_f − m q_l − q0 = 0,                                                    (M1)
// with q the angle of a revolute joint or the slide of a prismatic one (the inverse of J1,
// appell/joint_type.hpp).  Its velocity row is q̇_f − m q̇_l, where for each joint
//     revolute   q̇ = e · (ω_C − ω_P),         e = Q_P E_P e_z (the axis, fixed in P)
//     prismatic  q̇ = e · (v_A,C − v_A,P) + d · (ω_P × e),  d = x_A,C − x_A,P
// in the canonical form [HO21 eq. 14]; the acceleration row differentiates it once more
// exactly (the kernels' K2 for the slide).  The angle is taken in (−π, π], so the row's
// position residual is meant for motions that stay within one turn.
#pragma once

#include <memory>

#include "appell/joint.hpp"

namespace appell {

class MimicConstraint final : public Constraint {
 public:
  // follower and leader: revolute or prismatic joints of the model; throws
  // std::invalid_argument for other types
  MimicConstraint(std::string name, std::shared_ptr<const Joint> follower,
                  std::shared_ptr<const Joint> leader, double multiplier, double offset);
  std::string type() const override { return "mimic"; }
  int rows() const override { return 1; }
  bool holonomic(int) const override { return true; }
  void evaluate(const StateView& in, const RowSpan& out) const override;
  bool evaluate_tangent(const StateView& in, const StateView& tangent, const RowSpan& out,
                        const RowSpan& dout) const override;

  // the coordinate q of joint j in the state `in` (revolute angle or prismatic slide)
  static double coordinate(const Joint& j, const StateView& in);

 private:
  template <class View, class Span>
  void write_rows(const View& in, const Span& out) const;  // evaluate() and its tangent
  std::shared_ptr<const Joint> follower_, leader_;
  double multiplier_, offset_;
};

}  // namespace appell
