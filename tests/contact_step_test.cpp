// Moreau–Jean stepping with contacts (engine/contact/moreau.hpp) against closed forms:
// a box resting and sliding on a ramp, a bouncing ball, a sphere rolling down an incline.
// The detectors are analytic (a plane z = 0 against box corners or a sphere); the ramp is
// the plane z = 0 under a tilted gravity.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>

#include "engine/contact/moreau.hpp"

namespace appell {
namespace {

constexpr double kG = 9.81;

// the plane z = 0 (the world) against points of body 0: box corners, or a sphere's centre
class PlaneDetector : public ContactDetector {
 public:
  PlaneDetector(std::vector<Vec3> corners, double radius, double mu, double e)
      : corners_(std::move(corners)), radius_(radius), mu_(mu), e_(e) {}
  void detect(const Model&, const Data& d, double margin, std::vector<ContactPoint>& out) override {
    const BodyState& s = d.body[0];
    for (size_t k = 0; k < corners_.size(); ++k) {
      const Vec3 c = s.point(corners_[k]);
      const double gap = c.z() - radius_;
      if (!(gap < margin)) continue;
      ContactPoint p;
      p.body_a = kWorld;
      p.body_b = 0;
      p.shape_a = 0;
      p.shape_b = 1;
      p.normal = Vec3::UnitZ();
      p.point = c - (radius_ + 0.5 * gap) * Vec3::UnitZ();
      p.gap = gap;
      p.friction = mu_;
      p.restitution = e_;
      p.feature = static_cast<int>(k);
      out.push_back(p);
    }
  }

