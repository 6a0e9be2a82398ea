#include <gtest/gtest.h>

#include <appell/appell.hpp>

#include "engine/assembly/stages.hpp"

TEST(Smoke, FreeFall) {
  appell::ModelBuilder m_b;
  m_b.gravity = appell::Vec3(0, 0, -9.81);
  appell::Body b;
  b.name = "ball";
  b.type = appell::BodyType::Particle;
  m_b.add_body(b);
  const appell::Model m = appell::compile(m_b);
  appell::Data d(m);
  ASSERT_EQ(appell::forward(m, d, appell::Formulation::Pinv), appell::SolveStatus::Ok);
  EXPECT_NEAR(d.udot(2), -9.81, 1e-15);
}
