// Exact derivatives of inverse and forward dynamics (appell/derivatives.hpp) against
// Richardson-extrapolated central differences in the tangent space, at random states of
// random trees with every joint type, gravity, joint springs, dampers and servos.
#include <gtest/gtest.h>

#include <appell/derivatives.hpp>
#include <appell/inverse_dynamics.hpp>
#include <appell/jacobians.hpp>
#include <appell/joint_forces.hpp>

#include "engine/formulations/recursive.hpp"
#include "numeric_derivatives.hpp"
#include "random_chain.hpp"

namespace appell {
namespace {

using test_chain::Chain;
using test_chain::random_chain;
using test_chain::random_state;
using test_scenes::Rng;

using test_derivatives::numeric_derivatives;
using test_derivatives::rel_gap;

// joint springs on the nq = nu joints, damping everywhere, a servo on the first revolute
void add_joint_forces(Chain& c, Rng& rng) {
  bool servo = false;
  for (const auto& j : c.joints) {
    const JointType& t = j->joint_type();
    if (t.quaternion() < 0 && t.nu() > 0) {
      if (!servo && std::string(t.name()) == "revolute") {
        std::vector<Expression> target;
        target.push_back(Expression::parse("0.3*sin(2*t)", {}, nullptr));
        c.b.add_force(std::make_shared<JointServo>(j, 40.0, 3.0, std::move(target)));
        servo = true;
      } else {
        Eigen::VectorXd rest = Eigen::VectorXd::Constant(t.nq(), rng.uniform(-0.3, 0.3));
        c.b.add_force(std::make_shared<JointSpring>(j, rng.uniform(1, 20), rest, 0.7));
      }
    }
    if (t.nu() > 0) c.b.add_force(std::make_shared<JointDamping>(j, rng.uniform(0.1, 2)));
  }
}

void check_model(const Model& m, const State& s, Rng& rng, const std::string& what) {
  const int nu = m.tree().nu;
  Data d(m);
  const Eigen::VectorXd udot =
      Eigen::VectorXd::NullaryExpr(nu, [&](Eigen::Index) { return rng.uniform(-2, 2); });
  InverseDerivatives id;
  inverse_dynamics_derivatives(m, d, s, udot, id);
  Eigen::VectorXd tau0;
  inverse_dynamics(m, d, s, udot, tau0);
  EXPECT_LT(rel_gap(id.tau, tau0), 1e-12) << what;
  Eigen::MatrixXd M;
  mass_matrix(m, d, s, M);
  EXPECT_LT(rel_gap(id.M, M), 1e-14) << what;

  const Eigen::VectorXd tau =
      Eigen::VectorXd::NullaryExpr(nu, [&](Eigen::Index) { return rng.uniform(-3, 3); });
  ForwardDerivatives fd;
  forward_dynamics_derivatives(m, d, s, tau, fd);
  JointForward forward(m);
  Eigen::VectorXd ud;
  forward(s, tau, ud);
  EXPECT_LT(rel_gap(fd.udot, ud), 1e-10) << what;

  const auto n = numeric_derivatives(m, s, udot, tau);
  EXPECT_LT(rel_gap(id.dtau_dq, n.id_q), 1e-8) << what;
  EXPECT_LT(rel_gap(id.dtau_du, n.id_u), 1e-8) << what;
  EXPECT_LT(rel_gap(fd.dudot_dq, n.fd_q), 1e-8) << what;
  EXPECT_LT(rel_gap(fd.dudot_du, n.fd_u), 1e-8) << what;
  EXPECT_LT(rel_gap(fd.dudot_dtau, n.fd_tau), 1e-8) << what;
}

TEST(Derivatives, RandomTreesEveryJointTypeAgainstRichardson) {
  for (unsigned seed = 1; seed <= 8; ++seed) {
    Chain c = random_chain(seed, 6, seed % 2 == 0);
    Rng rng(seed + 500);
    add_joint_forces(c, rng);
    const Model m = compile(c.b);
    const State s = random_state(m, rng);
    check_model(m, s, rng, "seed " + std::to_string(seed));
  }
}

TEST(Derivatives, NewVelocityPassEqualsTheWholeRecursion) {
  // the contact stepper's midpoint passes: after a recursion at (q, u₁), the velocity terms
  // alone at u₂ give the u̇ of a whole recursion at (q, u₂) with the forces of (q, u₁) —
  // every joint type (turns, slides and the general step), with and without a free base,
  // with velocity-dependent joint forces (dampers, servos)
  for (unsigned seed = 1; seed <= 8; ++seed) {
    Chain c = random_chain(seed, 7, seed % 2 == 0);
    Rng rng(seed + 900);
    add_joint_forces(c, rng);
    const Model m = compile(c.b);
    ASSERT_EQ(m.tree().nrows_extra, 0);
    const State s1 = random_state(m, rng);
    State s2 = s1;
    for (int k = 0; k < s2.u.size(); ++k) s2.u(k) = rng.uniform(-2, 2);
    Data whole(m), kept(m);
    ASSERT_EQ(recursive_rates(m, whole, s1.q, s2.u, s1.u, {}), SolveStatus::Ok);
    ASSERT_EQ(recursive_rates(m, kept, s1.q, s1.u, {}), SolveStatus::Ok);
    const Eigen::VectorXd at_u1 = joint_accelerations(m, kept);
    ASSERT_EQ(recursive_rates_new_velocity(m, kept, s1.q, s2.u), SolveStatus::Ok);
    const Eigen::VectorXd& a = joint_accelerations(m, kept);
    const Eigen::VectorXd& b = joint_accelerations(m, whole);
    EXPECT_LT((a - b).lpNorm<Eigen::Infinity>(), 1e-11 * (1 + b.lpNorm<Eigen::Infinity>()))
        << "seed " << seed;
    EXPECT_GT((at_u1 - b).lpNorm<Eigen::Infinity>(), 1e-3) << "seed " << seed;  // u matters
    for (int i = 0; i < m.nbody(); ++i) {  // the twists at u₂
      EXPECT_LT((kept.body[i].w - whole.body[i].w).norm(), 1e-12) << "seed " << seed;
      EXPECT_LT((kept.body[i].v - whole.body[i].v).norm(), 1e-12) << "seed " << seed;
    }
  }
}

TEST(Derivatives, HelicalFixedAndBranches) {
  // a free base with two branches: a helical joint (pitch 0.05) carrying a welded body, and
  // a universal joint; the tree's merged fixed joint carries no coordinate
  ModelBuilder b;
  b.gravity = Vec3(0, 0, -9.81);
  Rng rng(77);
  for (int i = 0; i < 4; ++i) {
    Body body;
    body.name = "b" + std::to_string(i);
    body.mass = rng.uniform(0.5, 2);
    body.inertia = inertia_box(body.mass, Vec3(0.2, 0.3, 0.4));
    body.position = Vec3(0.1 * i, 0.05 * i, -0.3 * i);
    body.orientation = rng.quat();
    b.add_body(body);
  }
  auto joint = [&](const char* name, const JointType& type, int p, int ch) {
    auto j = std::make_shared<Joint>(name, type, p, ch, b.initial_state(p), b.initial_state(ch),
                                     Vec3(0.05, 0, -0.3 * ch + 0.1), rng.unit(), Vec3::UnitY());
    b.add_constraint(j);
    return j;
  };
  joint("base", joint_type("free"), kWorld, 0);
  auto screw = std::make_shared<Joint>("screw", joint_type("helical").with_parameter(0.05), 0, 1,
                                       b.initial_state(0), b.initial_state(1), Vec3(0, 0, -0.2),
                                       Vec3(0.3, 0.4, 0.866).normalized());
  b.add_constraint(screw);
  joint("weld", joint_type("fixed"), 1, 2);
  auto uj = joint("cardan", joint_type("universal"), 0, 3);
  b.add_force(std::make_shared<JointDamping>(screw, 0.4));
  const Model m = compile(b);
  ASSERT_EQ(m.tree().nu, 6 + 1 + 0 + 2);
  const State s = random_state(m, rng);
  check_model(m, s, rng, "helical/fixed/universal");
}

TEST(Derivatives, RefusesForcesItDoesNotCover) {
  Chain c = random_chain(3, 3, false);
  c.b.add_force(std::make_shared<DampingForce>(1, 0.5, 0.5));
  const Model m = compile(c.b);
  Data d(m);
  Rng rng(3);
  const State s = random_state(m, rng);
  InverseDerivatives id;
  EXPECT_THROW(inverse_dynamics_derivatives(m, d, s, Eigen::VectorXd::Zero(m.tree().nu), id),
               std::invalid_argument);
}

}  // namespace
}  // namespace appell
