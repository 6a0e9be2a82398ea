// The forward pipeline (engine/formulations/forward.cpp) against conservation laws.
//
//  * Energy: with springs and gravity only and ideal constraints (A u = 0, so the
//    constraint forces do no work: uᵀAᵀλ = 0), the total energy T + V is constant along
//    the computed motion.  dE/dt is taken by central differences of E along
//    x̄(t) = x̄ + v̄t + ½ v̄̇t², Q(t) = exp((ωt + ½ω̇t²)×) Q, u(t) = u + u̇t.
//  * Momentum: a floating system (nothing attached to the world, no gravity, internal
//    springs) has constant linear and angular momentum, so
//        Σ m v̄̇ = 0,   Σ (x̄ × m v̄̇ + J ω̇ + ω × Jω) = 0    (about the origin).
//    This checks the gyroscopic term −ω × Jω of F [HO21 eq. 7], which does no work and so
//    escapes the energy test.
//  * Newton's third law: the wrenches that one constraint between two bodies applies to
//    them are in equilibrium (Σ F = 0, Σ (M + x̄ × F) = 0).
//  * Baumgarte stabilization: the computed motion obeys g̈ + 2α ġ + β² g = 0 for each
//    holonomic row, from a state that violates the constraint.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "engine/assembly/stages.hpp"
#include "random_scenes.hpp"

