// Builds a spherical pendulum in code (no JSON) and checks the acceleration against
// [UK96 eq. 28]: m ẍ = m g − m (|ẋ|² + g·x)/L² x  (here with g along −z).
#include <appell/appell.hpp>
#include <cmath>
#include <cstdio>

int main() {
  appell::ModelBuilder builder;
  builder.gravity = appell::Vec3(0, 0, -9.81);
  appell::Body bob;
  bob.name = "bob";
  bob.type = appell::BodyType::Particle;
  bob.mass = 2.0;
  bob.position = appell::Vec3(0.6, 0.0, -0.8);
  bob.velocity = appell::Vec3(0.0, 1.5, 0.0);
  const int b = builder.add_body(bob);
  builder.add_constraint(std::make_shared<appell::DistanceConstraint>(
      "rod", appell::kWorld, b, builder.initial_state(appell::kWorld), builder.initial_state(b),
      appell::Vec3::Zero(), bob.position, 1.0));
  const appell::Model model = appell::compile(builder);
  appell::Data data(model);
  if (appell::forward(model, data, appell::Formulation::GibbsAppell) != appell::SolveStatus::Ok)
    return 1;
  const appell::Vec3 x = bob.position, v = bob.velocity, g = model.gravity();
  const appell::Vec3 expected = g - (v.squaredNorm() + g.dot(x)) * x;  // L = 1
  const double err = (data.udot.head<3>() - expected).norm() / expected.norm();
  std::printf("relative error %.3g\n", err);
  return err < 1e-12 ? 0 : 1;
}
