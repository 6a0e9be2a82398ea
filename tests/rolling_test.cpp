// Rolling and knife-edge rows: conservation checks by a small RK4 loop over forward() in
// maximal coordinates (no stabilization).  Rolling and the knife edge do no work, so
// energy is conserved; with exact b the velocity rows stay satisfied to integration
// error, and the holonomic normal row keeps the body on the plane.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/state_space.hpp>
#include <cmath>
#include <iostream>
#include <vector>

#include "engine/assembly/stages.hpp"
#include "maximal_formulations.hpp"

namespace {

using appell::testing::maximal_formulations;

using appell::Vec3;

std::string example(const std::string& name) {
  return std::string(APPELL_SOURCE_DIR) + "/scenes/examples/" + name;
}

struct Drift {
  double energy = 0, velocity = 0, position = 0;
};

// classical RK4 for `steps` steps of dt; returns the largest relative energy drift and the
// largest constraint residuals seen
Drift simulate(const appell::Model& m, appell::Formulation f, double dt, int steps) {
  appell::Data d(m);
  appell::MaximalStateSpace space(m, appell::SolverOptions{f, {}});
  Eigen::VectorXd x, k1, k2, k3, k4;
  space.from_maximal(d, x);
  space.to_maximal(x, 0.0, d);
  const double E0 = appell::kinetic_energy(m, d) + appell::potential_energy(m, d);
  Drift out;
  double t = 0;
  for (int i = 0; i < steps; ++i) {
    EXPECT_EQ(space.derivative(x, t, d, k1), appell::SolveStatus::Ok);
    space.derivative(x + 0.5 * dt * k1, t + 0.5 * dt, d, k2);
    space.derivative(x + 0.5 * dt * k2, t + 0.5 * dt, d, k3);
    space.derivative(x + dt * k3, t + dt, d, k4);
    x += dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4);
    t += dt;
    space.normalize(x);
    space.derivative(x, t, d, k1);  // residuals and energy at the new state
    const double E = appell::kinetic_energy(m, d) + appell::potential_energy(m, d);
    out.energy = std::max(out.energy, std::abs(E - E0) / std::abs(E0));
    out.velocity = std::max(out.velocity, d.velocity_residual.cwiseAbs().maxCoeff());
    out.position = std::max(out.position, d.position_residual.cwiseAbs().maxCoeff());
  }
  return out;
}

void check(const std::string& scene, double duration) {
  const appell::Model m = appell::load_model(example(scene));
  for (appell::Formulation f : maximal_formulations()) {
    const Drift dr = simulate(m, f, 1e-3, static_cast<int>(duration / 1e-3));
    std::cout << "[conservation] " << scene << " (" << appell::formulation_name(f)
              << "): energy drift " << dr.energy << ", velocity residual " << dr.velocity
              << ", position residual " << dr.position << "\n";
    EXPECT_LT(dr.energy, 1e-9);
    EXPECT_LT(dr.velocity, 1e-9);
    EXPECT_LT(dr.position, 1e-9);
  }
}

TEST(Rolling, SphereOnInclineConservesEnergy) {
  check("sphere_incline.json", 1.0);
}
TEST(Rolling, ChaplyginSleighConservesEnergy) {
  check("chaplygin_sleigh.json", 2.0);
}
TEST(Rolling, DiskConservesEnergyAndStaysOnThePlane) {
  check("rolling_disk.json", 2.0);
}