namespace appell {
namespace {

using namespace test_scenes;

// every forward() contract holds for all four formulations
const Formulation kFormulations[] = {Formulation::Pinv, Formulation::GibbsAppell,
                                     Formulation::Sparse, Formulation::Recursive};

// The maximal state a time h along the motion with accelerations udot.
void advance(const Model& m, const Data& d, double h, Eigen::VectorXd& q, Eigen::VectorXd& u) {
  q = d.q;
  u = d.u + h * d.udot;
  for (int i = 0; i < m.ncomposite(); ++i) {  // the maximal slots: one per composite
    const int iq = m.q_offset(i), iu = m.u_offset(i);
    q.segment<3>(iq) += h * d.u.segment<3>(iu) + 0.5 * h * h * d.udot.segment<3>(iu);
    if (m.composites()[i].rigid()) {
      const Vec3 phi = h * d.u.segment<3>(iu + 3) + 0.5 * h * h * d.udot.segment<3>(iu + 3);
      const Quat q0(q(iq + 3), q(iq + 4), q(iq + 5), q(iq + 6));
      const Quat q1 = quat_from_rotation_vector(phi) * q0;
      q.segment<4>(iq + 3) << q1.w(), q1.x(), q1.y(), q1.z();
    }
  }
}

double energy_at(const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& u) {
  Data e(m);
  e.q = q;
  e.u = u;
  kinematics(m, e);
  return kinetic_energy(m, e) + potential_energy(m, e);
}

TEST(Forward, EnergyIsConservedAlongTheComputedMotion) {
  for (int k = 0; k < 16; ++k) {
    SceneOptions o;
    o.nbody = 1 + (k * 5) % 12;
    o.chain = k % 2 == 0;
    o.loops = k % 3 == 0;
    o.linear = k % 4 == 1;
    o.redundant = k % 5 == 2;
    o.floating = k % 6 == 5;
    o.linear = o.linear && !o.floating;
    o.conservative = true;
    TestScene sc = random_scene(9000u + k, o, o.redundant);
    project_velocities(sc.model, sc.u);  // ideal constraints do no work only when A u = 0
    const Model& m = sc.model;
    SCOPED_TRACE("scene " + std::to_string(k) + ", " + std::to_string(o.nbody) + " bodies");
    for (Formulation f : kFormulations) {
      Data d(m);
      d.u = sc.u;
      ASSERT_EQ(forward(m, d, f), SolveStatus::Ok) << d.diagnostics.message;
      // power scale: the largest single contribution to dT/dt
      Eigen::VectorXd Mu;
      multiply_mass(m, d, d.udot, Mu);
      const double power = d.u.cwiseProduct(Mu).cwiseAbs().sum() + 1e-3;
      const double h = 1e-4;
      Eigen::VectorXd qp, up, qm, um;
      advance(m, d, h, qp, up);
      advance(m, d, -h, qm, um);
      const double dEdt = (energy_at(m, qp, up) - energy_at(m, qm, um)) / (2 * h);
      EXPECT_LE(std::abs(dEdt), 1e-6 * power) << formulation_name(f) << ": dE/dt = " << dEdt;
    }
  }
}

TEST(Forward, MomentumOfAFloatingSystemIsConserved) {
  for (int k = 0; k < 12; ++k) {
    SceneOptions o;
    o.nbody = 2 + (k * 7) % 15;
    o.chain = k % 2 == 0;
    o.loops = k % 3 == 1;
    o.redundant = k % 4 == 3;
    o.floating = true;
    o.conservative = true;
    o.project = k % 2 == 1;  // momentum balance holds for any velocities
    TestScene sc = random_scene(7000u + k, o, o.redundant);
    if (o.project || o.loops || o.redundant) project_velocities(sc.model, sc.u);
    const Model& m = sc.model;
    SCOPED_TRACE("scene " + std::to_string(k) + ", " + std::to_string(o.nbody) + " bodies");
    for (Formulation f : kFormulations) {
      Data d(m);
      d.u = sc.u;
      ASSERT_EQ(forward(m, d, f), SolveStatus::Ok) << d.diagnostics.message;
      Vec3 dP = Vec3::Zero(), dH = Vec3::Zero();
      double scale = 0.0;
      for (int i = 0; i < m.nbody(); ++i) {
        const BodyState& s = d.body[i];
        Vec3 a, alpha;  // the body's, from its composite's (welded bodies)
        body_acceleration(m, d, i, a, alpha);
        const Vec3 ma = m.bodies()[i].mass * a;
        dP += ma;
        dH += s.x.cross(ma);
        scale += ma.norm() * (1 + s.x.norm());
        if (m.bodies()[i].rigid()) {
          const Vec3 Jwdot = d.J[i] * alpha;
          const Vec3 gyro = s.w.cross(d.J[i] * s.w);
          dH += Jwdot + gyro;
          scale += Jwdot.norm() + gyro.norm();
        }
      }
      EXPECT_LE(dP.norm(), 1e-11 * scale) << formulation_name(f);
      EXPECT_LE(dH.norm(), 1e-11 * scale) << formulation_name(f);
    }
  }
}

TEST(Forward, ConstraintWrenchesBetweenTwoBodiesAreInEquilibrium) {
  int checked = 0;
  for (int k = 0; k < 12; ++k) {
    SceneOptions o;
    o.nbody = 2 + (k * 5) % 20;
    o.chain = k % 2 == 1;
    o.loops = true;
    o.redundant = k % 3 == 0;
    TestScene sc = random_scene(3000u + k, o, o.redundant);
    project_velocities(sc.model, sc.u);
    const Model& m = sc.model;
    for (Formulation f : kFormulations) {
      Data d(m);
      d.u = sc.u;
      ASSERT_EQ(forward(m, d, f), SolveStatus::Ok) << d.diagnostics.message;
      for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
        const Constraint& con = *m.constraints()[c];
        if (con.bodies().size() != 2) continue;
        Vec3 F = Vec3::Zero(), M = Vec3::Zero();
        double scale = 1e-12;
        for (int j = 0; j < 2; ++j) {
          const SpatialForce& w = d.reaction[m.slot_offset(c) + j];
          const Vec3 x = d.body[con.bodies()[j]].x;
          F += w.force;
          M += w.moment + x.cross(w.force);
          scale += w.force.norm() * (1 + x.norm()) + w.moment.norm();
        }
        EXPECT_LE(F.norm(), 1e-12 * scale) << con.name() << " (" << con.type() << ")";
        EXPECT_LE(M.norm(), 1e-12 * scale) << con.name() << " (" << con.type() << ")";
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 50);
}

// A pendulum bob off its rod length, moving radially: g ≠ 0, ġ ≠ 0.  Along the computed
// motion g̈ = −2α ġ − β² g (central differences of g = |x| − L).
TEST(Forward, BaumgarteStabilizationObeysItsEquation) {
  const double L = 1.0, alpha = 3.0, beta = 4.0;
  ModelBuilder m_b;
  m_b.gravity = Vec3(0, 0, -9.81);
  Body bob;
  bob.name = "bob";
  bob.type = BodyType::Particle;
  bob.position = Vec3(0.3, -0.2, -1.05).normalized() * (L + 0.02);
  bob.velocity = Vec3(0.5, 0.7, -0.4);  // has a radial part
  const int b = m_b.add_body(bob);
  m_b.add_constraint(
      std::make_shared<DistanceConstraint>("rod", kWorld, b, m_b.initial_state(kWorld),
                                           m_b.initial_state(b), Vec3::Zero(), bob.position, L));
  const Model m = compile(m_b);
  const Stabilization baumgarte{Stabilization::Type::Baumgarte, alpha, beta};
  for (Formulation f : kFormulations) {
    Data d(m);
    ASSERT_EQ(forward(m, d, SolverOptions{f, baumgarte}), SolveStatus::Ok) << d.diagnostics.message;
    auto g_at = [&](double h) {
      Eigen::VectorXd q, u;
      advance(m, d, h, q, u);
      return q.head<3>().norm() - L;
    };
    const double h = 1e-4, g0 = g_at(0);
    const double gdot = (g_at(h) - g_at(-h)) / (2 * h);
    const double gddot = (g_at(h) - 2 * g0 + g_at(-h)) / (h * h);
    EXPECT_NEAR(g0, d.position_residual(0), 1e-15);
    EXPECT_NEAR(gdot, d.velocity_residual(0), 1e-8);
    EXPECT_NEAR(gddot, -2 * alpha * gdot - beta * beta * g0, 1e-4 * (1 + std::abs(gddot)))
        << formulation_name(f);
  }
}

TEST(Forward, StatusesForBadStates) {
  ModelBuilder m_b;
  Body b;
  b.name = "b";
  m_b.add_body(b);
  const Model m = compile(m_b);
  Data d(m);
  d.u(0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(forward(m, d, Formulation::Pinv), SolveStatus::NotFinite);
  EXPECT_EQ(d.diagnostics.message, "state is not finite");
}

// Test builds start every output as NaN (STYLE §1), and forward() writes all of them.
TEST(Forward, WritesEveryOutput) {
  ModelBuilder m_b;
  m_b.gravity = Vec3(0, 0, -9.81);
  Body b;
  b.name = "b";
  b.inertia = inertia_box(1.0, Vec3(0.1, 0.2, 0.3));
  const int i = m_b.add_body(b);
  m_b.add_constraint(std::make_shared<Joint>("hinge", joint_type("revolute"), kWorld, i,
                                             m_b.initial_state(kWorld), m_b.initial_state(i),
                                             Vec3(0, 0, 0.5), Vec3::UnitY(), Vec3::Zero()));
  const Model m = compile(m_b);
  for (Formulation f : kFormulations) {
    Data d(m);
    EXPECT_TRUE(d.udot.hasNaN());
    EXPECT_TRUE(d.lambda.hasNaN());
    ASSERT_EQ(forward(m, d, f), SolveStatus::Ok);
    for (const Eigen::VectorXd* v :
         {&d.F, &d.b, &d.velocity_residual, &d.position_residual, &d.udot, &d.lambda})
      EXPECT_TRUE(v->allFinite());
    // only the dense formulations build the dense A
    if (f == Formulation::Pinv || f == Formulation::GibbsAppell) {
      EXPECT_TRUE(d.A.allFinite());
    }
  }
}

// q holds the quaternion unnormalised by round-off; the rotation is that of q/|q|.
TEST(Forward, KinematicsNormalisesTheQuaternion) {
  ModelBuilder m_b;
  Body b;
  b.name = "b";
  b.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
  m_b.add_body(b);
  const Model m = compile(m_b);
  Data d(m);
  const Mat3 Q = b.orientation.toRotationMatrix();
  d.q.segment<4>(3) *= 1.5;
  kinematics(m, d);
  EXPECT_LE((d.body[0].Q - Q).cwiseAbs().maxCoeff(), 1e-15);
}

}  // namespace
}  // namespace appell