 private:
  std::vector<Vec3> corners_;
  double radius_, mu_, e_;
};

struct Sim {
  Model m;
  Data d;
  Eigen::VectorXd q, u;
  MoreauStepper stepper;
  Sim(const ModelBuilder& b, std::unique_ptr<ContactDetector> det, const MoreauOptions& o)
      : m(compile(b)),
        d(m),
        q(m.initial_state().q),
        u(m.initial_state().u),
        stepper(m, std::move(det), o) {}
  // the energy from the body states, gravity's potential included
  double energy() const {
    double e = 0.0;
    for (int b = 0; b < m.nbody(); ++b) {
      const BodyState& s = d.body[b];
      const Body& body = m.bodies()[b];
      const Mat3 J = s.Q * body.inertia * s.Q.transpose();
      e += 0.5 * body.mass * s.v.squaredNorm() + 0.5 * s.w.dot(J * s.w) -
           body.mass * m.gravity().dot(s.x);
    }
    return e;
  }
};

// a box 0.4 × 0.2 × 0.1 m of 2 kg resting on z = 0, gravity tilted by θ about y: the ramp
MoreauOptions tight_options() {
  MoreauOptions o;
  o.solver.tolerance = 1e-12;
  return o;
}

ModelBuilder box_on_ramp(double theta) {
  ModelBuilder b;
  b.gravity = kG * Vec3(std::sin(theta), 0.0, -std::cos(theta));
  Body box;
  box.name = "box";
  box.mass = 2.0;
  const Vec3 h(0.2, 0.1, 0.05);
  box.inertia =
      (box.mass / 3.0) * Vec3(h.y() * h.y() + h.z() * h.z(), h.x() * h.x() + h.z() * h.z(),
                              h.x() * h.x() + h.y() * h.y())
                             .asDiagonal();
  box.position = Vec3(0.0, 0.0, h.z());
  b.add_body(box);
  return b;
}

std::vector<Vec3> bottom_corners() {
  return {Vec3(-0.2, -0.1, -0.05), Vec3(0.2, -0.1, -0.05), Vec3(-0.2, 0.1, -0.05),
          Vec3(0.2, 0.1, -0.05)};
}

TEST(ContactStep, BoxInsideTheFrictionConeStaysPut) {
  const double theta = 0.3, mu = 0.5;  // tan θ = 0.309 < μ
  Sim r(box_on_ramp(theta), std::make_unique<PlaneDetector>(bottom_corners(), 0.0, mu, 0.0),
        tight_options());
  const double h = 1e-3;
  const Vec3 x0(0.0, 0.0, 0.05);
  double worst = 0.0, pen = 0.0, e0 = 0.0;
  int worst_iterations = 0;
  for (int k = 0; k < 3000; ++k) {
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok);
    ASSERT_TRUE(r.stepper.stats().converged) << r.stepper.stats().residual;
    if (k == 0) e0 = r.energy();
    EXPECT_LE(r.energy(), e0 + 1e-12);
    worst = std::max(worst, (r.d.body[0].x - x0).norm());
    pen = std::max(pen, r.stepper.stats().penetration);
    worst_iterations = std::max(worst_iterations, r.stepper.stats().iterations);
  }
  EXPECT_LE(worst, 1e-9);  // 3 s on the ramp
  EXPECT_LE(pen, 1e-6);
  for (const ContactSample& c : r.stepper.records())
    EXPECT_EQ(c.state, ContactSample::State::Stick);
  // the net impulse per step balances gravity along the ramp and across it
  Vec3 net = Vec3::Zero();
  for (const ContactSample& c : r.stepper.records())
    net += c.impulse(0) * c.point.normal + c.impulse(1) * c.t1 + c.impulse(2) * c.t2;
  EXPECT_LT((net + 2.0 * h * r.m.gravity()).norm(), 1e-12);
  RecordProperty("worst_iterations", worst_iterations);
}

TEST(ContactStep, BoxOutsideTheConeSlidesAtTheCoulombAcceleration) {
  const double theta = 0.4, mu = 0.2;  // tan θ = 0.423 > μ
  Sim r(box_on_ramp(theta), std::make_unique<PlaneDetector>(bottom_corners(), 0.0, mu, 0.0),
        tight_options());
  const double h = 1e-3, T = 1.0;
  const int n = static_cast<int>(std::lround(T / h));
  double e_prev = 0.0;
  for (int k = 0; k < n; ++k) {
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok);
    ASSERT_TRUE(r.stepper.stats().converged);
    const double e = r.energy();
    if (k > 0) {
      EXPECT_LE(e, e_prev + 1e-12);  // friction only takes
    }
    e_prev = e;
    EXPECT_LE(r.stepper.stats().penetration, 1e-6);
  }
  const double a = kG * (std::sin(theta) - mu * std::cos(theta));
  EXPECT_NEAR(r.d.body[0].v.x() / (a * T), 1.0, 1e-9);
  EXPECT_NEAR(r.d.body[0].x.x() / (0.5 * a * T * T), 1.0, 1e-9);
  EXPECT_LT(std::abs(r.d.body[0].v.z()), 1e-9);
  for (const ContactSample& c : r.stepper.records()) EXPECT_EQ(c.state, ContactSample::State::Slip);
}

ModelBuilder ball(double radius, double height, const Vec3& g, const Vec3& v = Vec3::Zero()) {
  ModelBuilder b;
  b.gravity = g;
  Body s;
  s.name = "ball";
  s.mass = 0.5;
  s.inertia = Mat3::Identity() * (0.4 * s.mass * radius * radius);
  s.position = Vec3(0.0, 0.0, height);
  s.velocity = v;
  b.add_body(s);
  return b;
}

