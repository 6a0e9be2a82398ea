// A joint's q, u, u̇ and generalized forces read off body states (constraints/
// joint_state.cpp) against the recursion, which runs on joint coordinates directly; joint
// forces and prescribed coordinates on every joint type in every formulation.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/joint_state.hpp>
#include <appell/tree.hpp>
#include <cstdio>

#include "engine/formulations/recursive.hpp"
#include "random_chain.hpp"

namespace appell {
namespace {

using test_chain::Chain;
using test_chain::random_chain;
using test_chain::random_state;
using test_scenes::Rng;

const Formulation kAll[] = {Formulation::Recursive, Formulation::GibbsAppell, Formulation::Pinv,
                            Formulation::Sparse};

TEST(JointState, CoordinatesRatesAndAccelerationsMatchTheTree) {
  // q, u from the bodies (inverse of J1, J2) and u̇ from the bodies' accelerations (G2)
  // equal the tree's own q, u and the recursion's u̇, for every joint type
  for (unsigned seed = 1; seed <= 12; ++seed) {
    const Chain c = random_chain(seed, 6, seed % 3 == 0);
    const Model m = compile(c.b);
    Rng rng(seed);
    const State s = random_state(m, rng);
    Data d(m);
    set_state(m, d, s);
    ASSERT_EQ(forward_tree(m, d, s.q, s.u), SolveStatus::Ok);
    const Eigen::VectorXd udot = joint_accelerations(m, d);
    for (const auto& j : c.joints) {
      const TreeJoint& t = m.tree().joints[m.tree().tree_index[j->child()]];
      double q[8], u[6];
      joint_coordinates(*j, d.view(), q, u);
      Eigen::VectorXd dq = Eigen::Map<Eigen::VectorXd>(q, t.nq) - s.q.segment(t.q_offset, t.nq);
      if (t.nq == 4 || t.nq == 7)  // a quaternion and its opposite are one rotation
        if ((Eigen::Map<Eigen::VectorXd>(q, t.nq) + s.q.segment(t.q_offset, t.nq)).tail(4).norm() <
            1e-9)
          dq.tail(4).setZero();
      for (int k = 0; k < t.nq; ++k)  // angles up to whole turns
        if (periodic_coordinates(*t.type)[k]) dq(k) = wrap_angle(dq(k));
      EXPECT_LT(dq.norm(), 1e-9) << j->joint_type().name() << " seed " << seed;
      EXPECT_LT((Eigen::Map<Eigen::VectorXd>(u, t.nu) - s.u.segment(t.u_offset, t.nu)).norm(), 1e-9)
          << j->joint_type().name() << " seed " << seed;
      for (int k = 0; k < t.nu; ++k) {
        const JointRateRow row = joint_rate_row(*j, d.view(), k);
        auto acc = [&](int b, const SpatialForce& r) {
          return b == kWorld ? 0.0
                             : r.force.dot(d.udot.segment<3>(m.u_offset(b))) +
                                   r.moment.dot(d.udot.segment<3>(m.u_offset(b) + 3));
        };
        const double rate = acc(j->child(), row.child) + acc(j->parent(), row.parent) + row.bias;
        EXPECT_NEAR(rate, udot(t.u_offset + k), 1e-9 * (1 + udot.norm()))
            << j->joint_type().name() << " coordinate " << k << " seed " << seed;
      }
    }
  }
}

TEST(JointState, JointForcesAgreeInEveryFormulation) {
  for (unsigned seed = 1; seed <= 10; ++seed) {
    Chain c = random_chain(seed, 5, seed % 2 == 0);
    Rng rng(seed + 7);
    for (const auto& j : c.joints) {
      const int nu = j->joint_type().nu(), nq = j->joint_type().nq();
      c.b.add_force(std::make_shared<JointTorque>(
          j, Eigen::VectorXd(Eigen::VectorXd::NullaryExpr(
                 nu, [&](Eigen::Index) { return rng.uniform(-2, 2); }))));
      c.b.add_force(std::make_shared<JointDamping>(j, rng.uniform(0, 1)));
      if (nq == nu) {
        c.b.add_force(std::make_shared<JointSpring>(
            j, rng.uniform(0, 5),
            Eigen::VectorXd(
                Eigen::VectorXd::NullaryExpr(nq, [&](Eigen::Index) { return rng.uniform(-1, 1); })),
            rng.uniform(0, 1)));
        std::vector<Expression> target;
        for (int k = 0; k < nq; ++k)
          target.push_back(Expression::parse("0.2*sin(3*t) - 0.1", {}, nullptr));
        c.b.add_force(std::make_shared<JointServo>(j, 4.0, 0.5, std::move(target)));
      }
    }
    const Model m = compile(c.b);
    const State s = random_state(m, rng);
    Eigen::VectorXd ref;
    for (Formulation f : kAll) {
      Data d(m);
      ASSERT_EQ(forward(m, d, s, SolverOptions{f, {}}), SolveStatus::Ok);
      if (f == Formulation::Recursive)
        ref = d.udot;
      else
        EXPECT_LT((d.udot - ref).norm(), 1e-8 * (1 + ref.norm()))
            << formulation_name(f) << " seed " << seed;
    }
  }
}

TEST(JointState, PrescribedCoordinateOfEveryTypeIsFollowed) {
  // one coordinate of each nq = nu joint prescribed: u̇_k = f̈ in every formulation, and
  // the recursion's other accelerations agree with the maximal formulations'
  int tested = 0;
  for (unsigned seed = 1; seed <= 14; ++seed) {
    Chain c = random_chain(seed, 4, false);
    Rng rng(seed + 3);
    const Model m0 = compile(c.b);
    State s = random_state(m0, rng);
    s.t = 0.4;
    // prescribe, at the chain's state, a coordinate of the last joint with nq = nu
    std::shared_ptr<const Joint> jp;
    for (const auto& j : c.joints)
      if (j->joint_type().nq() == j->joint_type().nu() && j->joint_type().nq() > 0) jp = j;
    const Joint* pj = jp.get();
    int k = 0;
    if (pj) {
      k = rng.integer(0, pj->joint_type().nq() - 1);
      const TreeJoint& t = m0.tree().joints[m0.tree().tree_index[pj->child()]];
      // f(t) = a + b t + 0.3 t², with f(0.4), ḟ(0.4) equal to the state's
      const double q = s.q(t.q_offset + k), u = s.u(t.u_offset + k);
      const double b = u - 0.6 * 0.4, a = q - b * 0.4 - 0.3 * 0.16;
      char text[128];
      std::snprintf(text, sizeof text, "%.17g + %.17g*t + 0.3*t^2", a, b);
      c.b.add_constraint(std::make_shared<PrescribedJointConstraint>(
          "drive", jp, k, Expression::parse(text, {}, nullptr)));
    }
    if (!pj) continue;
    ++tested;
    const Model m = compile(c.b);
    const TreeJoint& t = m.tree().joints[m.tree().tree_index[pj->child()]];
    Eigen::VectorXd ref;
    for (Formulation f : kAll) {
      Data d(m);
      ASSERT_EQ(forward(m, d, s, SolverOptions{f, {}}), SolveStatus::Ok) << formulation_name(f);
      if (f == Formulation::Recursive) {
        EXPECT_NEAR(joint_accelerations(m, d)(t.u_offset + k), 0.6, 1e-9)
            << pj->joint_type().name() << " seed " << seed;
        EXPECT_LT(std::abs(d.velocity_residual(m.row_offset(m.constraints().size() - 1))), 1e-9);
        ref = d.udot;
      } else {
        EXPECT_LT((d.udot - ref).norm(), 1e-8 * (1 + ref.norm()))
            << formulation_name(f) << " " << pj->joint_type().name() << " seed " << seed;
      }
    }
  }
  EXPECT_GE(tested, 8);
}

}  // namespace
}  // namespace appell
