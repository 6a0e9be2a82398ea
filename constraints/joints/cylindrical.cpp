// Cylindrical joint: a turn θ about and a slide s along the joint axis z.
//   q = (θ, s), R = rot_z(θ), d = s e_z, S = [(0; e_z) (e_z; 0)], Ṡ u = 0.
//   rows (4): angle(x_P ⊥ z_C) + angle(y_P ⊥ z_C) + plane(x_P) + plane(y_P) at the anchor
#include "constraints/joints/common.hpp"

namespace appell {

namespace {

class Cylindrical final : public JointRows<Cylindrical> {
 public:
  const char* name() const override { return "cylindrical"; }
  int nq() const override { return 2; }
  int nu() const override { return 2; }
  JointSyntax syntax() const override { return {true, 1, true}; }
  bool angle(int k) const override { return k == 0; }
  template <class S, class Motion>
  void write_motion(const S* q, const S*, Motion& m) const {
    using V = Eigen::Matrix<S, 3, 1>;
    m.R = joint_math::rot_z(q[0]);
    m.d = V(S(0), S(0), q[1]);
    joint_math::turn(m, 0, Vec3::UnitZ());
    joint_math::slide(m, 1, Vec3::UnitZ());
    m.c.setZero();
  }

  void coordinates(const Mat3& R, const Vec3& d, double* q) const override {
    q[0] = joint_math::angle_z(R);
    q[1] = d.z();
  }
  int rows() const override { return 4; }
  template <class View, class Span>
  void write_rows(const View& in, End P, End C, const JointFrames& f, const Span& out) const {
    int row = angle_row(in, P, C, f.E_P.col(0), f.E_C.col(2), 0.0, out, 0);
    row = angle_row(in, P, C, f.E_P.col(1), f.E_C.col(2), 0.0, out, row);
    row = plane_row(in, P, C, f.X_P, f.X_C, f.E_P.col(0), 0.0, out, row);
    plane_row(in, P, C, f.X_P, f.X_C, f.E_P.col(1), 0.0, out, row);
  }
  void multipliers(const BodyState& P, const BodyState& C, const JointFrames& fr, const Vec3& f,
                   const Vec3& m, double* l) const override {
    joint_math::axis_pair_multipliers(P, C, fr, m, l);
    l[2] = joint_math::plane_multiplier(P, fr.E_P.col(0), f);
    l[3] = joint_math::plane_multiplier(P, fr.E_P.col(1), f);
  }
};

}  // namespace

const JointType& cylindrical_joint() {
  static const Cylindrical type;
  return type;
}

}  // namespace appell