TEST(ContactStep, BallBouncesToTheRestitutionHeights) {
  // apexes e^{2k} h₀.  The scheme meets an impact within one step, up to h v before the
  // ball would touch, so each apex is off by at most about h v_impact ≤ h √(2 g h₀) per
  // bounce (4.4e-4 m here)
  const double r0 = 0.1, h0 = 1.0, e = 0.8, h = 1e-4;
  Sim r(ball(r0, r0 + h0, Vec3(0, 0, -kG)),
        std::make_unique<PlaneDetector>(std::vector<Vec3>{Vec3::Zero()}, r0, 0.5, e),
        tight_options());
  std::vector<double> apex;
  double z_prev = h0, vz_prev = 0.0, e_prev = r.energy(), pen = 0.0;
  const double bound = h * std::sqrt(2 * kG * h0);
  for (int k = 0; k < 26000 && apex.size() < 3; ++k) {
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok);
    const double z = r.d.body[0].x.z() - r0, vz = r.d.body[0].v.z();
    if (vz_prev > 0 && vz <= 0) apex.push_back(std::max(z, z_prev));
    const double en = r.energy();
    EXPECT_LE(en, e_prev + 0.5 * kG * bound) << k;  // never more than the lift of one step
    e_prev = std::min(e_prev, en);
    pen = std::max(pen, r.stepper.stats().penetration);
    z_prev = z;
    vz_prev = vz;
  }
  ASSERT_EQ(apex.size(), 3u);
  for (size_t k = 0; k < apex.size(); ++k) {
    const double want = std::pow(e, 2.0 * (k + 1)) * h0;
    EXPECT_NEAR(apex[k], want, 2.0 * (k + 1) * bound) << k;
    RecordProperty("apex_error_" + std::to_string(k), std::to_string(apex[k] - want));
  }
  EXPECT_LE(pen, 1e-6);
}

TEST(ContactStep, SphereRollsWithoutSlippingDownAnIncline) {
  const double theta = 0.35, r0 = 0.1, mu = 0.5;  // rolls: needs μ ≥ 2/7 tan θ = 0.104
  Sim r(ball(r0, r0, kG * Vec3(std::sin(theta), 0.0, -std::cos(theta))),
        std::make_unique<PlaneDetector>(std::vector<Vec3>{Vec3::Zero()}, r0, mu, 0.0),
        tight_options());
  const double h = 1e-3, T = 1.0;
  const int n = static_cast<int>(std::lround(T / h));
  const double e0 = r.energy();
  for (int k = 0; k < n; ++k) {
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok);
    EXPECT_LE(r.energy(), e0 + 1e-10);  // rolling keeps the energy: no gain, no loss
    EXPECT_LE(r.stepper.stats().penetration, 1e-6);
  }
  const double a = 5.0 / 7.0 * kG * std::sin(theta);
  EXPECT_NEAR(r.d.body[0].v.x() / (a * T), 1.0, 1e-9);
  EXPECT_NEAR(r.energy(), e0, 1e-9 * std::abs(e0) + 1e-9);
  // the contact point is at rest: v − ω × r e_z = 0
  const Vec3 vc = r.d.body[0].v + r.d.body[0].w.cross(Vec3(0, 0, -r0));
  EXPECT_LT(vc.norm(), 1e-9);
}

TEST(ContactStep, SphereSlipsDownAnInclineWhenFrictionIsSmall) {
  // μ = 0.05 < 2/7 tan θ: the contact slides, friction μ m g cos θ up the slope, so the
  // centre accelerates at g (sin θ − μ cos θ) and the spin at 5 μ g cos θ / (2 r)
  const double theta = 0.35, r0 = 0.1, mu = 0.05;
  Sim r(ball(r0, r0, kG * Vec3(std::sin(theta), 0.0, -std::cos(theta))),
        std::make_unique<PlaneDetector>(std::vector<Vec3>{Vec3::Zero()}, r0, mu, 0.0),
        tight_options());
  const double h = 1e-3, T = 1.0;
  const int n = static_cast<int>(std::lround(T / h));
  double e_prev = r.energy();
  for (int k = 0; k < n; ++k) {
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok);
    EXPECT_LE(r.energy(), e_prev + 1e-12);  // sliding friction only takes
    e_prev = r.energy();
    EXPECT_LE(r.stepper.stats().penetration, 1e-6);
    if (k > 0) {
      ASSERT_EQ(r.stepper.records().size(), 1u);
      EXPECT_EQ(r.stepper.records()[0].state, ContactSample::State::Slip);
    }
  }
  const double a = kG * (std::sin(theta) - mu * std::cos(theta));
  const double spin = 5.0 * mu * kG * std::cos(theta) / (2.0 * r0);
  EXPECT_NEAR(r.d.body[0].v.x() / (a * T), 1.0, 1e-9);
  EXPECT_NEAR(r.d.body[0].w.y() / (spin * T), 1.0, 1e-9);
}

}  // namespace
}  // namespace appell
