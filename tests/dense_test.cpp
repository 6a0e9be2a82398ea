// Consistency of A u̇ = b (engine/formulations/dense.cpp): contradictory constraints are reported,
// by name, and only they; redundant but compatible rows are not.
//
// A genuine contradiction at the acceleration level needs rows with dependent A but
// incompatible b.  A particle on a sphere of radius L (distance to the origin) that is also
// held on the sphere's tangent plane at its position satisfies both at t = 0, and a
// tangential velocity v satisfies both velocity rows (e·v = 0).  Their acceleration rows
// have the same left side e·ẍ but different right sides:
//     sphere:  e·ẍ = −|v|²/L  (K5),        plane:  e·ẍ = 0  (K2, fixed plane),
// so no acceleration satisfies both unless v = 0.  Two spheres tangent at the particle
// (radii L1 ≠ L2, centres on the same side) contradict each other the same way.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "engine/assembly/stages.hpp"

namespace appell {
namespace {

const Formulation kFormulations[] = {Formulation::Pinv, Formulation::GibbsAppell};

struct Contradiction {
  ModelBuilder builder;
  Model model;  // compile(builder)
  std::vector<int> culprits;
};

// An unrelated, consistent pendulum first, so that the culprits are not constraint 0.
int add_bystander(ModelBuilder& m) {
  Body arm;
  arm.name = "arm";
  arm.inertia = inertia_box(1.0, Vec3(0.1, 0.1, 0.5));
  arm.position = Vec3(2, 0, -0.25);
  arm.angular_velocity = Vec3(0.3, 0.2, 0.1);
  arm.velocity = arm.angular_velocity.cross(Vec3(0, 0, -0.25));  // about the anchor
  const int b = m.add_body(arm);
  m.add_constraint(std::make_shared<Joint>("bystander", joint_type("spherical"), kWorld, b,
                                           m.initial_state(kWorld), m.initial_state(b),
                                           Vec3(2, 0, 0), Vec3::UnitX(), Vec3::Zero()));
  return b;
}

int add_particle(ModelBuilder& m, const Vec3& x, const Vec3& v) {
  Body p;
  p.name = "bead";
  p.type = BodyType::Particle;
  p.mass = 0.7;
  p.position = x;
  p.velocity = v;
  return m.add_body(p);
}

Contradiction sphere_and_tangent_plane(const Vec3& v) {
  Contradiction c;
  c.builder.gravity = Vec3(0, 0, -9.81);
  add_bystander(c.builder);
  const Vec3 e = Vec3(1, 2, -2).normalized();
  const double L = 1.3;
  const int p = add_particle(c.builder, L * e, v);
  const BodyState w = c.builder.initial_state(kWorld), s = c.builder.initial_state(p);
  c.builder.add_constraint(
      std::make_shared<DistanceConstraint>("sphere", kWorld, p, w, s, Vec3::Zero(), s.x, L));
  c.builder.add_constraint(std::make_shared<PointOnPlaneConstraint>("tangent", p, s, s.x, e));
  c.culprits = {1, 2};
  c.model = compile(c.builder);
  return c;
}

Vec3 tangential_velocity() {
  return Vec3(1, 2, -2).normalized().cross(Vec3(0.3, -1.0, 0.4));
}

TEST(Consistency, SphereAndTangentPlaneContradict) {
  const Contradiction c = sphere_and_tangent_plane(tangential_velocity());
  for (Formulation f : kFormulations) {
    SCOPED_TRACE(formulation_name(f));
    Data d(c.model);
    EXPECT_EQ(forward(c.model, d, f), SolveStatus::Inconsistent);
    EXPECT_EQ(d.diagnostics.status, SolveStatus::Inconsistent);
    EXPECT_EQ(d.diagnostics.inconsistent, c.culprits);
    EXPECT_NE(d.diagnostics.message.find("'sphere', 'tangent'"), std::string::npos)
        << d.diagnostics.message;
    EXPECT_EQ(d.diagnostics.message.find("bystander"), std::string::npos);
    EXPECT_GT(d.diagnostics.residual, 1e-3);
  }
}

// At rest the same rows are redundant but compatible: no error, and the bead is held.
TEST(Consistency, SphereAndTangentPlaneAtRestAreRedundantNotInconsistent) {
  const Contradiction c = sphere_and_tangent_plane(Vec3::Zero());
  for (Formulation f : kFormulations) {
    SCOPED_TRACE(formulation_name(f));
    Data d(c.model);
    ASSERT_EQ(forward(c.model, d, f), SolveStatus::Ok) << d.diagnostics.message;
    EXPECT_TRUE(d.diagnostics.inconsistent.empty());
    // the bead can only move tangentially: its acceleration is gravity's tangential part
    const Vec3 e = Vec3(1, 2, -2).normalized(), g(0, 0, -9.81);
    const Vec3 expected = g - e * e.dot(g);
    EXPECT_LE((d.udot.segment<3>(6) - expected).norm(), 1e-12 * g.norm());
    // the two rows share the normal force equally (minimum-norm multipliers)
    EXPECT_NEAR(d.lambda(3), d.lambda(4), 1e-12 * std::abs(d.lambda(3)));
    EXPECT_NEAR(d.lambda(3) + d.lambda(4), -0.7 * e.dot(g), 1e-12 * 0.7 * 9.81);
  }
}

TEST(Consistency, TwoTangentSpheresContradict) {
  ModelBuilder m_b;
  add_bystander(m_b);
  const Vec3 e = Vec3(0.2, -1, 0.5).normalized();
  const Vec3 x = 0.4 * e;
  const int p = add_particle(m_b, x, e.cross(Vec3(1, 1, 1)));
  const BodyState w = m_b.initial_state(kWorld), s = m_b.initial_state(p);
  // centres at x − 1.0 e and x − 2.5 e: both spheres pass through x with normal e
  m_b.add_constraint(
      std::make_shared<DistanceConstraint>("small", kWorld, p, w, s, x - 1.0 * e, x, 1.0));
  m_b.add_constraint(
      std::make_shared<DistanceConstraint>("large", kWorld, p, w, s, x - 2.5 * e, x, 2.5));
  const Model m = compile(m_b);
  for (Formulation f : kFormulations) {
    SCOPED_TRACE(formulation_name(f));
    Data d(m);
    EXPECT_EQ(forward(m, d, f), SolveStatus::Inconsistent);
    EXPECT_EQ(d.diagnostics.inconsistent, (std::vector<int>{1, 2}));
  }
}

// Two linear rows v_x = 0 and v_x + 1 = 0 contradict at the velocity level only: their
// acceleration rows (v̇_x = 0 twice) agree, so the solve is fine.  With Baumgarte
// stabilization, b ← b − 2α π makes them contradict at the acceleration level as well.
TEST(Consistency, LinearRowsContradictOnlyThroughBaumgarte) {
  ModelBuilder m_b;
  add_bystander(m_b);
  const int p = add_particle(m_b, Vec3(0, 1, 0), Vec3(0.5, 0, 0));
  const BodyState s = m_b.initial_state(p);
  using F = LinearConstraint::Frame;
  m_b.add_constraint(std::make_shared<LinearConstraint>("vx0", p, s, s.x, Vec3::UnitX(),
                                                        Vec3::Zero(), 0.0, F::World));
  m_b.add_constraint(std::make_shared<LinearConstraint>("vx1", p, s, s.x, Vec3::UnitX(),
                                                        Vec3::Zero(), 1.0, F::World));
  const Model m = compile(m_b);
  for (Formulation f : kFormulations) {
    SCOPED_TRACE(formulation_name(f));
    Data d(m);
    EXPECT_EQ(forward(m, d, f), SolveStatus::Ok) << d.diagnostics.message;
    EXPECT_NEAR(d.udot(6), 0.0, 1e-14);
  }
  const Stabilization baumgarte{Stabilization::Type::Baumgarte, 1.0, 0.0};
  for (Formulation f : kFormulations) {
    SCOPED_TRACE(formulation_name(f));
    Data d(m);
    EXPECT_EQ(forward(m, d, SolverOptions{f, baumgarte}), SolveStatus::Inconsistent);
    EXPECT_EQ(d.diagnostics.inconsistent, (std::vector<int>{1, 2}));
  }
}

}  // namespace
}  // namespace appell