// A generic (unsteady) disk: tilted, spinning fast enough not to fall, nutating, with ω
// off the steady manifold.  (A disk that falls flat reaches n × e₃ = 0, where the contact
// point is undefined: the rows are singular there.)
TEST(Rolling, WobblingDiskConservesEnergy) {
  appell::ModelBuilder m_b;
  m_b.gravity = Vec3(0, 0, -9.81);
  appell::Body b;
  b.name = "disk";
  b.mass = 1.1;
  b.inertia = appell::inertia_cylinder(1.1, 0.25, 0.04);
  b.orientation = appell::Quat(Eigen::AngleAxisd(0.4, Vec3::UnitZ()) *
                               Eigen::AngleAxisd(M_PI / 2 - 0.25, Vec3::UnitX()));
  const Vec3 e3 = b.orientation * Vec3::UnitZ();
  const Vec3 n = Vec3::UnitZ();
  const Vec3 c = -(n - n.dot(e3) * e3).normalized();
  b.position = Vec3(0.1, -0.2, 0) - 0.25 * c;
  b.angular_velocity = 8.0 * e3 + Vec3(0.3, -0.5, 1.2);
  b.velocity = -b.angular_velocity.cross(0.25 * c);  // contact point at rest
  m_b.add_body(b);
  m_b.add_constraint(std::make_shared<appell::RollingConstraint>(
      "contact", 0, m_b.initial_state(0), 0.25, appell::RollingConstraint::Shape::Disk, n));
  const appell::Model m = appell::compile(m_b);
  for (appell::Formulation f : maximal_formulations()) {
    const Drift dr = simulate(m, f, 5e-4, 2000);
    std::cout << "[conservation] wobbling disk (" << appell::formulation_name(f)
              << "): energy drift " << dr.energy << ", velocity residual " << dr.velocity
              << ", position residual " << dr.position << "\n";
    EXPECT_LT(dr.energy, 1e-8);
    EXPECT_LT(dr.velocity, 1e-8);
    EXPECT_LT(dr.position, 1e-8);
  }
}

// The normal row's g has the rate π_n (R1): compare with the exact derivative of
// g = n·(x̄ − p₀) − r|n × e₃| along a rotation (analytic, no finite differences needed for
// the check: d|n × e₃|/dt = (n×e₃)·(n×(ω×e₃))/|n×e₃|).
TEST(Rolling, DiskNormalRowIsTheRateOfItsHeight) {
  appell::BodyState s;
  s.Q = appell::Quat(Eigen::AngleAxisd(0.9, Vec3(1, 0.4, -0.3).normalized())).toRotationMatrix();
  s.x = Vec3(0.3, 0.2, 1.0);
  s.v = Vec3(0.5, -0.1, 0.7);
  s.w = Vec3(-1.2, 0.8, 2.1);
  const Vec3 n = Vec3(0.1, -0.2, 1).normalized();
  const double r = 0.4;
  appell::ModelBuilder m_b;
  appell::Body b;
  b.name = "d";
  b.position = s.x;
  b.orientation = appell::Quat(s.Q);
  m_b.add_body(b);
  appell::RollingConstraint rc("c", 0, m_b.initial_state(0), r,
                               appell::RollingConstraint::Shape::Disk, n);
  appell::SpatialForce terms[3];
  double bb[3], vel[3], pos[3];
  appell::RowSpan span{terms, bb, vel, pos, 1};
  rc.evaluate(appell::StateView{&s, 0.0}, span);
  const Vec3 e3 = s.Q.col(2), ne = n.cross(e3);
  const double rate = n.dot(s.v) - r * ne.dot(n.cross(s.w.cross(e3))) / ne.norm();
  EXPECT_NEAR(vel[0], rate, 1e-14);
}

}  // namespace

namespace {

std::string load_error(const std::string& constraint) {
  const std::string text =
      R"J({"bodies": [{"name": "d", "mass": 1, "inertia": {"cylinder": [0.5, 0.1]}, "position": [0, 0, 0.5]},
                      {"name": "p", "type": "particle", "mass": 1}],
           "constraints": [)J" +
      constraint + "]}";
  try {
    appell::load_model_from_string(text, "s.json");
  } catch (const appell::SceneError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Rolling, SceneErrorsAreLocated) {
  EXPECT_EQ(
      load_error(
          R"J({"type": "rolling", "body": "d", "radius": 0.5, "shape": "disk", "normal": [0, 0, 1]})J"),
      "s.json: /constraints/0/normal: the disk (axis = body z) lies flat on the plane; its "
      "contact point is undefined");
  EXPECT_EQ(
      load_error(
          R"J({"type": "rolling", "body": "d", "radius": 0.5, "shape": "cube", "normal": [0, 0, 1]})J"),
      "s.json: /constraints/0/shape: unknown shape 'cube'; expected sphere or disk");
  EXPECT_EQ(
      load_error(
          R"J({"type": "rolling", "body": "p", "radius": 0.5, "shape": "sphere", "normal": [0, 0, 1]})J"),
      "s.json: /constraints/0/body: 'p' is a particle; rolling needs a rigid body");
  EXPECT_EQ(
      load_error(
          R"J({"type": "rolling", "body": "d", "radius": -1, "shape": "sphere", "normal": [0, 0, 1]})J"),
      "s.json: /constraints/0/radius: must be > 0, got -1");
  EXPECT_EQ(
      load_error(
          R"J({"type": "knife_edge", "body": "p", "point": [0, 0, 0], "direction": [1, 0, 0]})J"),
      "s.json: /constraints/0/body: 'p' is a particle; a knife edge needs a rigid body");
  EXPECT_EQ(
      load_error(
          R"J({"type": "knife_edge", "body": "d", "point": [0, 0, 0], "direction": [0, 0, 0]})J"),
      "s.json: /constraints/0/direction: direction must be nonzero, got [0, 0, 0]");
  EXPECT_EQ(
      load_error(
          R"J({"type": "rolling", "body": "d", "radius": 0.5, "shape": "sphere", "normal": [0, 0, 1], "slip": 0})J"),
      "s.json: /constraints/0/slip: unknown key 'slip'; expected one of: name, type, body, "
      "radius, shape, normal");
}

}  // namespace

