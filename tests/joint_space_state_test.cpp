// Joint space as the state (issue 21): joint-space forces added into τ by the recursion
// (engine/formulations/recursive/generalized_forces.cpp) against the body-wrench path they replace.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <limits>

#include "engine/formulations/recursive.hpp"
#include "random_chain.hpp"

namespace appell {
namespace {

using test_chain::random_state;
using test_scenes::Rng;

// A user-written force that hides the joint-space capability of the force it wraps: the
// model then applies it as body wrenches (Force::apply), the path every force took before
// the generalized-force stage, and the path a user's own Force subclass takes.
class BodySpaceOnly final : public Force {
 public:
  explicit BodySpaceOnly(ForcePtr f) : f_(std::move(f)) {}
  std::string type() const override { return f_->type(); }
  void apply(const StateView& s, SpatialForce* out) const override { f_->apply(s, out); }
  double potential(const StateView& s) const override { return f_->potential(s); }
  size_t scratch_size() const override { return f_->scratch_size(); }

 private:
  ForcePtr f_;
};

Eigen::VectorXd random_vector(Rng& rng, int n, double s) {
  return Eigen::VectorXd::NullaryExpr(n, [&](Eigen::Index) { return rng.uniform(-s, s); });
}

// A chain world – revolute – link0 – `type` – link1 – revolute – link2, every joint listed
// parent → child, with a torque and a damper on every joint and, where nq = nu, a spring
// and a servo.  `wrap`: the forces hidden behind BodySpaceOnly.
struct ActuatedChain {
  ModelBuilder b;
  std::vector<std::shared_ptr<const Joint>> joints;
};

ActuatedChain actuated_chain(const JointType& type, unsigned seed, bool wrap) {
  Rng rng(seed);
  ActuatedChain c;
  c.b.gravity = Vec3(0.2, -0.1, -9.81);
  for (int i = 0; i < 3; ++i) {
    Body body;
    body.name = "link" + std::to_string(i);
    body.mass = rng.uniform(0.5, 2.0);
    const Mat3 R = rng.quat().toRotationMatrix();
    body.inertia = R * inertia_box(body.mass, Vec3(0.1, 0.2, 0.3)) * R.transpose();
    body.position = Vec3(0, 0, -0.4 * i) + rng.vec(0.1);
    body.orientation = rng.quat();
    c.b.add_body(body);
    const JointType& t = i == 1 ? type : joint_type("revolute");
    const int parent = i == 0 ? kWorld : i - 1;
    const Vec3 axis = rng.unit();
    Vec3 a2 = rng.unit();
    a2 = (a2 - a2.dot(axis) * axis).normalized();
    auto j = std::make_shared<Joint>("j" + std::to_string(i), t, parent, i,
                                     c.b.initial_state(parent), c.b.initial_state(i),
                                     Vec3(0, 0, -0.4 * i + 0.2) + rng.vec(0.05), axis, a2);
    c.joints.push_back(j);
    c.b.add_constraint(j);
  }
  auto add = [&](ForcePtr f) { c.b.add_force(wrap ? std::make_shared<BodySpaceOnly>(f) : f); };
  for (const auto& j : c.joints) {
    const int nu = j->joint_type().nu(), nq = j->joint_type().nq();
    add(std::make_shared<JointTorque>(j, random_vector(rng, nu, 2.0)));
    add(std::make_shared<JointDamping>(j, rng.uniform(0.1, 1.0)));
    if (nq == nu) {
      add(std::make_shared<JointSpring>(j, rng.uniform(1, 5), random_vector(rng, nq, 1.0),
                                        rng.uniform(0, 1)));
      std::vector<Expression> target;
      for (int k = 0; k < nq; ++k)
        target.push_back(Expression::parse("0.2*sin(3*t) - 0.1", {}, nullptr));
      add(std::make_shared<JointServo>(j, 4.0, 0.5, std::move(target)));
    }
  }
  return c;
}

double rel(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).norm() / (1.0 + b.norm());
}

std::vector<const JointType*> moving_types() {
  std::vector<const JointType*> out;
  for (const JointType* t : joint_types())
    if (t->nu() >= 1) out.push_back(t);
  return out;
}

TEST(JointSpaceForces, TauPathEqualsBodyWrenchPathForEveryJointType) {
  int tested = 0;
  for (const JointType* type : moving_types()) {
    for (unsigned seed = 1; seed <= 4; ++seed) {
      const Model m = compile(actuated_chain(*type, seed, false).b);
      const Model ref = compile(actuated_chain(*type, seed, true).b);
      Rng rng(seed + 100);
      const State s = random_state(m, rng);
      Data d(m), dr(ref);
      d.t = dr.t = s.t;
      ASSERT_EQ(forward_tree(m, d, s.q, s.u), SolveStatus::Ok);
      ASSERT_EQ(forward_tree(ref, dr, s.q, s.u), SolveStatus::Ok);
      const std::string what = std::string(type->name()) + " seed " + std::to_string(seed);
      // τ is every joint's Σ of generalized forces read off the body states; none is
      // left to the body path in the reference
      Eigen::VectorXd tau_bodies = Eigen::VectorXd::Zero(m.tree().nu);
      for (const ForcePtr& f : m.forces()) {
        const auto& jf = static_cast<const JointForce&>(*f);
        const TreeJoint& t = m.tree().joints[m.tree().tree_index[jf.joint().child()]];
        double g[6];
        jf.generalized_force(d.view(), g);
        tau_bodies.segment(t.u_offset, t.nu) += Eigen::Map<Eigen::VectorXd>(g, t.nu);
      }
      EXPECT_LT(rel(joint_space_forces(m, d), tau_bodies), 1e-12) << what;
      EXPECT_EQ(joint_space_forces(ref, dr).norm(), 0.0) << what;
      // the same motion, multipliers, reactions and body forces
      EXPECT_LT(rel(joint_accelerations(m, d), joint_accelerations(ref, dr)), 1e-12) << what;
      EXPECT_LT(rel(d.udot, dr.udot), 1e-12) << what;
      EXPECT_LT(rel(d.lambda, dr.lambda), 1e-12) << what;
      EXPECT_LT(rel(d.F, dr.F), 1e-12) << what;
      for (size_t k = 0; k < d.reaction.size(); ++k) {
        EXPECT_LT((d.reaction[k].force - dr.reaction[k].force).norm(), 1e-11) << what;
        EXPECT_LT((d.reaction[k].moment - dr.reaction[k].moment).norm(), 1e-11) << what;
      }
      // and the maximal formulations, which apply the forces as wrenches, agree
      Data dp(m);
      ASSERT_EQ(forward(m, dp, s, SolverOptions{Formulation::Pinv, {}}), SolveStatus::Ok);
      EXPECT_LT(rel(dp.udot, d.udot), 1e-8) << what;
      ++tested;
    }
  }
  EXPECT_GE(tested, 4 * 6);  // revolute, prismatic, cylindrical, universal, spherical, ...
}

TEST(JointSpaceForces, PowerIsTauDotU) {
  for (const JointType* type : moving_types()) {
    const Model m = compile(actuated_chain(*type, 7, false).b);
    Rng rng(3);
    const State s = random_state(m, rng);
    Data d(m);
    ASSERT_EQ(forward(m, d, s, SolverOptions{Formulation::Recursive, {}}), SolveStatus::Ok);
    double P = 0.0;  // each force's τ·u, read off the body states (joint_state.hpp G1)
    for (const ForcePtr& f : m.forces()) P += static_cast<const JointForce&>(*f).power(d.view());
    const double tau_u = joint_space_forces(m, d).dot(s.u);
    EXPECT_NEAR(tau_u, P, 1e-12 * (1 + std::abs(P))) << type->name();
  }
}

TEST(JointSpaceForces, EnergyFallsAtTheDampersRate) {
  // conservative springs and gravity, dampers c: dE/dt = −Σ c |u_j|², the derivative taken
  // along the motion by central differences
  for (unsigned seed = 1; seed <= 4; ++seed) {
    test_chain::Chain c = test_chain::random_chain(seed, 5, seed % 2 == 0);
    Rng rng(seed);
    std::vector<double> damping;
    for (const auto& j : c.joints) {
      damping.push_back(rng.uniform(0.2, 1.0));
      c.b.add_force(std::make_shared<JointDamping>(j, damping.back()));
      if (j->joint_type().nq() == j->joint_type().nu())
        c.b.add_force(std::make_shared<JointSpring>(
            j, 3.0, random_vector(rng, j->joint_type().nq(), 0.5), 0.0));
    }
    const Model m = compile(c.b);
    const State s = random_state(m, rng);
    Data d(m);
    ASSERT_EQ(forward(m, d, s, SolverOptions{Formulation::Recursive, {}}), SolveStatus::Ok);
    const Eigen::VectorXd udot = joint_accelerations(m, d);
    Eigen::VectorXd qdot(m.tree().nq);
    tree_qdot(m.tree(), s.q, s.u, qdot);
    double expected = 0.0;
    for (size_t i = 0; i < c.joints.size(); ++i) {
      const TreeJoint& t = m.tree().joints[m.tree().tree_index[c.joints[i]->child()]];
      expected -= damping[i] * s.u.segment(t.u_offset, t.nu).squaredNorm();
    }
    auto energy = [&](double h) {
      State x = s;
      x.q += h * qdot;
      x.u += h * udot;
      x.t += h;
      Data e(m);
      set_state(m, e, x);
      return kinetic_energy(m, e) + potential_energy(m, e);
    };
    const double h = 1e-5;
    const double dE = (energy(h) - energy(-h)) / (2 * h);
    EXPECT_NEAR(dE, expected, 1e-6 * (1 + std::abs(expected))) << "seed " << seed;
    EXPECT_LT(expected, 0.0);
  }
}

TEST(JointSpaceForces, NonFiniteTauIsReportedAsAppliedForces) {
  // a NaN torque is named as a non-finite applied force in τ as it was in the wrenches
  for (Formulation f : {Formulation::Recursive, Formulation::Pinv}) {
    ActuatedChain c = actuated_chain(joint_type("revolute"), 1, false);
    c.b.add_force(std::make_shared<JointTorque>(
        c.joints[1], Eigen::VectorXd::Constant(1, std::numeric_limits<double>::quiet_NaN())));
    const Model m = compile(c.b);
    Data d(m);
    EXPECT_EQ(forward(m, d, m.initial_state(), SolverOptions{f, {}}), SolveStatus::NotFinite);
    EXPECT_EQ(d.diagnostics.message, "applied forces are not finite") << formulation_name(f);
  }
}

}  // namespace
}  // namespace appell