namespace appell {
namespace {

// A row's scale is arbitrary (a linear row f·v = 0 is the same constraint for any |f|), so
// the multipliers must reproduce the constraint force whatever the scale: Aᵀλ = M u̇ − F.
TEST(Multipliers, ReproduceTheConstraintForceForBadlyScaledRows) {
  for (double scale : {1.0, 1e-6, 1e-12, 1e6}) {
    ModelBuilder m_b;
    m_b.gravity = Vec3(0.5, -9.81, 0.2);
    Body bob;
    bob.name = "bob";
    bob.type = BodyType::Particle;
    bob.mass = 2.0;
    bob.position = Vec3(0.3, 0.0, -1.0);
    const int b = m_b.add_body(bob);
    const BodyState s = m_b.initial_state(b);
    m_b.add_constraint(std::make_shared<DistanceConstraint>(
        "rod", kWorld, b, m_b.initial_state(kWorld), s, Vec3::Zero(), s.x, s.x.norm()));
    // v_y = 0, written with a tiny or a huge coefficient
    m_b.add_constraint(std::make_shared<LinearConstraint>("slot", b, s, s.x, scale * Vec3::UnitY(),
                                                          Vec3::Zero(), 0.0,
                                                          LinearConstraint::Frame::World));
    const Model m = compile(m_b);
    for (Formulation f : kFormulations) {
      SCOPED_TRACE(std::string(formulation_name(f)) + ", scale " + std::to_string(scale));
      Data d(m);
      ASSERT_EQ(forward(m, d, f), SolveStatus::Ok) << d.diagnostics.message;
      EXPECT_NEAR(d.udot(1), 0.0, 1e-12);
      // the slot holds the bob against gravity's y component: force −m g_y E2
      EXPECT_LE((d.reaction[1].force - Vec3(0, 2.0 * 9.81, 0)).norm(), 1e-9 * 2.0 * 9.81)
          << "slot force " << d.reaction[1].force.transpose();
      const Vec3 total = d.reaction[0].force + d.reaction[1].force;
      EXPECT_LE((total - 2.0 * (d.udot.head<3>() - m.gravity())).norm(), 1e-9 * 2.0 * 9.81);
    }
  }
}

}  // namespace
}  // namespace appell

