// engine/model and engine/data: the layout of q, u and the constraint rows, API misuse.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/assembly/stages.hpp"

namespace appell {
namespace {

Body rigid(const std::string& name, const Vec3& x) {
  Body b;
  b.name = name;
  b.position = x;
  b.orientation = Quat(2, 0, 0, 0);  // not normalised: the model normalises
  return b;
}
Body particle(const std::string& name, const Vec3& x) {
  Body b;
  b.name = name;
  b.type = BodyType::Particle;
  b.position = x;
  b.velocity = Vec3(1, 2, 3);
  return b;
}

TEST(Model, LayoutOfCoordinatesAndRows) {
  ModelBuilder m_b;
  const int a = m_b.add_body(rigid("a", Vec3(0, 0, -1)));
  const int p = m_b.add_body(particle("p", Vec3(0, 0, -2)));
  const int c = m_b.add_body(rigid("c", Vec3(1, 0, -1)));
  EXPECT_EQ(m_b.nbody(), 3);
  const Model m = compile(m_b);
  EXPECT_EQ(m.nq(), 7 + 3 + 7);
  EXPECT_EQ(m.nu(), 6 + 3 + 6);
  EXPECT_EQ(m.q_offset(p), 7);
  EXPECT_EQ(m.q_offset(c), 10);
  EXPECT_EQ(m.u_offset(p), 6);
  EXPECT_EQ(m.u_offset(c), 9);
  EXPECT_EQ(m.body_index("p"), p);
  EXPECT_EQ(m.body_index("world"), kWorld);
  EXPECT_EQ(m.body_index("nobody"), -2);

  m_b.add_constraint(std::make_shared<Joint>("j", joint_type("revolute"), kWorld, a,
                                             m_b.initial_state(kWorld), m_b.initial_state(a),
                                             Vec3::Zero(), Vec3::UnitX(), Vec3::Zero()));
  m_b.add_constraint(std::make_shared<DistanceConstraint>(
      "d", a, p, m_b.initial_state(a), m_b.initial_state(p), Vec3(0, 0, -1), Vec3(0, 0, -2), 1.0));
  m_b.add_constraint(std::make_shared<Joint>("f", joint_type("fixed"), a, c, m_b.initial_state(a),
                                             m_b.initial_state(c), Vec3::Zero(), Vec3::UnitX(),
                                             Vec3::Zero()));
  EXPECT_EQ(m.nrows(), 0);  // m is constant: what was added later is not in it
  const Model mc = compile(m_b);
  EXPECT_EQ(mc.nrows(), 5 + 1 + 6);
  EXPECT_EQ(mc.row_offset(1), 5);
  EXPECT_EQ(mc.row_offset(2), 6);
  // terms: rows × bodies named (the world is not named)
  EXPECT_EQ(mc.constraints()[0]->bodies().size(), 1u);
  EXPECT_EQ(mc.term_offset(1), 5);
  EXPECT_EQ(mc.term_offset(2), 5 + 2);
  EXPECT_EQ(mc.nterms(), 5 + 2 + 12);
  EXPECT_EQ(mc.slot_offset(2), 3);
  EXPECT_EQ(mc.nslots(), 5);
  EXPECT_EQ(mc.constraints()[1]->slot(p), 1);
  EXPECT_EQ(mc.constraints()[1]->slot(kWorld), -1);
  EXPECT_EQ(mc.constraints()[1]->slot(c), -1);

  // the initial state, with the quaternion normalised
  Data d(mc);
  EXPECT_EQ(d.q.segment<4>(3), Eigen::Vector4d(1, 0, 0, 0));
  EXPECT_EQ(d.q.segment<3>(7), Vec3(0, 0, -2));
  EXPECT_EQ(d.u.segment<3>(6), Vec3(1, 2, 3));
  EXPECT_EQ(d.reaction.size(), 5u);
  // the dense A is made by the first dense evaluation only
  EXPECT_EQ(d.A.size(), 0);
  kinematics(mc, d);
  constraint_rows(mc, d);
  dense_rows(mc, d);
  EXPECT_EQ(d.A.rows(), 12);
  EXPECT_EQ(d.A.cols(), 9);  // the fixed joint welds a and c into one composite (6 + 3)
}

// The joints among the constraints are found once by compile(): joint(c) is constraint c
// itself when it is a joint of any type and null for another kind (here a distance), and
// joints() lists exactly those, in constraint order.
TEST(Model, JointsAreTheJointConstraintsInOrder) {
  ModelBuilder m_b;
  const int a = m_b.add_body(rigid("a", Vec3(0, 0, -1)));
  const int p = m_b.add_body(particle("p", Vec3(0, 0, -2)));
  const int b = m_b.add_body(rigid("b", Vec3(1, 0, -1)));
  const int c = m_b.add_body(rigid("c", Vec3(2, 0, -1)));
  const int e = m_b.add_body(rigid("e", Vec3(3, 0, -1)));
  const auto joint = [&](const char* name, const char* type, int parent, int child) {
    m_b.add_constraint(std::make_shared<Joint>(
        name, joint_type(type), parent, child, m_b.initial_state(parent), m_b.initial_state(child),
        m_b.initial_state(child).x, Vec3::UnitX(), Vec3::UnitY()));
  };
  joint("hinge", "revolute", kWorld, a);
  m_b.add_constraint(std::make_shared<DistanceConstraint>("rod", a, p, m_b.initial_state(a),
                                                          m_b.initial_state(p), Vec3(0, 0, -1),
                                                          Vec3(0, 0, -2), 1.0));
  joint("slider", "prismatic", a, b);
  joint("ball", "spherical", b, c);
  joint("cross", "universal", c, e);
  const Model m = compile(m_b);
  ASSERT_EQ(m.constraints().size(), 5u);
  const std::vector<std::string> types = {"revolute", "", "prismatic", "spherical", "universal"};
  std::vector<const Joint*> expected;
  for (int k = 0; k < 5; ++k) {
    const Constraint* constraint = m.constraints()[k].get();
    if (types[k].empty()) {
      EXPECT_EQ(m.joint(k), nullptr) << constraint->name();
      continue;
    }
    ASSERT_NE(m.joint(k), nullptr) << constraint->name();
    EXPECT_EQ(static_cast<const Constraint*>(m.joint(k)), constraint);
    EXPECT_EQ(m.joint(k)->joint_type().name(), types[k]);
    expected.push_back(m.joint(k));
  }
  EXPECT_EQ(m.joints(), expected);
  // a copy shares the constraints, so its table still points at them
  const Model copy = m;
  EXPECT_EQ(copy.joints(), expected);
  EXPECT_TRUE(Model().joints().empty());
}

TEST(Model, MisuseThrowsNamingTheProblem) {
  ModelBuilder m_b;
  m_b.add_body(rigid("a", Vec3::Zero()));
  const BodyState s = m_b.initial_state(0);
  try {
    m_b.add_constraint(
        std::make_shared<DistanceConstraint>("d", 0, 3, s, s, Vec3::Zero(), Vec3::UnitX(), 1.0));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "Model::add_constraint(): constraint 'd' names body 3, model has 1");
  }
  m_b.add_constraint(
      std::make_shared<PointOnPlaneConstraint>("x", 0, s, Vec3::Zero(), Vec3::UnitZ()));
  try {
    m_b.add_constraint(
        std::make_shared<PointOnPlaneConstraint>("x", 0, s, Vec3::Zero(), Vec3::UnitX()));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "Model::add_constraint(): duplicate constraint name 'x'");
  }
  EXPECT_THROW(m_b.add_constraint(nullptr), std::invalid_argument);
  EXPECT_THROW(m_b.add_force(nullptr), std::invalid_argument);
  EXPECT_THROW(m_b.add_body(rigid("", Vec3::Zero())), std::invalid_argument);
}

