// The joint of a particle that is the root of its own subtree: three slides.
//   q = x̄ (3), u = v̄ (3), R = I, d = q, S = [(e_k; 0)], Ṡ u = 0.  No rows; not a scene type.
#include "constraints/joints/common.hpp"

namespace appell {

namespace {

class Particle final : public JointRows<Particle> {
 public:
  const char* name() const override { return "particle"; }
  int nq() const override { return 3; }
  int nu() const override { return 3; }
  JointSyntax syntax() const override { return {true, 0, false}; }
  Mat3 axes(const Vec3&, const Vec3&) const override { return Mat3::Identity(); }
  template <class S, class Motion>
  void write_motion(const S* q, const S*, Motion& m) const {
    using V = Eigen::Matrix<S, 3, 1>;
    m.R.setIdentity();
    m.d = V(q[0], q[1], q[2]);
    for (int k = 0; k < 3; ++k) joint_math::slide(m, k, Vec3::Unit(k));
    m.c.setZero();
  }

  void coordinates(const Mat3&, const Vec3& d, double* q) const override {
    q[0] = d.x(), q[1] = d.y(), q[2] = d.z();
  }
  int rows() const override { return 0; }
  template <class View, class Span>
  void write_rows(const View&, End, End, const JointFrames&, const Span&) const {}
  void multipliers(const BodyState&, const BodyState&, const JointFrames&, const Vec3&, const Vec3&,
                   double*) const override {}
};

}  // namespace

const JointType& particle_joint() {
  static const Particle type;
  return type;
}

}  // namespace appell
