// Spherical (ball) joint: any rotation about the anchor.
//   q = quaternion [w x y z] of R, u = ω_rel in the parent joint frame (the placing
//   origin's axes, else the world's at the reference pose), d = 0,
//   S = [(0; e_x) (0; e_y) (0; e_z)], Ṡ u = 0, q̇ = ½ (0, u) ⊗ q.
//   rows (3): point_coincident(anchor).  Particles may take part.
#include "constraints/joints/common.hpp"

namespace appell {

namespace {

class Spherical final : public JointRows<Spherical> {
 public:
  const char* name() const override { return "spherical"; }
  int nq() const override { return 4; }
  int nu() const override { return 3; }
  JointSyntax syntax() const override { return {true, 0, false}; }
  int quaternion() const override { return 0; }
  std::vector<std::string> names_in(JointFormat f) const override {
    if (f == JointFormat::Mjcf) return {"ball"};
    return {};
  }
  // The joint frame F in which q turns the child: z along `axis`, y along `axis2` taken
  // across it, as a placing joint's origin gives them (the body frame, MuJoCo's ball joint
  // frame); the world's axes by default (z, y).  Directions that give no frame (zero or
  // parallel) leave the world's axes about `axis`, as a one-axis joint's.
  Mat3 axes(const Vec3& axis, const Vec3& axis2) const override {
    if (!(axis.norm() > 0)) return Mat3::Identity();
    const Vec3 z = axis.normalized();
    const Vec3 across = axis2 - axis2.dot(z) * z;
    if (!(across.norm() > 1e-9 * axis2.norm()) || !(axis2.norm() > 0))
      return JointType::axes(axis, axis2);
    const Vec3 y = across.normalized();
    Mat3 E;
    E << y.cross(z), y, z;
    return E;
  }
  template <class S, class Motion>
  void write_motion(const S* q, const S*, Motion& m) const {
    m.R = joint_math::quat_rotation(q);
    m.d.setZero();
    for (int k = 0; k < 3; ++k) joint_math::turn(m, k, Vec3::Unit(k));
    m.c.setZero();
  }

  void coordinates(const Mat3& R, const Vec3&, double* q) const override {
    joint_math::quat_store(R, q);
  }
  void qdot(const double* q, const double* u, double* qdot) const override {
    joint_math::quat_rate(q, u, qdot);
  }
  void normalize(double* q) const override { joint_math::quat_normalize(q); }
  int rows() const override { return 3; }
  template <class View, class Span>
  void write_rows(const View& in, End P, End C, const JointFrames& f, const Span& out) const {
    point_coincident_rows(in, P, C, f.X_P, f.X_C, out, 0);
  }
  void multipliers(const BodyState&, const BodyState&, const JointFrames&, const Vec3& f,
                   const Vec3&, double* l) const override {
    joint_math::point_multipliers(f, l);
  }
};

}  // namespace

const JointType& spherical_joint() {
  static const Spherical type;
  return type;
}

}  // namespace appell
