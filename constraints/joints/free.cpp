// Free (floating) joint: any displacement and rotation.  Every body the tree does not
// reach from the world becomes the root of its own subtree on a free joint to the world;
// a scene may also name it between two bodies (URDF's "floating").
//   q = (d, quaternion [w x y z] of R) (7), u = (ḋ, ω_rel) in the parent joint frame (6),
//   S = I₆, Ṡ u = 0, q̇ = (u_lin, ½ (0, u_ang) ⊗ q_quat).  For a root: x̄, Q, v̄, ω world.
//   rows: none.
#include "constraints/joints/common.hpp"

namespace appell {

namespace {

class Free final : public JointRows<Free> {
 public:
  const char* name() const override { return "free"; }
  JointShape shape() const override { return JointShape::Free; }
  int nq() const override { return 7; }
  int nu() const override { return 6; }
  JointSyntax syntax() const override { return {true, 0, true}; }
  int quaternion() const override { return 3; }
  std::vector<std::string> names_in(JointFormat f) const override {
    return {f == JointFormat::Urdf ? "floating" : "free"};
  }
  Mat3 axes(const Vec3&, const Vec3&) const override { return Mat3::Identity(); }
  template <class S, class Motion>
  void write_motion(const S* q, const S*, Motion& m) const {
    using V = Eigen::Matrix<S, 3, 1>;
    m.R = joint_math::quat_rotation(q + 3);
    m.d = V(q[0], q[1], q[2]);
    m.S.setIdentity();
    m.c.setZero();
  }

  void coordinates(const Mat3& R, const Vec3& d, double* q) const override {
    q[0] = d.x(), q[1] = d.y(), q[2] = d.z();
    joint_math::quat_store(R, q + 3);
  }
  void qdot(const double* q, const double* u, double* qdot) const override {
    for (int k = 0; k < 3; ++k) qdot[k] = u[k];
    joint_math::quat_rate(q + 3, u + 3, qdot + 3);
  }
  void normalize(double* q) const override { joint_math::quat_normalize(q + 3); }
  int rows() const override { return 0; }
  template <class View, class Span>
  void write_rows(const View&, End, End, const JointFrames&, const Span&) const {}
  void multipliers(const BodyState&, const BodyState&, const JointFrames&, const Vec3&, const Vec3&,
                   double*) const override {}
};

}  // namespace

const JointType& free_joint() {
  static const Free type;
  return type;
}

}  // namespace appell
