// The shipped contact scenes with the model's own collision detector (Bullet's, from the
// scene's shapes) under the Moreau–Jean stepper: a box and a ball dropped on the ground, and
// the example quadruped standing on its sphere feet.  Checked against conservation laws:
// each step's contact impulses equal the change of momentum less gravity's impulse, energy
// is never gained, nothing sinks into the ground.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/contact.hpp>
#include <cmath>
#include <string>

#include "engine/contact/moreau.hpp"

namespace appell {
namespace {

struct Run {
  Model m;
  Data d;
  Eigen::VectorXd q, u;
  MoreauStepper stepper;
  explicit Run(const std::string& scene)
      : m(load_model(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/" + scene)),
        d(m),
        q(m.initial_state().q),
        u(m.initial_state().u),
        stepper(m, make_contact_detector(m), options()) {}
  static MoreauOptions options() {
    MoreauOptions o;
    o.solver.tolerance = 1e-12;
    return o;
  }
  // total momentum and energy (kinetic + gravity) from d's body states
  Vec3 momentum() const {
    Vec3 p = Vec3::Zero();
    for (int b = 0; b < m.nbody(); ++b) p += m.bodies()[b].mass * d.body[b].v;
    return p;
  }
  double mass() const {
    double M = 0;
    for (const Body& b : m.bodies()) M += b.mass;
    return M;
  }
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
  // the contacts' impulse on the bodies over the last step (limits excluded)
  Vec3 contact_impulse() const {
    Vec3 P = Vec3::Zero();
    for (const ContactRecord& r : stepper.records()) {
      if (r.joint >= 0) continue;
      const Vec3 f = r.impulse(0) * r.point.normal + r.impulse(1) * r.t1 + r.impulse(2) * r.t2;
      // the world is body a of every ground contact here: b is pushed along +f
      P += (r.point.body_b >= 0 ? f : Vec3::Zero()) - (r.point.body_a >= 0 ? f : Vec3::Zero());
    }
    return P;
  }
};

TEST(ContactScenes, BoxAndBallLandWithoutGainingEnergyOrSinking) {
  Run r("box_on_ground_shapes.json");
  const double h = 1e-3;
  ASSERT_EQ(forward(r.m, r.d, State{0.0, r.q, r.u}), SolveStatus::Ok);
  double e_prev = r.energy(), worst_gain = 0, worst_depth = 0;
  int impacts = 0;
  for (int k = 0; k < 1500; ++k) {
    const Vec3 p0 = r.momentum();
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok) << "step " << k;
    ASSERT_TRUE(r.stepper.stats().converged) << "step " << k;
    // momentum balance of the step: Δp = M g h + contact impulses (no other force acts)
    const Vec3 balance = r.momentum() - p0 - r.mass() * r.m.gravity() * h - r.contact_impulse();
    ASSERT_LT(balance.norm(), 1e-9) << "step " << k;
    const double e = r.energy();
    worst_gain = std::max(worst_gain, e - e_prev);
    e_prev = e;
    worst_depth = std::max(worst_depth, r.stepper.stats().penetration);
    impacts += r.stepper.stats().impacts;
  }
  EXPECT_LT(worst_gain, 1e-9);
  EXPECT_LE(worst_depth, 1e-6);
  EXPECT_GT(impacts, 1);  // the ball bounces more than once
  // at rest in the end: the box flat on the ground (centre at half its height), still
  const int box = r.m.body_index("box");
  EXPECT_NEAR(r.d.body[box].x.z(), 0.1, 1e-6);
  EXPECT_LT(r.d.body[box].v.norm(), 1e-6);
  EXPECT_LT(r.d.body[box].w.norm(), 1e-6);
}

TEST(ContactScenes, QuadrupedStandsAndItsFeetCarryItsWeight) {
  Run r("robots/quadruped_standing.json");
  const double h = 1e-3;
  ASSERT_EQ(forward(r.m, r.d, State{0.0, r.q, r.u}), SolveStatus::Ok);
  const double z0 = r.d.body[r.m.body_index("torso")].x.z();
  double worst_depth = 0;
  Vec3 p0 = Vec3::Zero();
  for (int k = 0; k < 2000; ++k) {
    p0 = r.momentum();
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok) << "step " << k;
    ASSERT_TRUE(r.stepper.stats().converged) << "step " << k;
    worst_depth = std::max(worst_depth, r.stepper.stats().penetration);
  }
  EXPECT_LE(worst_depth, 1e-6);
  // standing: the torso sags only by the servos' give under its weight (under 2 cm)
  const BodyState& torso = r.d.body[r.m.body_index("torso")];
  EXPECT_NEAR(torso.x.z(), z0, 0.02);
  EXPECT_LT(torso.v.norm(), 1e-6);
  // the feet carry the weight: the vertical contact impulse of the last step is M g h plus
  // the (small) change of momentum, to 1e-9 relative; four feet touching
  int touching = 0;
  for (const ContactRecord& c : r.stepper.records())
    if (c.joint < 0 && c.impulse(0) > 0) ++touching;
  EXPECT_EQ(touching, 4);
  const double weight = r.mass() * r.m.gravity().norm();
  const double dp = (r.momentum() - p0).z() / h;
  EXPECT_LT(std::abs(dp), 1e-3 * weight);  // settled: the weight is nearly all of it
  EXPECT_NEAR(r.contact_impulse().z() / h, weight + dp, 1e-9 * weight);
}

}  // namespace
}  // namespace appell