// A disk rolling down to within ~5e-6 rad of lying flat (where its contact rows become
// singular: the contact point runs round the rim ever faster), in every formulation, with
// and without projection: rolling without slipping does no work, so the energy stays put
// (issue "Redundant and singular constraint sets", item 4: projection near singular
// configurations stays energy-consistent, and recursive converges like the others).
TEST(Rolling, DiskNearlyFlatConservesEnergyWithAndWithoutProjection) {
  const double R = 0.5, phi = 1.56, precession = 3.0;  // tilt from upright, rad; rad/s
  const Eigen::Vector3d n(-std::cos(phi), 0, -std::sin(phi)), d(-std::sin(phi), 0, std::cos(phi));
  const Eigen::Vector3d c = R * d, w(0, 0, precession), v = w.cross(c);
  char scene[2048];
  std::snprintf(scene, sizeof scene, R"({
    "bodies": [{"name": "disk", "mass": 1.5, "inertia": {"cylinder": [0.5, 0.05]},
      "position": [%.17g, 0, %.17g],
      "orientation": {"matrix": [[%.17g, 0, %.17g], [0, -1, 0], [%.17g, 0, %.17g]]},
      "velocity": [%.17g, %.17g, %.17g], "angular_velocity": [0, 0, %.17g]}],
    "constraints": [{"name": "contact", "type": "rolling", "body": "disk", "radius": 0.5,
                     "shape": "disk", "normal": [0, 0, 1]}],
    "gravity": [0, 0, -9.81],
    "integrator": {"method": "dopri5", "duration": 1.0, "dt": 0.001, "rtol": 1e-10, "atol": 1e-12}})",
                c.x(), c.z(), -d.x(), n.x(), -d.z(), n.z(), v.x(), v.y(), v.z(), precession);
  for (auto stab : {appell::Stabilization::Type::None, appell::Stabilization::Type::Projection})
    for (appell::Formulation f : {appell::Formulation::Pinv, appell::Formulation::GibbsAppell,
                                  appell::Formulation::Sparse, appell::Formulation::Recursive}) {
      const appell::Scene loaded = appell::load_scene_from_string(scene);
      const appell::Model m = appell::compile(loaded);
      appell::SimulationOptions o = appell::SimulationOptions::from_settings(loaded.settings);
      o.stabilization.type = stab;
      o.formulation = f;
      double E0 = NAN, drift = 0.0, flattest = 1.0;
      const appell::SimulationResult r = appell::simulate(m, o, [&](const appell::Sample& s) {
        if (s.index == 0) E0 = s.energy;
        drift = std::max(drift, std::abs(s.energy - E0));
        flattest = std::min(flattest, std::acos(std::min(1.0, std::abs(s.data.body[0].Q(2, 2)))));
      });
      const std::string what =
          std::string(appell::formulation_name(f)) +
          (stab == appell::Stabilization::Type::None ? ", none" : ", projection");
      ASSERT_TRUE(r.ok()) << what << ": " << r.message;
      EXPECT_LT(flattest, 1e-4) << what;  // the premise: it does come close to flat
      EXPECT_LT(drift, 1e-8) << what;     // joules, of E0 ≈ 2.6 J
      std::cout << "[ figures  ] nearly flat disk, " << what << ": closest " << flattest
                << " rad from flat, energy drift " << drift << " J\n";
    }
}
