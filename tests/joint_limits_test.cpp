// Joint limits as unilateral rows (engine/contact/moreau.hpp) against closed forms
// (tree_delassus_test.cpp checks the tree's Delassus operator).
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>

#include "appell/derivatives.hpp"
#include "appell/jacobians.hpp"
#include "engine/contact/moreau.hpp"
#include "engine/contact/ncp.hpp"
#include "engine/formulations/recursive.hpp"
#include "engine/model/tree.hpp"

namespace appell {
namespace {

constexpr double kG = 9.81;

// a rod of mass m, length 2L, hinged at one end about y at the origin, horizontal at
// t = 0 along +x: it falls towards −z (θ grows) onto the limit θ = upper
Model pendulum(double upper, bool limited = true) {
  ModelBuilder b;
  b.gravity = Vec3(0, 0, -kG);
  Body rod;
  rod.name = "rod";
  rod.mass = 1.5;
  rod.inertia = Vec3(0.001, rod.mass * 0.25 / 3.0, rod.mass * 0.25 / 3.0).asDiagonal();
  rod.position = Vec3(0.5, 0, 0);
  const int i = b.add_body(rod);
  auto j =
      std::make_shared<Joint>("hinge", joint_type("revolute"), kWorld, i, b.initial_state(kWorld),
                              b.initial_state(i), Vec3::Zero(), Vec3::UnitY());
  JointProperties p;
  p.limited = limited;
  p.lower = -1.0;
  p.upper = upper;
  j->set_properties(p);
  b.add_constraint(j);
  return compile(b);
}

double energy(const Model& m, const Data& d) {
  const BodyState& s = d.body[0];
  const Body& body = m.bodies()[0];
  return 0.5 * body.mass * s.v.squaredNorm() +
         0.5 * s.w.dot(s.Q * body.inertia * s.Q.transpose() * s.w) -
         body.mass * m.gravity().dot(s.x);
}

TEST(JointLimits, PendulumStopsOnItsLimitAndRestsThere) {
  const double upper = 1.0, h = 1e-3;
  const Model m = pendulum(upper);
  ASSERT_TRUE(MoreauStepper::has_unilateral_rows(m));
  EXPECT_FALSE(MoreauStepper::has_unilateral_rows(m, false));
  Data d(m);
  Eigen::VectorXd q = m.initial_state().q, u = m.initial_state().u;
  MoreauOptions o;
  o.solver.tolerance = 1e-12;
  MoreauStepper s(m, nullptr, o);
  // the scheme is position Verlet in the smooth phase (symplectic): its energy oscillates
  // by O(h²) about the initial one, never drifts up; the limit's impact takes energy out
  const double e0 = 0.0, scale = 1.5 * kG * 0.5;  // at rest at z = 0
  double excess = 0.0, worst = -1.0;
  int hits = 0;
  for (int k = 0; k < 2000; ++k) {
    ASSERT_EQ(s.step(k * h, h, q, u, d), SolveStatus::Ok);
    worst = std::max(worst, q(0) - upper);
    excess = std::max(excess, energy(m, d) - e0);
    hits += s.stats().impacts;
  }
  EXPECT_LE(worst, 1e-6);  // never beyond the limit
  EXPECT_LE(excess, 10.0 * h * h * scale);
  EXPECT_LT(energy(m, d), e0 - 0.1 * scale);
  RecordProperty("energy_excess", std::to_string(excess));
  RecordProperty("overshoot", std::to_string(worst));
  EXPECT_GE(hits, 1);
  EXPECT_NEAR(q(0), upper, 1e-9);
  EXPECT_LT(std::abs(u(0)), 1e-9);
  // resting: the limit's impulse per step is gravity's moment about the hinge, m g L cos θ
  ASSERT_EQ(s.records().size(), 1u);
  EXPECT_TRUE(s.records()[0].upper);
  EXPECT_NEAR(s.records()[0].impulse(0) / h, 1.5 * kG * 0.5 * std::cos(upper), 1e-9);
}

TEST(JointLimits, SwitchedOffTheLimitIsIgnored) {
  const Model m = pendulum(1.0);
  Data d(m);
  Eigen::VectorXd q = m.initial_state().q, u = m.initial_state().u;
  MoreauOptions o;
  o.joint_limits = false;
  MoreauStepper s(m, nullptr, o);
  for (int k = 0; k < 500; ++k) ASSERT_EQ(s.step(k * 1e-3, 1e-3, q, u, d), SolveStatus::Ok);
  EXPECT_GT(q(0), 1.2);  // swung through
}

TEST(JointLimits, SimulationStepsLimitedModelsWithMoreau) {
  const Model m = pendulum(1.0);
  SimulationOptions o;
  o.integrator.duration = 2.0;
  double worst = -1.0;
  const SimulationResult r = simulate(m, o, [&](const Sample& s) {
    // the rod's angle from its direction: θ = atan2(−z, x) of the centre
    worst = std::max(worst, std::atan2(-s.data.body[0].x.z(), s.data.body[0].x.x()) - 1.0);
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_GE(r.impacts, 1);
  EXPECT_EQ(r.contact_unconverged, 0);
  EXPECT_LE(worst, 1e-6);
  EXPECT_GT(worst, -1e-6);  // it got there
  // a smooth method asked for explicitly cannot step it; limits off, it can
  o.integrator.method_given = true;
  EXPECT_THROW(Simulation(m, o), std::invalid_argument);
  o.contact.joint_limits = false;
  EXPECT_NO_THROW(Simulation(m, o));
  // moreau runs on the recursive formulation only, for now
  o.contact.joint_limits = true;
  o.integrator.method = "moreau";
  o.formulation = Formulation::Pinv;
  EXPECT_THROW(Simulation(m, o), std::invalid_argument);
}

TEST(JointLimits, ZeroDofModelStartsRunsAndLinearizes) {
  // one body welded to the world: nothing moves, and nothing breaks
  const Model m = load_model_from_string(R"({"gravity": [0, 0, -9.81],
    "bodies": [{"name": "block", "mass": 2, "inertia": {"principal": [1, 1, 1]},
                "position": [0, 0, 1]}],
    "constraints": [{"name": "weld", "type": "fixed", "bodies": ["world", "block"]}]})");
  ASSERT_EQ(m.tree().nu, 0);
  Data d(m);
  ASSERT_EQ(initial_conditions(m, d, m.initial_state()), SolveStatus::Ok) << d.diagnostics.message;
  for (const char* method : {"rk4", "dopri5", "rkf78", "rosenbrock", "moreau"}) {
    SimulationOptions o;
    o.integrator.method = method;
    o.integrator.method_given = true;
    o.integrator.duration = 0.01;
    o.integrator.dt = 1e-3;
    int samples = 0;
    const SimulationResult r = simulate(m, o, [&](const Sample& s) {
      ++samples;
      EXPECT_EQ(s.data.body[0].x, Vec3(0, 0, 1)) << method;  // the weld's pose, exactly
    });
    ASSERT_TRUE(r.ok()) << method << ": " << r.message;
    EXPECT_EQ(samples, 11) << method;
  }
  const LinearModel lm = linearize(m, m.initial_state(), {});
  EXPECT_EQ(lm.A.rows(), 0);
  EXPECT_EQ(lm.B.size(), 0);
  EXPECT_EQ(modes(lm).values.size(), 0);
}

TEST(JointLimits, StartOutsideALimitIsRefused) {
  const Model m = pendulum(1.0);
  State s = m.initial_state();
  s.q(0) = 1.25;  // 0.25 rad past the upper limit
  const LimitViolation v = joint_limit_violation(m, s.q);
  ASSERT_EQ(v.constraint, 0);
  EXPECT_TRUE(v.upper);
  EXPECT_NEAR(v.excess, 0.25, 1e-15);
  EXPECT_EQ(v.message.rfind("joint 'hinge' starts 0.25 rad past its upper limit", 0), 0u)
      << v.message;
  EXPECT_EQ(joint_limit_violation(m, m.initial_state().q).constraint, -1);
  SimulationOptions o;
  o.integrator.duration = 0.01;
  Simulation sim(m, o);
  EXPECT_FALSE(sim.start(s));
  EXPECT_EQ(sim.result().status, SimulationStatus::Inconsistent);
  EXPECT_EQ(sim.result().message, v.message);
}

TEST(JointLimits, LimitOnALoopClosingJointIsRefused) {
  // a planar four-bar whose spanning tree leaves joint D out: its limit would be ignored
  const ModelBuilder src =
      load_scene(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/four_bar.json").model;
  const Model plain = compile(src);
  ASSERT_EQ(plain.tree().extra.size(), 1u);
  const int closing = plain.tree().extra[0];
  // the same four-bar (not through the loader, which refuses it) with that joint limited
  ModelBuilder b;
  b.gravity = src.gravity;
  for (const Body& body : src.bodies()) b.add_body(body);
  for (int c = 0; c < static_cast<int>(src.constraints().size()); ++c) {
    auto j = std::dynamic_pointer_cast<const Joint>(src.constraints()[c]);
    ASSERT_TRUE(j);
    auto copy = std::make_shared<Joint>(*j);
    if (c == closing) {
      JointProperties p;
      p.limited = true;
      p.lower = -1;
      p.upper = 1;
      copy->set_properties(p);
    }
    b.add_constraint(copy);
  }
  const Model m = compile(b);
  ASSERT_EQ(m.tree().extra, plain.tree().extra);
  const std::vector<UnenforcedJoint> lost = unenforced_joint_properties(m);
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].constraint, closing);
  EXPECT_TRUE(lost[0].limit);
  EXPECT_FALSE(lost[0].friction);
  EXPECT_TRUE(unenforced_joint_properties(m, false, true).empty());
  SimulationOptions o;
  try {
    Simulation sim(m, o);
    ADD_FAILURE() << "a limit on a loop-closing joint was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("closes a loop"), std::string::npos) << e.what();
  }
}

// a rod hinged at the origin about y, driven by a prescribed motion q(t): the limit's row
// has no response (the prescription takes every force)
Model prescribed_rod(const std::string& q) {
  return load_model_from_string(R"({"gravity": [0, 0, -9.81],
    "bodies": [{"name": "rod", "mass": 1.5, "inertia": {"principal": [0.1, 0.1, 0.001]},
                "com": [0.5, 0, 0]}],
    "constraints": [
      {"name": "hinge", "type": "revolute", "bodies": ["world", "rod"],
       "origin": {"xyz": [0, 0, 0]}, "axis": [0, 1, 0], "q": 0.5,
       "limit": {"lower": -1, "upper": 0.5}},
      {"name": "drive", "type": "prescribed", "joint": "hinge", "q": ")" +
                                q + R"("}]})");
}

TEST(JointLimits, PrescribedMotionIntoALimitIsReportedNotForced) {
  SimulationOptions o;
  // driven up into its upper limit: no force of the limit can act; said so, never an
  // absurd force
  const Model into = prescribed_rod("0.5 + t");
  try {
    contact_forces(into, into.initial_state(), o, 1e-3);
    ADD_FAILURE() << "a prescribed motion through a limit was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("joint 'hinge' is driven past its upper limit"),
              std::string::npos)
        << e.what();
  }
  // driven away from it, or held on it: the limit carries nothing, the prescription all
  for (const char* q : {"0.5 - t", "0.5 + 0*t"}) {
    const Model m = prescribed_rod(q);
    const std::vector<ContactSample> c = contact_forces(m, m.initial_state(), o, 1e-3);
    ASSERT_EQ(c.size(), 1u) << q;
    EXPECT_TRUE(c[0].upper);
    EXPECT_EQ(c[0].normal_force, 0.0) << q;
  }
}

TEST(ContactSolver, FixedBlockCarriesNoImpulse) {
  // a row with no response (G = 0) whose free velocity closes it: with the block fixed,
  // λ = 0; a penalty would give it g / ρ, without bound as ρ → 0
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(2, 2);
  G(1, 1) = 2.0;
  const Eigen::VectorXd g = Eigen::Vector2d(-1.0, -4.0);
  std::vector<ContactBlock> blocks(2);
  for (int k = 0; k < 2; ++k) {
    blocks[k].kind = ContactBlock::Kind::Unilateral;
    blocks[k].row = k;
  }
  blocks[0].fixed = true;
  Eigen::VectorXd lambda;
  const ContactSolverResult r = solve_contact_problem(G, g, blocks, lambda);
  ASSERT_TRUE(r.converged);
  EXPECT_EQ(lambda(0), 0.0);
  EXPECT_NEAR(lambda(1), 2.0, 1e-9);  // the movable row: G λ + g = 0
}

}  // namespace
}  // namespace appell
