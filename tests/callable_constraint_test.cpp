// A CallableConstraint (the embedding API's custom constraint rows as callables) against the
// built-in row it re-implements: a particle on a rod of length L to the origin, g = |x| − L, π =
// e·v, b = −(|v|² − (e·v)²)/|x| (kernel K5), gives every formulation the same accelerations and
// multiplier as DistanceConstraint.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <stdexcept>

namespace appell {
namespace {

ModelBuilder bob_on_a_rod() {
  ModelBuilder b;
  b.gravity = Vec3(0, 0, -9.81);
  Body bob;
  bob.name = "bob";
  bob.type = BodyType::Particle;
  bob.mass = 0.8;
  bob.position = Vec3(0.3, -0.4, -1.2);
  bob.velocity = Vec3(0.5, 0.9, 0.2).cross(bob.position);
  b.add_body(bob);
  return b;
}

TEST(CallableConstraint, EqualsTheDistanceRowItWrites) {
  ModelBuilder with_distance = bob_on_a_rod(), with_callable = bob_on_a_rod();
  const BodyState s0 = with_distance.initial_state(0);
  const double L = s0.x.norm();
  with_distance.add_constraint(std::make_shared<DistanceConstraint>("rod", kWorld, 0, BodyState{},
                                                                    s0, Vec3::Zero(), s0.x, L));
  with_callable.add_constraint(std::make_shared<CallableConstraint>(
      "rod", std::vector<int>{0}, 1, true, [L](const StateView& s, const RowSpan& out) {
        const BodyState& p = s.body(0);
        const double r = p.x.norm();
        const Vec3 e = p.x / r;
        out.term(0, 0).force = e;
        out.term(0, 0).moment.setZero();
        out.position[0] = r - L;
        out.velocity[0] = e.dot(p.v);
        out.b[0] = -(p.v.squaredNorm() - e.dot(p.v) * e.dot(p.v)) / r;
      }));
  const Model a = compile(with_distance), b = compile(with_callable);
  for (Formulation f :
       {Formulation::Pinv, Formulation::GibbsAppell, Formulation::Sparse, Formulation::Recursive}) {
    Data da(a), db(b);
    ASSERT_EQ(forward(a, da, f), SolveStatus::Ok) << formulation_name(f);
    ASSERT_EQ(forward(b, db, f), SolveStatus::Ok) << formulation_name(f);
    EXPECT_LT((da.udot - db.udot).norm(), 1e-12) << formulation_name(f);
    EXPECT_NEAR(da.lambda(0), db.lambda(0), 1e-12) << formulation_name(f);
  }
  EXPECT_EQ(b.constraints()[0]->type(), "callable");
}

TEST(CallableConstraint, RefusesNoRowsAndNoFunction) {
  EXPECT_THROW(CallableConstraint("c", {0}, 0, true, [](const StateView&, const RowSpan&) {}),
               std::invalid_argument);
  EXPECT_THROW(CallableConstraint("c", {0}, 1, true, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace appell