namespace appell {
namespace {

// The contradiction of SphereAndTangentPlaneContradict is one of geometry, so it must be
// found in any units: lengths × L (a micro-mechanism to a crane), masses × K.
TEST(Consistency, ContradictionIsFoundInAnyUnits) {
  for (double L : {1e-6, 1e-3, 1.0, 1e3}) {
    for (double K : {1e-3, 1.0, 1e3}) {
      ModelBuilder m_b;
      m_b.gravity = Vec3(0, 0, -9.81 * L);
      const Vec3 e = Vec3(1, 2, -2).normalized();
      Body p;
      p.name = "bead";
      p.type = BodyType::Particle;
      p.mass = 0.7 * K;
      p.position = 1.3 * L * e;
      p.velocity = L * tangential_velocity();
      const int b = m_b.add_body(p);
      const BodyState w = m_b.initial_state(kWorld), s = m_b.initial_state(b);
      m_b.add_constraint(std::make_shared<DistanceConstraint>("sphere", kWorld, b, w, s,
                                                              Vec3::Zero(), s.x, 1.3 * L));
      m_b.add_constraint(std::make_shared<PointOnPlaneConstraint>("tangent", b, s, s.x, e));
      const Model m = compile(m_b);
      for (Formulation f : kFormulations) {
        SCOPED_TRACE(std::string(formulation_name(f)) + ", L = " + std::to_string(L) +
                     ", K = " + std::to_string(K));
        Data d(m);
        EXPECT_EQ(forward(m, d, f), SolveStatus::Inconsistent);
        EXPECT_EQ(d.diagnostics.inconsistent, (std::vector<int>{0, 1}));
        // and at rest the same rows are compatible
        Data rest(m);
        rest.u.setZero();
        EXPECT_EQ(forward(m, rest, f), SolveStatus::Ok) << rest.diagnostics.message;
      }
    }
  }
}

}  // namespace
}  // namespace appell
