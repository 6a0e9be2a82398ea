// engine/model and engine/data: the layout of q, u and the constraint rows, API misuse.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <memory>
#include <stdexcept>
#include <string>

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
  Model m;
  const int a = m.add_body(rigid("a", Vec3(0, 0, -1)));
  const int p = m.add_body(particle("p", Vec3(0, 0, -2)));
  const int c = m.add_body(rigid("c", Vec3(1, 0, -1)));
  EXPECT_EQ(m.nbody(), 3);
  EXPECT_EQ(m.nq(), 7 + 3 + 7);
  EXPECT_EQ(m.nu(), 6 + 3 + 6);
  EXPECT_EQ(m.q_offset(p), 7);
  EXPECT_EQ(m.q_offset(c), 10);
  EXPECT_EQ(m.u_offset(p), 6);
  EXPECT_EQ(m.u_offset(c), 9);
  EXPECT_EQ(m.body_index("p"), p);
  EXPECT_EQ(m.body_index("world"), kWorld);
  EXPECT_EQ(m.body_index("nobody"), -2);

  m.add_constraint(std::make_shared<Joint>("j", joint_type("revolute"), kWorld, a,
                                           m.initial_state(kWorld), m.initial_state(a),
                                           Vec3::Zero(), Vec3::UnitX(), Vec3::Zero()));
  m.add_constraint(std::make_shared<DistanceConstraint>(
      "d", a, p, m.initial_state(a), m.initial_state(p), Vec3(0, 0, -1), Vec3(0, 0, -2), 1.0));
  m.add_constraint(std::make_shared<Joint>("f", joint_type("fixed"), a, c, m.initial_state(a),
                                           m.initial_state(c), Vec3::Zero(), Vec3::UnitX(),
                                           Vec3::Zero()));
  EXPECT_EQ(m.nrows(), 5 + 1 + 6);
  EXPECT_EQ(m.row_offset(1), 5);
  EXPECT_EQ(m.row_offset(2), 6);
  // terms: rows × bodies named (the world is not named)
  EXPECT_EQ(m.constraints()[0]->bodies().size(), 1u);
  EXPECT_EQ(m.term_offset(1), 5);
  EXPECT_EQ(m.term_offset(2), 5 + 2);
  EXPECT_EQ(m.nterms(), 5 + 2 + 12);
  EXPECT_EQ(m.slot_offset(2), 3);
  EXPECT_EQ(m.nslots(), 5);
  EXPECT_EQ(m.constraints()[1]->slot(p), 1);
  EXPECT_EQ(m.constraints()[1]->slot(kWorld), -1);
  EXPECT_EQ(m.constraints()[1]->slot(c), -1);

  // the initial state, with the quaternion normalised
  Data d(m);
  EXPECT_EQ(d.q.segment<4>(3), Eigen::Vector4d(1, 0, 0, 0));
  EXPECT_EQ(d.q.segment<3>(7), Vec3(0, 0, -2));
  EXPECT_EQ(d.u.segment<3>(6), Vec3(1, 2, 3));
  EXPECT_EQ(d.reaction.size(), 5u);
  EXPECT_EQ(d.A.rows(), 12);
  EXPECT_EQ(d.A.cols(), 15);
}

TEST(Model, MisuseThrowsNamingTheProblem) {
  Model m;
  m.add_body(rigid("a", Vec3::Zero()));
  const BodyState s = m.initial_state(0);
  try {
    m.add_constraint(
        std::make_shared<DistanceConstraint>("d", 0, 3, s, s, Vec3::Zero(), Vec3::UnitX(), 1.0));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "Model::add_constraint(): constraint 'd' names body 3, model has 1");
  }
  m.add_constraint(
      std::make_shared<PointOnPlaneConstraint>("x", 0, s, Vec3::Zero(), Vec3::UnitZ()));
  try {
    m.add_constraint(
        std::make_shared<PointOnPlaneConstraint>("x", 0, s, Vec3::Zero(), Vec3::UnitX()));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "Model::add_constraint(): duplicate constraint name 'x'");
  }
  EXPECT_THROW(m.add_constraint(nullptr), std::invalid_argument);
  EXPECT_THROW(m.add_force(nullptr), std::invalid_argument);
  EXPECT_THROW(m.add_body(rigid("", Vec3::Zero())), std::invalid_argument);
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
