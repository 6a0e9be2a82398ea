// Universal (Hooke) joint: turns θ1 about the parent's axis x, then θ2 about the child's
// axis y (the scene's "axes": [parent's, child's], perpendicular), through the anchor.
//   R = rot_x(θ1) rot_y(θ2), d = 0,
//   S = [(0; e_x) (0; rot_x(θ1) e_y)],   Ṡ u = (0; e_x × rot_x(θ1) e_y) u1 u2.
//   rows (4): point_coincident(anchor) + angle(x_P ⊥ y_C)
// Run from the child (reversed_axes), the motion R(q)ᵀ = rot_y(−θ2) rot_x(−θ1) is a
// universal joint in the frame (y, x, −z): the two axes trade places.
#include <stdexcept>

#include "constraints/joints/common.hpp"

namespace appell {

namespace {

class Universal final : public JointRows<Universal> {
 public:
  const char* name() const override { return "universal"; }
  int nq() const override { return 2; }
  int nu() const override { return 2; }
  JointSyntax syntax() const override { return {true, 2, true}; }
  bool angle(int) const override { return true; }
  // The motion R = rot_x(θ1) rot_y(θ2) and the row x_P ⊥ y_C hold in an orthonormal frame
  // only: the child's axis is taken across the first (its component along it removed; a
  // scene refuses axes more than 1e-6 from perpendicular, the C++ API takes them so).
  Mat3 axes(const Vec3& axis, const Vec3& axis2) const override {
    const Vec3 a1 = axis.normalized();
    const Vec3 across = axis2 - axis2.dot(a1) * a1;
    if (!(across.norm() > 1e-9 * axis2.norm()))
      throw std::invalid_argument("universal joint: the two axes are parallel");
    const Vec3 a2 = across.normalized();
    Mat3 E;
    E << a1, a2, a1.cross(a2);
    return E;
  }
  Mat3 reversed_axes(const Mat3& E) const override {
    Mat3 F;
    F << E.col(1), E.col(0), -E.col(2);
    return F;
  }
  template <class S, class Motion>
  void write_motion(const S* q, const S* u, Motion& m) const {
    using V = Eigen::Matrix<S, 3, 1>;
    using std::cos, std::sin;
    const S c1 = cos(q[0]), s1 = sin(q[0]);
    m.R = joint_math::rot_x(q[0]) * joint_math::rot_y(q[1]);
    m.d.setZero();
    joint_math::turn(m, 0, Vec3::UnitX());
    joint_math::turn(m, 1, V(S(0), c1, s1));
    m.c.template head<3>().setZero();
    m.c.template tail<3>() = V(S(0), -s1, c1) * (u[0] * u[1]);
  }

  void coordinates(const Mat3& R, const Vec3&, double* q) const override {
    q[0] = std::atan2(R(2, 1), R(1, 1));  // R e_y = rot_x(θ1) e_y
    q[1] = std::atan2(R(0, 2), R(0, 0));  // Rᵀ e_x = rot_y(−θ2) e_x
  }
  int rows() const override { return 4; }
  template <class View, class Span>
  void write_rows(const View& in, End P, End C, const JointFrames& f, const Span& out) const {
    const int row = point_coincident_rows(in, P, C, f.X_P, f.X_C, out, 0);
    angle_row(in, P, C, f.E_P.col(0), f.E_C.col(1), 0.0, out, row);
  }
  void multipliers(const BodyState& P, const BodyState& C, const JointFrames& fr, const Vec3& f,
                   const Vec3& m, double* l) const override {
    joint_math::point_multipliers(f, l);
    const Vec3 k = joint_math::angle_axis(P, C, fr.E_P.col(0), fr.E_C.col(1));
    l[3] = k.dot(m) / k.squaredNorm();
  }
};

}  // namespace

const JointType& universal_joint() {
  static const Universal type;
  return type;
}

}  // namespace appell
