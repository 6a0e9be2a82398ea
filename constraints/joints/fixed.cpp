// Fixed (weld) joint: no relative motion; the anchor is the child's centre.
//   nq = nu = 0, R = I, d = 0.
//   rows (6): point_coincident(child's centre) + rotation_lock
#include "constraints/joints/common.hpp"

namespace appell {

namespace {

class Fixed final : public JointRows<Fixed> {
 public:
  const char* name() const override { return "fixed"; }
  int nq() const override { return 0; }
  int nu() const override { return 0; }
  JointSyntax syntax() const override { return {false, 0, true}; }
  std::vector<std::string> names_in(JointFormat f) const override {
    if (f == JointFormat::Urdf) return {"fixed"};
    return {};
  }
  Mat3 axes(const Vec3&, const Vec3&) const override { return Mat3::Identity(); }
  template <class S, class Motion>
  void write_motion(const S*, const S*, Motion& m) const {
    m.R.setIdentity();
    m.d.setZero();
    m.c.setZero();
  }

  void coordinates(const Mat3&, const Vec3&, double*) const override {}
  int rows() const override { return 6; }
  template <class View, class Span>
  void write_rows(const View& in, End P, End C, const JointFrames& f, const Span& out) const {
    const int row = point_coincident_rows(in, P, C, f.X_P, f.X_C, out, 0);
    rotation_lock_rows(in, P, C, f.E_P * f.E_C.transpose(), out, row);
  }
  void multipliers(const BodyState&, const BodyState&, const JointFrames&, const Vec3& f,
                   const Vec3& m, double* l) const override {
    joint_math::point_multipliers(f, l);
    l[3] = m.x(), l[4] = m.y(), l[5] = m.z();
  }
};

}  // namespace

const JointType& fixed_joint() {
  static const Fixed type;
  return type;
}

}  // namespace appell
