// Lagrangian systems in the user's quasi-velocities (engine/lagrangian/, docs/lagrangian.md)
// against closed forms and the rigid-body path: the charged particle's cyclotron circles,
// the relativistic mass matrix and energy, the spherical pendulum, the rolling disk, the
// Cartesian pendulum's rod, rheonomic rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "appell/data.hpp"
#include "appell/forward.hpp"
#include "appell/lagrangian_run.hpp"
#include "appell/lagrangian_scene.hpp"
#include "appell/scene.hpp"
#include "cli_util.hpp"
#include "engine/lagrangian/first_order.hpp"
#include "lagrangian_util.hpp"

namespace appell {
namespace {

using lagrangian_test::csv_rows;
using lagrangian_test::example;
using testing::run_cli;

// L = ½ m v² + e v·A, A = B/2 (−y, x, 0): circles of radius v/ω at ω = eB/m, clockwise
// for e B > 0, and uniform motion along B.
TEST(LagrangianExamples, ChargedParticleCirclesAtTheCyclotronFrequency) {
  const LagrangianScene sc = load_lagrangian_scene(example("charged_particle.json"));
  const double m = 0.5, e = 2.0, B = 1.5, w = e * B / m, v0 = 0.9, vz = 0.2;
  int samples = 0;
  const LagrangianRunResult r =
      integrate_lagrangian(sc.system, sc.initial, sc.run, [&](const LagrangianSample& x) {
        ++samples;
        EXPECT_NEAR(x.q(0), v0 / w * std::sin(w * x.t), 1e-9);
        EXPECT_NEAR(x.q(1), v0 / w * (std::cos(w * x.t) - 1.0), 1e-9);
        EXPECT_NEAR(x.q(2), vz * x.t, 1e-9);
      });
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_GT(samples, 100);
}

// L = −m c² √(1 − v²/c²) − V: the mass matrix m γ (I + γ² v vᵀ / c²) (exact nested-dual
// second derivatives), and the energy function m c² γ + V conserved along the run.
TEST(LagrangianExamples, RelativisticParticleMassMatrixAndEnergy) {
  const LagrangianScene sc = load_lagrangian_scene(example("relativistic_particle.json"));
  LagrangianData d(sc.system);
  LagrangianState x = sc.initial;
  x.qd << 0.3, -0.5;
  ASSERT_EQ(evaluate_lagrangian(sc.system, x, d), LagrangianStatus::Ok);
  const double gamma = 1.0 / std::sqrt(1.0 - x.qd.squaredNorm());
  const Eigen::Matrix2d M =
      gamma * (Eigen::Matrix2d::Identity() + gamma * gamma * x.qd * x.qd.transpose());
  EXPECT_LT((d.M - M).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_NEAR(d.energy, gamma + 2.0 * x.q.squaredNorm(), 1e-14);
  double e0 = NAN, worst = 0.0, vmax = 0.0;
  const LagrangianRunResult r =
      integrate_lagrangian(sc.system, sc.initial, sc.run, [&](const LagrangianSample& s) {
        if (std::isnan(e0)) e0 = s.energy;
        worst = std::max(worst, std::abs(s.energy - e0));
        vmax = std::max(vmax, s.qd.norm());
      });
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_LT(worst, 1e-9);
  EXPECT_GT(vmax, 0.7);  // relativistic: well beyond the Newtonian regime
  EXPECT_LT(vmax, 1.0);
}

// The spherical pendulum in two angles equals the particle-on-a-rod scene
// (scenes/examples/spherical_pendulum.json) run by the rigid-body path.
TEST(LagrangianExamples, SphericalPendulumEqualsTheRodScene) {
  const std::string dir = ::testing::TempDir();
  const std::string a = dir + "lag_sp.csv", b = dir + "rod_sp.csv";
  auto r1 = run_cli("simulate " + example("spherical_pendulum.json") +
                    " --duration 2 --quiet --out " + a);
  ASSERT_EQ(r1.status, 0) << r1.err;
  auto r2 = run_cli("simulate " + std::string(APPELL_SOURCE_DIR) +
                    "/scenes/examples/spherical_pendulum.json --duration 2 --quiet --out " + b);
  ASSERT_EQ(r2.status, 0) << r2.err;
  const auto la = csv_rows(a), rb = csv_rows(b);
  ASSERT_EQ(la.size(), rb.size());
  for (size_t i = 0; i < la.size(); i += 20) {
    const double th = la[i][1], ph = la[i][2];
    EXPECT_NEAR(la[i][0], rb[i][0], 1e-12);
    // bob.x, bob.y, bob.z are the rod scene's columns 1–3
    EXPECT_NEAR(std::sin(th) * std::cos(ph), rb[i][1], 1e-6);
    EXPECT_NEAR(std::sin(th) * std::sin(ph), rb[i][2], 1e-6);
    EXPECT_NEAR(-std::cos(th), rb[i][3], 1e-6);
  }
}

// The rolling disk in Euler angles and its centre, two rolling rows, in the quasi-velocities
// (θ̇, φ̇, ψ̇ + sin θ φ̇), equals the rigid-body scene scenes/examples/rolling_disk.json (a
// rigid disk with a rolling constraint) over 2 s, and stays in its steady turn.
TEST(LagrangianExamples, RollingDiskEqualsTheRigidBodyScene) {
  const std::string dir = ::testing::TempDir();
  const std::string a = dir + "lag_disk.csv", b = dir + "rigid_disk.csv";
  auto r1 = run_cli("simulate " + example("rolling_disk.json") + " --quiet --out " + a);
  ASSERT_EQ(r1.status, 0) << r1.err;
  auto r2 = run_cli("simulate " + std::string(APPELL_SOURCE_DIR) +
                    "/scenes/examples/rolling_disk.json --quiet --out " + b);
  ASSERT_EQ(r2.status, 0) << r2.err;
  const auto la = csv_rows(a), rb = csv_rows(b);
  ASSERT_EQ(la.size(), rb.size());
  ASSERT_EQ(la.size(), 2001u);
  for (size_t i = 0; i < la.size(); i += 10) {
    // columns: t, q.x, q.y, q.th, ...; the rod scene's disk.x, disk.y, disk.z
    const double th = la[i][3];
    EXPECT_NEAR(la[i][1], rb[i][1], 1e-9) << "t = " << la[i][0];
    EXPECT_NEAR(la[i][2], rb[i][2], 1e-9) << "t = " << la[i][0];
    EXPECT_NEAR(0.5 * std::cos(th), rb[i][3], 1e-9) << "t = " << la[i][0];
    EXPECT_NEAR(th, 0.3, 1e-9);
  }
}

// A holonomic rod in Cartesian coordinates: the projection keeps |q| = l, the energy is
// conserved, and ν = x ż − z ẋ is l² θ̇.
TEST(LagrangianExamples, CartesianPendulumKeepsItsRod) {
  const LagrangianScene sc = load_lagrangian_scene(example("planar_pendulum_cartesian.json"));
  double e0 = NAN, drift = 0.0, viol = 0.0;
  const LagrangianRunResult r =
      integrate_lagrangian(sc.system, sc.initial, sc.run, [&](const LagrangianSample& s) {
        if (std::isnan(e0)) e0 = s.energy;
        drift = std::max(drift, std::abs(s.energy - e0));
        viol = std::max(viol, std::max(s.violation_position, s.violation_velocity));
        EXPECT_NEAR(s.nu(0), s.q(0) * s.qd(1) - s.q(1) * s.qd(0), 1e-12);
      });
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_LT(viol, 1e-12);
  EXPECT_LT(drift, 1e-9);
}

// Time in the rows: x driven by the holonomic x = a sin(w t) (its ẍ is all ∂²g/∂t²) and a
// quasi-velocity ν = ẏ + t x with a term free of rates; y is a unit mass on a spring.
TEST(LagrangianExamples, RheonomicRowsAndQuasiVelocities) {
  const LagrangianScene sc = load_lagrangian_scene_from_string(
      R"J({"lagrangian": {"parameters": {"a": 0.3, "w": 2.0},
           "coordinates": [{"name": "x", "q": 0, "rate": 0.6}, {"name": "y", "q": 0.2}],
           "L": "0.5*(qd(x)^2 + qd(y)^2) - 0.5*4*q(y)^2",
           "constraints": [{"level": "position", "equation": "q(x) - a*sin(w*t)"}],
           "quasi_velocities": [{"name": "nu", "expression": "qd(y) + t*q(x)"}]}})J",
      "rheonomic.json");
  LagrangianData d(sc.system);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 20; ++trial) {
    LagrangianState x;
    x.t = 3 * u(rng);
    x.q = Eigen::Vector2d(0.3 * std::sin(2 * x.t), u(rng));
    x.qd = Eigen::Vector2d(0.6 * std::cos(2 * x.t), u(rng));
    ASSERT_EQ(evaluate_lagrangian(sc.system, x, d), LagrangianStatus::Ok) << d.message;
    EXPECT_NEAR(d.qdd(0), -1.2 * std::sin(2 * x.t), 1e-12);  // −a w² sin(w t)
    EXPECT_NEAR(d.qdd(1), -4 * x.q(1), 1e-12);
    EXPECT_NEAR(d.nudot(0), d.qdd(1) + x.q(0) + x.t * x.qd(0), 1e-12);  // ÿ + x + t ẋ
    EXPECT_NEAR(d.qdd_gauss(0), d.qdd(0), 1e-12);
    EXPECT_NEAR(d.lambda(0), d.qdd(0), 1e-12);  // the driving force: M ẍ − 0 = λ ∂g/∂x
  }
}

}  // namespace
}  // namespace appell
