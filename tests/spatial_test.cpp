// The one spatial vocabulary (appell/spatial.hpp): its shifts against the statics they
// stand for, and the per-body block of a maximal vector on rigid bodies and particles.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <appell/appell.hpp>
#include <limits>
#include <random>
#include <type_traits>

namespace appell {
namespace {

static_assert(std::is_same_v<RowSpan, RowSpanT<double>>);

struct Rng {
  std::mt19937_64 gen{20261126};
  Vec3 vec() {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    return {u(gen), u(gen), u(gen)};
  }
};

// (X1), (X2): moving a force and a motion between two points keeps their power
TEST(Spatial, ShiftsKeepPower) {
  Rng rng;
  for (int k = 0; k < 100; ++k) {
    const SpatialForce F(rng.vec(), rng.vec());   // at C
    const SpatialMotion a(rng.vec(), rng.vec());  // of P
    const Vec3 r = rng.vec();                     // x̄_C − x̄_P
    EXPECT_NEAR(dot(F.shifted(r), a), dot(F, a.shifted(r)), 1e-14);
  }
}

// A force f through the point x has the moment (x − p) × f about any point p: adding it at
// the centre C and shifting the result to P gives the moment computed about P directly
TEST(Spatial, ForceAtPointMovedToAnotherCentre) {
  Rng rng;
  for (int k = 0; k < 100; ++k) {
    const Vec3 x_C = rng.vec(), x_P = rng.vec(), x = rng.vec(), f = rng.vec(), n = rng.vec();
    SpatialForce F(Vec3::Zero(), n);  // a pure couple n, then f at x
    F.add_at(x - x_C, f);
    const SpatialForce at_P = F.shifted(x_C - x_P);
    EXPECT_LT((at_P.force - f).norm(), 1e-15);
    EXPECT_LT((at_P.moment - (n + (x - x_P).cross(f))).norm(), 1e-14);
    // and back again: the shifts are inverse to each other
    const SpatialForce back = at_P.shifted(x_P - x_C);
    EXPECT_LT((back.moment - F.moment).norm(), 1e-14);
  }
}

// A motion of P seen at C: the velocity of C's point v̄_P + ω × (x̄_C − x̄_P), the same ω
TEST(Spatial, MotionShiftIsRigidVelocity) {
  Rng rng;
  const Vec3 v = rng.vec(), w = rng.vec(), r = rng.vec();
  const SpatialMotion at_C = SpatialMotion(v, w).shifted(r);
  EXPECT_LT((at_C.linear - (v + w.cross(r))).norm(), 1e-15);
  EXPECT_EQ(at_C.angular, w);
}

// (X3), (X4): a motion b and a force F, both about O, fixed to a body that moves with the
// twist a about O for a time h, become (R b_v + p × R b_ω; R b_ω) and (R F_f; R F_τ + p ×
// R F_f), R = exp(h â_ω) and p the image of O (the screw motion's exponential).  Their rates
// at h = 0, by central differences, are a × b and a ×* F; and (a ×* F)·b = −F·(a × b).
TEST(Spatial, CrossProductsAreRatesOfCarriedVectors) {
  Rng rng;
  for (int k = 0; k < 20; ++k) {
    const SpatialMotion a(rng.vec(), rng.vec()), b(rng.vec(), rng.vec());
    const SpatialForce F(rng.vec(), rng.vec());
    const Vec3 &v = a.linear, &w = a.angular;
    auto moved = [&](double h, SpatialMotion& bh, SpatialForce& Fh) {
      const Mat3 R = Eigen::AngleAxisd(h * w.norm(), w.normalized()).toRotationMatrix();
      const Vec3 p = ((Mat3::Identity() - R) * w.cross(v) + w * w.dot(v) * h) / w.squaredNorm();
      bh = SpatialMotion(R * b.linear + p.cross(R * b.angular), R * b.angular);
      Fh = SpatialForce(R * F.force, R * F.moment + p.cross(R * F.force));
    };
    const double h = 1e-5;
    SpatialMotion b1, b0;
    SpatialForce F1, F0;
    moved(h, b1, F1);
    moved(-h, b0, F0);
    const SpatialMotion db = cross(a, b);
    const SpatialForce dF = cross(a, F);
    EXPECT_LT((db.linear - (b1.linear - b0.linear) / (2 * h)).norm(), 1e-8);
    EXPECT_LT((db.angular - (b1.angular - b0.angular) / (2 * h)).norm(), 1e-8);
    EXPECT_LT((dF.force - (F1.force - F0.force) / (2 * h)).norm(), 1e-8);
    EXPECT_LT((dF.moment - (F1.moment - F0.moment) / (2 * h)).norm(), 1e-8);
    EXPECT_NEAR(dot(cross(a, F), b), -dot(F, cross(a, b)), 1e-14);
  }
}

// M a for a rigid body's spatial inertia diag(m 1, J) is (m v̇, J ω̇); vec()/from_vec() are
// the (linear; angular) column the 6 × 6 operators act on
TEST(Spatial, InertiaTimesMotion) {
  Rng rng;
  Mat6 M = Mat6::Zero();
  const double mass = 2.5;
  Mat3 J;
  J << 2, 0.1, 0, 0.1, 3, 0.2, 0, 0.2, 4;
  M.topLeftCorner<3, 3>() = mass * Mat3::Identity();
  M.bottomRightCorner<3, 3>() = J;
  const SpatialMotion a(rng.vec(), rng.vec());
  const SpatialForce F = M * a;
  EXPECT_LT((F.force - mass * a.linear).norm(), 1e-15);
  EXPECT_LT((F.moment - J * a.angular).norm(), 1e-14);
  EXPECT_EQ(SpatialMotion::from_vec(a.vec()).angular, a.angular);
  EXPECT_EQ(SpatialForce::from_vec(F.vec()).force, F.force);
}

// Model::block on a rigid body, a particle and another rigid body: the blocks tile the
// maximal vector, and writing one never touches its neighbours
TEST(Spatial, BodyBlocksTileTheMaximalVector) {
  ModelBuilder b;
  Body rigid;
  rigid.name = "rigid";
  Body particle;
  particle.name = "particle";
  particle.type = BodyType::Particle;
  particle.position = Vec3(1, 0, 0);
  Body other = rigid;
  other.name = "other";
  other.position = Vec3(0, 1, 0);
  b.add_body(rigid);
  b.add_body(particle);
  b.add_body(other);
  const Model m = compile(b);
  ASSERT_EQ(m.ncomposite(), 3);
  int next = 0;
  for (int k = 0; k < m.ncomposite(); ++k) {
    const BodyBlock block = m.block(k);
    EXPECT_EQ(block.offset, next);
    EXPECT_EQ(block.size(), m.composites()[k].nu());
    next += block.size();
  }
  EXPECT_EQ(next, m.nu());

  const double nan = std::numeric_limits<double>::quiet_NaN();
  Eigen::VectorXd x = Eigen::VectorXd::Constant(m.nu(), nan);
  const SpatialForce F(Vec3(1, 2, 3), Vec3(4, 5, 6));
  m.block(1).set(x, F);  // the particle: its force alone
  EXPECT_EQ(Vec3(x.segment<3>(6)), F.force);
  EXPECT_TRUE(x.head<6>().array().isNaN().all());
  EXPECT_TRUE(x.tail<6>().array().isNaN().all());
  x.setZero();
  m.block(2).set(x, F);
  m.block(2).add(x, F);
  EXPECT_EQ(Vec3(x.segment<3>(9)), 2 * F.force);
  EXPECT_EQ(Vec3(x.segment<3>(12)), 2 * F.moment);
  EXPECT_EQ(x.head<9>().squaredNorm(), 0.0);
  // read back: a particle's block has no angular part
  const SpatialMotion a = m.block(1).motion(Eigen::VectorXd::Constant(m.nu(), 7.0));
  EXPECT_EQ(a.linear, Vec3::Constant(7.0));
  EXPECT_EQ(a.angular, Vec3::Zero());
  // F · block is the power: F · (v̄, ω) for the rigid body, F_f · v̄ for the particle
  Eigen::VectorXd u(m.nu());
  for (int i = 0; i < m.nu(); ++i) u(i) = 0.5 * i - 3.0;
  EXPECT_DOUBLE_EQ(m.block(0).dot(F, u),
                   F.force.dot(u.segment<3>(0)) + F.moment.dot(u.segment<3>(3)));
  EXPECT_DOUBLE_EQ(m.block(1).dot(F, u), F.force.dot(u.segment<3>(6)));
}

}  // namespace
}  // namespace appell
