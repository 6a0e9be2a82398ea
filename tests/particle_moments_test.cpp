// A particle in a Model has no inertia, no turn and takes no moment (appell/body.hpp,
// drop_particle_moments): what a Body or a Force gives a particle beyond its mass and its
// point's motion changes nothing.  The same model without those extras is the reference.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/inverse_dynamics.hpp>
#include <appell/primitives.hpp>

namespace appell {
namespace {

// a constant wrench on each of the two bodies
class TwoWrenches final : public Force {
 public:
  TwoWrenches(const SpatialForce& on_particle, const SpatialForce& on_body)
      : particle_(on_particle), body_(on_body) {}
  std::string type() const override { return "two wrenches"; }
  void apply(const StateView&, SpatialForce* out) const override {
    out[0] += particle_;
    out[1] += body_;
  }

 private:
  SpatialForce particle_, body_;
};

// Particle p on a rod to a point of rigid body r, which hangs on a rod from the world.
// `extras`: p's Body also says an inertia, an orientation and an angular velocity, and the
// force gives p a moment.
Model particle_on_a_body(bool extras) {
  ModelBuilder b;
  b.gravity = Vec3(0, 0, -9.81);
  Body p;
  p.name = "p";
  p.type = BodyType::Particle;
  p.mass = 2.0;
  p.position = Vec3(0.6, 0.2, -1.5);
  p.velocity = Vec3(0.3, -1.0, 0.4);
  if (extras) {
    p.inertia = Vec3(1.0, 2.0, 3.0).asDiagonal();
    p.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
    p.angular_velocity = Vec3(1.0, -2.0, 3.0);
  }
  Body r;
  r.name = "r";
  r.mass = 3.0;
  r.inertia = Vec3(0.2, 0.3, 0.4).asDiagonal();
  r.position = Vec3(0.0, 0.0, -1.0);
  r.velocity = Vec3(0.1, 0.2, 0.0);
  r.angular_velocity = Vec3(0.5, 0.1, -0.2);
  const int ip = b.add_body(p), ir = b.add_body(r);
  const Vec3 top(0.0, 0.0, -0.5), side(0.2, 0.0, -1.1);
  b.add_constraint(std::make_shared<DistanceConstraint>(
      "hanger", kWorld, ir, b.initial_state(kWorld), b.initial_state(ir), Vec3::Zero(), top, 0.5));
  b.add_constraint(std::make_shared<DistanceConstraint>("rod", ir, ip, b.initial_state(ir),
                                                        b.initial_state(ip), side, p.position,
                                                        (p.position - side).norm()));
  const SpatialForce on_p(Vec3(1.0, 0.0, 0.5), extras ? Vec3(5.0, 6.0, 7.0) : Vec3::Zero());
  b.add_force(std::make_shared<TwoWrenches>(on_p, SpatialForce(Vec3(0, 1, 0), Vec3(0.1, 0, 0.2))));
  return compile(b);
}

TEST(ParticleMoments, AParticleInAModelHasNoInertiaNoTurnAndNoAngularVelocity) {
  const Model m = particle_on_a_body(true);
  const Body& p = m.bodies()[0];
  EXPECT_TRUE(p.inertia.isZero(0.0));
  EXPECT_TRUE(p.angular_velocity.isZero(0.0));
  EXPECT_TRUE(p.initial_state().Q.isIdentity(0.0));
  EXPECT_TRUE(m.bodies()[1].inertia.isApprox(Mat3(Vec3(0.2, 0.3, 0.4).asDiagonal())));
}

TEST(ParticleMoments, WhatAParticleCannotTakeChangesNoFormulation) {
  const Model with = particle_on_a_body(true), without = particle_on_a_body(false);
  for (Formulation f :
       {Formulation::Pinv, Formulation::Sparse, Formulation::GibbsAppell, Formulation::Recursive}) {
    const std::string what = formulation_name(f);
    Data dw(with), dn(without);
    ASSERT_EQ(forward(with, dw, f), SolveStatus::Ok) << what;
    ASSERT_EQ(forward(without, dn, f), SolveStatus::Ok) << what;
    EXPECT_LE((dw.udot - dn.udot).lpNorm<Eigen::Infinity>(), 1e-12 * dn.udot.norm()) << what;
    EXPECT_LE((dw.lambda - dn.lambda).lpNorm<Eigen::Infinity>(), 1e-12 * dn.lambda.norm()) << what;
    // the moment the force gave p is dropped where the forces are formed
    EXPECT_TRUE(dw.applied[0].moment.isZero(0.0)) << what;
    EXPECT_EQ(dw.applied[1].moment, dn.applied[1].moment) << what;
    // the rod's reaction on p has no moment (slot 1 of "rod", after "hanger"'s one slot)
    EXPECT_TRUE(dw.reaction[with.slot_offset(1) + 1].moment.isZero(0.0)) << what;
  }
}

TEST(ParticleMoments, WhatAParticleCannotTakeChangesNoInverseDynamics) {
  const Model with = particle_on_a_body(true), without = particle_on_a_body(false);
  Data dw(with), dn(without);
  const Eigen::VectorXd udot = Eigen::VectorXd::LinSpaced(with.initial_state().u.size(), -1.0, 2.0);
  Eigen::VectorXd tw, tn;
  inverse_dynamics(with, dw, with.initial_state(), udot, tw);
  inverse_dynamics(without, dn, without.initial_state(), udot, tn);
  ASSERT_EQ(tw.size(), tn.size());
  EXPECT_LE((tw - tn).lpNorm<Eigen::Infinity>(), 1e-12 * tn.norm());
}

}  // namespace
}  // namespace appell
