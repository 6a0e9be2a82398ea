// Planar joint: the child slides in the plane ⊥ the joint axis z and turns about z.
//   q = (x, y, θ), R = rot_z(θ), d = (x, y, 0), S = [(e_x; 0) (e_y; 0) (0; e_z)], Ṡ u = 0.
//   rows (3): angle(x_P ⊥ z_C) + angle(y_P ⊥ z_C) + plane(z_P) at the anchor
#include "constraints/joints/common.hpp"

namespace appell {

namespace {

class Planar final : public JointRows<Planar> {
 public:
  const char* name() const override { return "planar"; }
  int nq() const override { return 3; }
  int nu() const override { return 3; }
  JointSyntax syntax() const override { return {true, 1, true}; }
  bool angle(int k) const override { return k == 2; }
  std::vector<std::string> names_in(JointFormat f) const override {
    if (f == JointFormat::Urdf) return {"planar"};
    return {};
  }
  template <class S, class Motion>
  void write_motion(const S* q, const S*, Motion& m) const {
    using V = Eigen::Matrix<S, 3, 1>;
    m.R = joint_math::rot_z(q[2]);
    m.d = V(q[0], q[1], S(0));
    joint_math::slide(m, 0, Vec3::UnitX());
    joint_math::slide(m, 1, Vec3::UnitY());
    joint_math::turn(m, 2, Vec3::UnitZ());
    m.c.setZero();
  }

  void coordinates(const Mat3& R, const Vec3& d, double* q) const override {
    q[0] = d.x();
    q[1] = d.y();
    q[2] = joint_math::angle_z(R);
  }
  int rows() const override { return 3; }
  template <class View, class Span>
  void write_rows(const View& in, End P, End C, const JointFrames& f, const Span& out) const {
    int row = angle_row(in, P, C, f.E_P.col(0), f.E_C.col(2), 0.0, out, 0);
    row = angle_row(in, P, C, f.E_P.col(1), f.E_C.col(2), 0.0, out, row);
    plane_row(in, P, C, f.X_P, f.X_C, f.E_P.col(2), 0.0, out, row);
  }
  void multipliers(const BodyState& P, const BodyState& C, const JointFrames& fr, const Vec3& f,
                   const Vec3& m, double* l) const override {
    joint_math::axis_pair_multipliers(P, C, fr, m, l);
    l[2] = joint_math::plane_multiplier(P, fr.E_P.col(2), f);
  }
};

}  // namespace

const JointType& planar_joint() {
  static const Planar type;
  return type;
}

}  // namespace appell
