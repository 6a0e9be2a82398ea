// engine/state_space: the maximal state space an integrator sees.
//
// ẋ = (v̄, q̇, u̇) with q̇ = ½ (0, ω) ⊗ q (world-frame ω): checked against the finite-difference
// rate of the exact flow q(t) = quat(exp((ωt)×)) ⊗ q.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/state_space.hpp>
#include <memory>

#include "engine/assembly/stages.hpp"

namespace appell {
namespace {

Model pendulum_with_a_particle() {
  ModelBuilder m_b;
  m_b.gravity = Vec3(0, 0, -9.81);
  Body arm;
  arm.name = "arm";
  arm.inertia = inertia_box(1.0, Vec3(0.05, 0.05, 0.4));
  arm.position = Vec3(0, 0, -0.2);
  arm.orientation = quat_from_rotation_vector(Vec3(0.1, -0.2, 0.3));
  arm.angular_velocity = Vec3(0.7, -0.4, 1.1);
  arm.velocity = arm.angular_velocity.cross(Vec3(0, 0, -0.2));
  const int a = m_b.add_body(arm);
  Body bob;
  bob.name = "bob";
  bob.type = BodyType::Particle;
  bob.mass = 0.5;
  bob.position = Vec3(0.1, 0, -0.5);
  bob.velocity = Vec3(0.3, 0.2, -0.1);
  const int b = m_b.add_body(bob);
  m_b.add_constraint(std::make_shared<Joint>("hinge", joint_type("spherical"), kWorld, a,
                                             m_b.initial_state(kWorld), m_b.initial_state(a),
                                             Vec3::Zero(), Vec3::UnitX(), Vec3::Zero()));
  m_b.add_constraint(std::make_shared<DistanceConstraint>(
      "rod", a, b, m_b.initial_state(a), m_b.initial_state(b), Vec3(0, 0, -0.4), bob.position,
      (bob.position - Vec3(0, 0, -0.4)).norm()));
  return compile(m_b);
}

TEST(StateSpace, DerivativeIsTheRateOfTheMaximalState) {
  const Model m = pendulum_with_a_particle();
  for (Formulation f : {Formulation::Pinv, Formulation::GibbsAppell}) {
    auto space = make_state_space(m, SolverOptions{f, {}});
    EXPECT_EQ(space->formulation(), f);
    EXPECT_EQ(space->size(), m.nq() + m.nu());
    Data d(m);
    Eigen::VectorXd x, xdot;
    space->from_maximal(d, x);
    ASSERT_EQ(space->derivative(x, 0.0, d, xdot), SolveStatus::Ok) << d.diagnostics.message;
    EXPECT_EQ(xdot.tail(m.nu()), d.udot);
    for (int i = 0; i < m.ncomposite(); ++i) {  // the maximal slots: one per composite
      const int iq = m.q_offset(i), iu = m.u_offset(i);
      EXPECT_EQ(xdot.segment<3>(iq), x.segment<3>(m.nq() + iu));  // dx̄/dt = v̄
      if (!m.composites()[i].rigid()) continue;
      const Quat q(x(iq + 3), x(iq + 4), x(iq + 5), x(iq + 6));
      const Vec3 w = x.segment<3>(m.nq() + iu + 3);
      const double h = 1e-6;
      const Quat qp = quat_from_rotation_vector(w * h) * q,
                 qm = quat_from_rotation_vector(-w * h) * q;
      const Eigen::Vector4d fd = (Eigen::Vector4d(qp.w(), qp.x(), qp.y(), qp.z()) -
                                  Eigen::Vector4d(qm.w(), qm.x(), qm.y(), qm.z())) /
                                 (2 * h);
      EXPECT_LE((xdot.segment<4>(iq + 3) - fd).norm(), 1e-8);
      EXPECT_NEAR(xdot.segment<4>(iq + 3).dot(x.segment<4>(iq + 3)), 0.0, 1e-15);  // |q| constant
    }
  }
}

TEST(StateSpace, MapsAndNormalisation) {
  const Model m = pendulum_with_a_particle();
  auto space = make_state_space(m, SolverOptions{Formulation::Pinv, {}});
  EXPECT_EQ(space->formulation(), Formulation::Pinv);
  Data d(m);
  Eigen::VectorXd x;
  space->from_maximal(d, x);
  x(m.q_offset(0) + 3) *= 1.1;  // drift off |q| = 1
  space->normalize(x);
  EXPECT_NEAR(x.segment<4>(m.q_offset(0) + 3).norm(), 1.0, 1e-15);
  Data e(m);
  space->to_maximal(x, 0.25, e);
  EXPECT_EQ(e.t, 0.25);
  EXPECT_EQ(e.q, x.head(m.nq()));
  EXPECT_EQ(e.u, x.tail(m.nu()));
  EXPECT_TRUE(e.body[1].x.isApprox(Vec3(0.1, 0, -0.5)));  // kinematics ran
}

}  // namespace
}  // namespace appell
