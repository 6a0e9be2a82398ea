// Revolute joint: one turn θ about the joint axis z through the anchor.
//   R = rot_z(θ), d = 0, S = (0; e_z), Ṡ u = 0.
//   rows (5): point_coincident(anchor) + angle(x_P ⊥ z_C) + angle(y_P ⊥ z_C)
#include "constraints/joints/common.hpp"

namespace appell {

namespace {

class Revolute final : public JointRows<Revolute> {
 public:
  const char* name() const override { return "revolute"; }
  int nq() const override { return 1; }
  int nu() const override { return 1; }
  JointSyntax syntax() const override { return {true, 1, true}; }
  JointShape shape() const override { return JointShape::Turn; }
  bool angle(int) const override { return true; }
  std::vector<std::string> names_in(JointFormat f) const override {
    if (f == JointFormat::Urdf) return {"revolute", "continuous"};
    return {"hinge"};
  }
  template <class S, class Motion>
  void write_motion(const S* q, const S*, Motion& m) const {
    m.R = joint_math::rot_z(q[0]);
    m.d.setZero();
    joint_math::turn(m, 0, Vec3::UnitZ());
    m.c.setZero();
  }

  void coordinates(const Mat3& R, const Vec3&, double* q) const override {
    q[0] = joint_math::angle_z(R);
  }
  int rows() const override { return 5; }
  template <class View, class Span>
  void write_rows(const View& in, End P, End C, const JointFrames& f, const Span& out) const {
    int row = point_coincident_rows(in, P, C, f.X_P, f.X_C, out, 0);
    row = angle_row(in, P, C, f.E_P.col(0), f.E_C.col(2), 0.0, out, row);
    angle_row(in, P, C, f.E_P.col(1), f.E_C.col(2), 0.0, out, row);
  }
  void multipliers(const BodyState& P, const BodyState& C, const JointFrames& fr, const Vec3& f,
                   const Vec3& m, double* l) const override {
    joint_math::point_multipliers(f, l);
    joint_math::axis_pair_multipliers(P, C, fr, m, l + 3);
  }
};

}  // namespace

const JointType& revolute_joint() {
  static const Revolute type;
  return type;
}

}  // namespace appell