// A Data serves the Model it was built from; any other Model of other sizes is refused
// with both sizes named, and a State must have the tree's sizes.
TEST(Model, DataOfAnotherModelIsRefused) {
  ModelBuilder one, two;
  one.add_body(rigid("a", Vec3::Zero()));
  two.add_body(rigid("a", Vec3::Zero()));
  two.add_body(particle("p", Vec3(0, 0, -2)));
  const Model m1 = compile(one), m2 = compile(two);
  Data d(m1);
  try {
    forward(m2, d);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "forward(): data was built for nbody = 1, the model has 2 (build the Data "
                 "from this Model)");
  }
  State s = m1.initial_state();
  s.u.resize(2);
  try {
    set_state(m1, d, s);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "set_state(): state.q has 7 entries and state.u 2, expected the tree's nq = 7 "
                 "and nu = 6");
  }
}

// One Model, many initial conditions: a State is all a run needs.  Two pendulum states
// simulated on one Model equal the same states described by two scenes (two Models).
TEST(Model, OneModelServesManyInitialStates) {
  auto pendulum = [](double angle, double rate) {
    ModelBuilder b;
    b.gravity = Vec3(0, 0, -9.81);
    const Quat turn(Eigen::AngleAxisd(angle, Vec3::UnitY()));
    Body bob = rigid("bob", turn * Vec3(0, 0, -1));
    bob.orientation = turn;
    bob.angular_velocity = Vec3(0, rate, 0);
    bob.velocity = bob.angular_velocity.cross(bob.position);
    const int i = b.add_body(bob);
    b.add_constraint(std::make_shared<Joint>("hinge", joint_type("revolute"), kWorld, i,
                                             BodyState{}, b.initial_state(i), Vec3::Zero(),
                                             Vec3::UnitY()));
    return b;
  };
  const Model shared = compile(pendulum(0.3, 0.0));
  SimulationOptions o;
  o.integrator.duration = 0.5;
  for (const auto& [angle, rate] : {std::pair{0.3, 0.0}, std::pair{-0.8, 1.5}}) {
    const Model own = compile(pendulum(angle, rate));
    // the same pose and rate, as the shared model's joint coordinates (the hinge angle
    // from its reference pose, 0.3 rad)
    State s = shared.initial_state();
    s.q(0) = angle - 0.3;
    s.u(0) = rate;
    double x_shared = 0, x_own = 0;
    ASSERT_TRUE(
        simulate(shared, s, o, [&](const Sample& k) { x_shared = k.data.body[0].x.x(); }).ok());
    ASSERT_TRUE(simulate(own, o, [&](const Sample& k) { x_own = k.data.body[0].x.x(); }).ok());
    EXPECT_NEAR(x_shared, x_own, 1e-12) << angle;
  }
}

TEST(Model, FormulationNames) {
  for (Formulation f : {Formulation::Auto, Formulation::Recursive, Formulation::GibbsAppell,
                        Formulation::Pinv, Formulation::Sparse}) {
    Formulation g = Formulation::Auto;
    EXPECT_TRUE(parse_formulation(formulation_name(f), g));
    EXPECT_EQ(g, f);
  }
  Formulation g = Formulation::Pinv;
  EXPECT_FALSE(parse_formulation("gibbs_appell", g));
  EXPECT_EQ(g, Formulation::Pinv);
  EXPECT_STREQ(formulation_name(Formulation::GibbsAppell), "gibbs-appell");
}

}  // namespace
}  // namespace appell
