// engine/forces: applied wrenches against their potentials and definitions.
//
// A conservative force is minus the gradient of its potential: on body B, with x̄ moved by
// δx and Q by a small world-frame rotation exp(δφ×), δV = −F·δx − M·δφ (M about x̄).
// Central differences of V give F and M independently of apply().
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <memory>
#include <vector>

#include "engine/assembly/stages.hpp"

namespace appell {
namespace {

std::vector<BodyState> two_bodies() {
  std::vector<BodyState> s(2);
  s[0].x = Vec3(0.1, -0.3, 0.2);
  s[0].Q = quat_from_rotation_vector(Vec3(0.3, 0.9, -0.4)).toRotationMatrix();
  s[0].v = Vec3(0.4, 0.1, -0.2);
  s[0].w = Vec3(1.0, -0.5, 0.3);
  s[1].x = Vec3(1.2, 0.4, -0.5);
  s[1].Q = quat_from_rotation_vector(Vec3(-1.1, 0.2, 0.7)).toRotationMatrix();
  s[1].v = Vec3(-0.3, 0.6, 0.2);
  s[1].w = Vec3(0.2, 0.8, -1.3);
  return s;
}

TEST(Forces, SpringIsMinusTheGradientOfItsPotential) {
  std::vector<BodyState> s0 = two_bodies();
  // built at another pose: the points are material points of each body
  const SpringForce spring(0, 1, s0[0], s0[1], s0[0].x + Vec3(0.1, 0.2, 0),
                           s0[1].x + Vec3(0, -0.1, 0.3), 25.0, 0.8, 0.0);
  std::vector<BodyState> s = two_bodies();
  s[0].x += Vec3(0.05, -0.1, 0.02);
  s[1].Q = quat_from_rotation_vector(Vec3(0.2, -0.3, 0.1)).toRotationMatrix() * s[1].Q;
  std::vector<SpatialForce> w(2);
  spring.apply(StateView{s.data(), 0.0}, w.data());
  const double h = 1e-6;
  for (int b = 0; b < 2; ++b) {
    Vec3 F, M;
    for (int k = 0; k < 3; ++k) {
      std::vector<BodyState> p = s, q = s;
      p[b].x += h * Vec3::Unit(k);
      q[b].x -= h * Vec3::Unit(k);
      F(k) =
          -(spring.potential(StateView{p.data(), 0}) - spring.potential(StateView{q.data(), 0})) /
          (2 * h);
      p = s;
      q = s;
      p[b].Q = quat_from_rotation_vector(h * Vec3::Unit(k)).toRotationMatrix() * s[b].Q;
      q[b].Q = quat_from_rotation_vector(-h * Vec3::Unit(k)).toRotationMatrix() * s[b].Q;
      M(k) =
          -(spring.potential(StateView{p.data(), 0}) - spring.potential(StateView{q.data(), 0})) /
          (2 * h);
    }
    EXPECT_LE((w[b].force - F).norm(), 1e-7 * (1 + F.norm())) << "body " << b;
    EXPECT_LE((w[b].moment - M).norm(), 1e-7 * (1 + M.norm())) << "body " << b;
  }
}

// The damper's force is −c l̇ e on B, with l̇ the rate of the length along the motion.
TEST(Forces, SpringDamperOpposesTheRateOfLength) {
  const std::vector<BodyState> s = two_bodies();
  const Vec3 Xa(0.1, 0.2, 0), Xb(0, -0.1, 0.3);  // body frames (built at the same pose)
  const double l0 = (s[1].point(Xb) - s[0].point(Xa)).norm();
  const SpringForce damper(0, 1, s[0], s[1], s[0].point(Xa), s[1].point(Xb), 0.0, l0, 3.0);
  std::vector<SpatialForce> w(2);
  damper.apply(StateView{s.data(), 0.0}, w.data());
  auto length = [&](double t) {
    std::vector<BodyState> m = s;
    for (BodyState& b : m) {
      b.x += b.v * t;
      b.Q = quat_from_rotation_vector(b.w * t).toRotationMatrix() * b.Q;
    }
    return (m[1].point(Xb) - m[0].point(Xa)).norm();
  };
  const double h = 1e-6, ldot = (length(h) - length(-h)) / (2 * h);
  const Vec3 e = (s[1].point(Xb) - s[0].point(Xa)).normalized();
  EXPECT_LE((w[1].force + 3.0 * ldot * e).norm(), 1e-8);
  EXPECT_LE((w[0].force - 3.0 * ldot * e).norm(), 1e-8);
  EXPECT_LE((w[1].moment - s[1].offset(Xb).cross(w[1].force)).norm(), 1e-12);
  EXPECT_EQ(damper.potential(StateView{s.data(), 0.0}), 0.0);  // at its rest length, k = 0
}

TEST(Forces, PointForceTorqueDampingAndCallable) {
  const std::vector<BodyState> s = two_bodies();
  const StateView view{s.data(), 0.0};
  const Vec3 p = s[1].x + Vec3(0.3, -0.2, 0.1), f(1, 2, -3);
  std::vector<SpatialForce> w(2);
  PointForce(1, s[1], p, f).apply(view, w.data());
  EXPECT_TRUE(w[1].force.isApprox(f));
  EXPECT_TRUE(w[1].moment.isApprox((p - s[1].x).cross(f)));  // [HO21 eq. 11]
  TorqueForce(0, Vec3(0.5, 0, 0)).apply(view, w.data());
  EXPECT_TRUE(w[0].moment.isApprox(Vec3(0.5, 0, 0)));
  DampingForce(0, 2.0, 0.5).apply(view, w.data());
  EXPECT_TRUE(w[0].force.isApprox(-2.0 * s[0].v));
  EXPECT_TRUE(w[0].moment.isApprox(Vec3(0.5, 0, 0) - 0.5 * s[0].w));
  const CallableForce call(
      [](const StateView& v, SpatialForce* out) { out[0].force += v.body(0).x; },
      [](const StateView& v) { return v.body(1).x.z(); });
  std::vector<SpatialForce> c(2);
  call.apply(view, c.data());
  EXPECT_EQ(c[0].force, s[0].x);
  EXPECT_EQ(call.potential(view), s[1].x.z());
}

// Gravity enters F as m g, and the gyroscopic term as −ω × Jω [HO21 eq. 7].
TEST(Forces, GeneralizedForceOfTheModel) {
  ModelBuilder m_b;
  m_b.gravity = Vec3(0, -9.81, 0);
  Body b;
  b.name = "top";
  b.mass = 2.0;
  b.inertia = Vec3(0.1, 0.2, 0.25).asDiagonal();
  b.orientation = quat_from_rotation_vector(Vec3(0.2, 0.4, -0.1));
  b.angular_velocity = Vec3(1, 2, 3);
  m_b.add_body(b);
  m_b.add_force(std::make_shared<TorqueForce>(0, Vec3(0.1, 0.2, 0.3)));
  const Model m = compile(m_b);
  Data d(m);
  kinematics(m, d);
  applied_forces(m, d);
  const Mat3 Q = b.orientation.toRotationMatrix();
  const Mat3 J = Q * b.inertia * Q.transpose();
  EXPECT_TRUE(d.F.head<3>().isApprox(Vec3(0, -19.62, 0)));
  EXPECT_LE(
      (d.F.tail<3>() - (Vec3(0.1, 0.2, 0.3) - b.angular_velocity.cross(J * b.angular_velocity)))
          .norm(),
      1e-14);
}

}  // namespace
}  // namespace appell
