// Prismatic joint: one slide s along the joint axis z; the anchor is the child's centre.
//   R = I, d = s e_z, S = (e_z; 0), Ṡ u = 0.
//   rows (5): rotation_lock + plane(x_P) + plane(y_P) at the child's centre
#include "constraints/joints/common.hpp"

namespace appell {

namespace {

class Prismatic final : public JointRows<Prismatic> {
 public:
  const char* name() const override { return "prismatic"; }
  int nq() const override { return 1; }
  int nu() const override { return 1; }
  JointSyntax syntax() const override { return {false, 1, true}; }
  JointShape shape() const override { return JointShape::Slide; }
  std::vector<std::string> names_in(JointFormat f) const override {
    return {f == JointFormat::Urdf ? "prismatic" : "slide"};
  }
  template <class S, class Motion>
  void write_motion(const S* q, const S*, Motion& m) const {
    using V = Eigen::Matrix<S, 3, 1>;
    m.R.setIdentity();
    m.d = V(S(0), S(0), q[0]);
    joint_math::slide(m, 0, Vec3::UnitZ());
    m.c.setZero();
  }

  void coordinates(const Mat3&, const Vec3& d, double* q) const override { q[0] = d.z(); }
  int rows() const override { return 5; }
  template <class View, class Span>
  void write_rows(const View& in, End P, End C, const JointFrames& f, const Span& out) const {
    int row = rotation_lock_rows(in, P, C, f.E_P * f.E_C.transpose(), out, 0);
    row = plane_row(in, P, C, f.X_P, f.X_C, f.E_P.col(0), 0.0, out, row);
    plane_row(in, P, C, f.X_P, f.X_C, f.E_P.col(1), 0.0, out, row);
  }
  void multipliers(const BodyState& P, const BodyState&, const JointFrames& fr, const Vec3& f,
                   const Vec3& m, double* l) const override {
    l[0] = m.x(), l[1] = m.y(), l[2] = m.z();
    l[3] = joint_math::plane_multiplier(P, fr.E_P.col(0), f);
    l[4] = joint_math::plane_multiplier(P, fr.E_P.col(1), f);
  }
};

}  // namespace

const JointType& prismatic_joint() {
  static const Prismatic type;
  return type;
}

}  // namespace appell
