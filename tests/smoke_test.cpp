#include <gtest/gtest.h>

#include <appell/appell.hpp>

TEST(Smoke, FreeFall) {
  appell::Model m;
  m.gravity = appell::Vec3(0, 0, -9.81);
  appell::Body b;
  b.name = "ball";
  b.type = appell::BodyType::Particle;
  m.add_body(b);
  appell::Data d(m);
  ASSERT_EQ(appell::forward(m, d, appell::Formulation::Pinv), appell::SolveStatus::Ok);
  EXPECT_NEAR(d.udot(2), -9.81, 1e-15);
}
