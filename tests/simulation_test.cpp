// Simulation (appell/simulation.hpp) against closed forms and conservation laws.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/standard_chain.hpp>
#include <appell/trajectory.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "engine/assembly/stages.hpp"
#include "tests/simulation_scenes.hpp"

namespace {

using appell::compile;
using appell::Formulation;
using appell::Model;
using appell::Sample;
using appell::Scene;
using appell::Settings;
using appell::SimulationOptions;
using appell::SimulationResult;
using appell::SimulationStatus;
using appell::Vec3;

using appell::testing::angular_momentum;
using appell::testing::double_pendulum;
using appell::testing::num;
using appell::testing::options;
using appell::testing::pendulum;
using appell::testing::vec;

constexpr double kG = 9.81;

// A rigid body with no forces: asymmetric (I1 < I2 < I3) or axisymmetric.
Scene free_body(const Vec3& inertia, const Vec3& w0, const Vec3& v0 = Vec3(0.3, -0.2, 0.1)) {
  const std::string scene = R"({"name": "free", "bodies": [{"name": "b", "mass": 2.0,
      "inertia": {"principal": )" +
                            vec(inertia) + R"(},
      "orientation": {"axis_angle": [1, 2, 3, 0.7]},
      "velocity": )" + vec(v0) +
                            R"(, "angular_velocity": )" + vec(w0) + R"(}]})";
  return appell::load_scene_from_string(scene, "free.json");
}

TEST(Simulation, FreeBodyConservesEnergyAndAngularMomentum) {
  const Model m = compile(free_body(Vec3(0.1, 0.2, 0.25), Vec3(1.0, 3.0, -0.5)));
  for (const char* method : {"dopri5", "rkf78"}) {
    double E0 = 0, dE = 0, dL = 0;
    Vec3 L0;
    const SimulationResult r =
        appell::simulate(m, options(method, 5.0, 0.01), [&](const Sample& s) {
          const Vec3 L = angular_momentum(m, s.data);
          if (s.index == 0) E0 = s.energy, L0 = L;
          dE = std::max(dE, std::abs(s.energy - E0) / E0);
          dL = std::max(dL, (L - L0).norm() / L0.norm());
        });
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.samples, 501);
    EXPECT_LT(dE, 1e-9) << method;
    EXPECT_LT(dL, 1e-9) << method;
    std::printf("free body %s: energy drift %.3g, angular momentum drift %.3g (relative)\n", method,
                dE, dL);
  }
}

// Torque-free axisymmetric body (I1 = I2): in the body frame ω precesses about the
// symmetry axis at Ω = (I3 − I1)/I1 · ω3 (Euler's equations), ω3 constant.
TEST(Simulation, AxisymmetricBodyPrecessesAtClosedFormRate) {
  const double I1 = 0.2, I3 = 0.35, w3 = 4.0, a = 1.5;
  // ω(0) in the body frame is (a, 0, ω3); the body starts rotated, so map it to the world
  const Model probe = compile(free_body(Vec3(I1, I1, I3), Vec3::Zero()));
  const Vec3 w0 = probe.bodies()[0].orientation * Vec3(a, 0, w3);
  const Model m = compile(free_body(Vec3(I1, I1, I3), w0));
  const double Omega = (I3 - I1) / I1 * w3;
  double err = 0;
  const SimulationResult r =
      appell::simulate(m, options("dopri5", 5.0, 0.01), [&](const Sample& s) {
        const Vec3 wb = s.data.body[0].Q.transpose() * s.data.body[0].w;
        const Vec3 exact(a * std::cos(Omega * s.t), a * std::sin(Omega * s.t), w3);
        err = std::max(err, (wb - exact).cwiseAbs().maxCoeff());
      });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT(err, 1e-7);
  std::printf("axisymmetric body: max |ω_body − closed form| = %.3g over 5 s\n", err);
}

// The spherical pendulum [UK96 ex. 1]: energy and the vertical angular momentum.
TEST(Simulation, SphericalPendulumConservesEnergyAndVerticalMomentum) {
  const Model m = compile(pendulum(Vec3(0.6, 0.0, -0.8), Vec3(0.0, 1.3, 0.0)));
  double E0 = 0, dE = 0, Lz0 = 0, dLz = 0;
  const SimulationResult r =
      appell::simulate(m, options("dopri5", 5.0, 0.01), [&](const Sample& s) {
        const double Lz = angular_momentum(m, s.data).z();
        if (s.index == 0) E0 = s.energy, Lz0 = Lz;
        dE = std::max(dE, std::abs(s.energy - E0));
        dLz = std::max(dLz, std::abs(Lz - Lz0));
      });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT(dE, 1e-8);
  EXPECT_LT(dLz, 1e-8);
}

// The conical pendulum: a steady precession at height −L cos θ when v² = g r tan θ.
TEST(Simulation, ConicalPendulumKeepsItsHeight) {
  const double L = 1.0, theta = 0.5, r0 = L * std::sin(theta), z0 = -L * std::cos(theta);
  const double v = std::sqrt(kG * r0 * std::tan(theta));
  const Model m = compile(pendulum(Vec3(r0, 0, z0), Vec3(0, v, 0)));
  double dz = 0, dr = 0;
  const SimulationResult r =
      appell::simulate(m, options("dopri5", 10.0, 0.01), [&](const Sample& s) {
        const Vec3 x = s.data.body[0].x;
        dz = std::max(dz, std::abs(x.z() - z0));
        dr = std::max(dr, std::abs(x.head<2>().norm() - r0));
      });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT(dz, 1e-7);
  EXPECT_LT(dr, 1e-7);
  RecordProperty("height_drift", num(dz));
  std::printf("conical pendulum: max height drift %.3g over 10 s\n", dz);
}

// The large-amplitude pendulum: T = 4 sqrt(L/g) K(k), k = sin(θ0/2).
TEST(Simulation, LargeAmplitudePeriodMatchesEllipticIntegral) {
  const double L = 1.0, theta0 = 2.5;
  const Model m =
      compile(pendulum(Vec3(0, L * std::sin(theta0), -L * std::cos(theta0)), Vec3::Zero()));
  const double T_exact = 4.0 * std::sqrt(L / kG) * std::comp_ellint_1(std::sin(theta0 / 2));
  // y crosses zero going down (negative vy) once per period; locate each crossing by the
  // cubic Hermite interpolant between two samples (y and vy at both ends)
  std::vector<double> crossings;
  double t_prev = 0, y_prev = 0, vy_prev = 0;
  const SimulationResult r =
      appell::simulate(m, options("dopri5", 2.2 * T_exact, 0.01), [&](const Sample& s) {
        const double y = s.data.body[0].x.y(), vy = s.data.body[0].v.y();
        if (s.index > 0 && y_prev > 0 && y <= 0) {
          const double h = s.t - t_prev;
          auto hermite = [&](double tau) {
            const double t2 = tau * tau, t3 = t2 * tau;
            return (2 * t3 - 3 * t2 + 1) * y_prev + (t3 - 2 * t2 + tau) * h * vy_prev +
                   (-2 * t3 + 3 * t2) * y + (t3 - t2) * h * vy;
          };
          double lo = 0, hi = 1;
          for (int i = 0; i < 60; ++i) {
            const double mid = 0.5 * (lo + hi);
            (hermite(mid) > 0 ? lo : hi) = mid;
          }
          crossings.push_back(t_prev + 0.5 * (lo + hi) * h);
        }
        t_prev = s.t, y_prev = y, vy_prev = vy;
      });
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_GE(crossings.size(), 2u);
  const double T = crossings[1] - crossings[0];
  EXPECT_LT(std::abs(T - T_exact) / T_exact, 1e-6) << T << " vs " << T_exact;
  std::printf("pendulum at 2.5 rad: period %.12f, elliptic %.12f, rel. error %.2g\n", T, T_exact,
              std::abs(T - T_exact) / T_exact);
}

// rk4 is 4th order on the rigid-body flow with renormalised quaternions: halving dt
// divides the error by ≈ 16.
TEST(Simulation, Rk4IsFourthOrder) {
  struct Case {
    const char* name;
    Scene scene;
  };
  std::vector<Case> cases;
  cases.push_back({"free body", free_body(Vec3(0.1, 0.2, 0.25), Vec3(1.0, 3.0, -0.5))});
  cases.push_back({"pendulum", pendulum(Vec3(0.6, 0.0, -0.8), Vec3(0.0, 1.3, 0.4))});
  for (const Case& c : cases) {
    const double T = 2.0;
    auto final_state = [&](const SimulationOptions& o) {
      const Model m = compile(c.scene);
      appell::Simulation sim(m, o);
      const SimulationResult r = sim.run();
      EXPECT_TRUE(r.ok()) << r.message;
      return Eigen::VectorXd(sim.state());
    };
    const Eigen::VectorXd ref = final_state(options("rkf78", T, 0.1, 1e-14, 1e-15));
    const double e1 = (final_state(options("rk4", T, 0.02)) - ref).cwiseAbs().maxCoeff();
    const double e2 = (final_state(options("rk4", T, 0.01)) - ref).cwiseAbs().maxCoeff();
    EXPECT_NEAR(e1 / e2, 16.0, 1.5) << c.name << ": " << e1 << " / " << e2;
    std::printf("rk4 %s: error ratio %.3f (dt 0.02 -> 0.01)\n", c.name, e1 / e2);
  }
}

struct Drift {
  double energy = 0, position = 0, velocity = 0;
};
Drift run_drift(const Model& m, const SimulationOptions& o) {
  Drift d;
  double E0 = 0;
  const SimulationResult r = appell::simulate(m, o, [&](const Sample& s) {
    if (s.index == 0) E0 = s.energy;
    d.energy = std::max(d.energy, std::abs(s.energy - E0) / std::abs(E0));
    d.position = std::max(d.position, s.violation_position);
    d.velocity = std::max(d.velocity, s.violation_velocity);
  });
  EXPECT_TRUE(r.ok()) << r.message;
  return d;
}
// the scene's own stabilization with the integrator of `o`
Drift run_drift(const Scene& scene, SimulationOptions o) {
  o.stabilization = scene.settings.solver.stabilization;
  return run_drift(compile(scene), o);
}

// A chaotic double pendulum over 10 s: projection keeps the violation at round-off and the
// energy within 1e-8.
TEST(Simulation, DoublePendulumDriftWithProjection) {
  const Drift p = run_drift(double_pendulum(R"({"type": "projection"})"),
                            options("dopri5", 10.0, 0.01, 1e-11, 1e-13));
  EXPECT_LT(p.position, 1e-10);
  EXPECT_LT(p.velocity, 1e-10);
  EXPECT_LT(p.energy, 1e-8);
  std::printf("double pendulum, projection: energy %.3g, position %.3g, velocity %.3g\n", p.energy,
              p.position, p.velocity);
}

// Without stabilization the violation grows with the integration error; Baumgarte bounds
// it; projection removes it.  rk4, a coarse step.
TEST(Simulation, DoublePendulumDriftBounds) {
  const SimulationOptions o = options("rk4", 10.0, 2e-3);
  const Drift none = run_drift(double_pendulum(R"("none")"), o);
  const Drift baum =
      run_drift(double_pendulum(R"({"type": "baumgarte", "alpha": 20, "beta": 20})"), o);
  const Drift proj = run_drift(double_pendulum(R"({"type": "projection"})"), o);
  std::printf("rk4 dt=2ms 10 s: position violation none %.3g, baumgarte %.3g, projection %.3g\n",
              none.position, baum.position, proj.position);
  std::printf("                energy drift       none %.3g, baumgarte %.3g, projection %.3g\n",
              none.energy, baum.energy, proj.energy);
  EXPECT_GT(none.position, 1e-9);  // the drift is real
  EXPECT_LT(none.position, 1e-3);
  EXPECT_LT(baum.position, none.position);
  EXPECT_LT(proj.position, 1e-10);
}

// pinv, gibbs-appell and sparse give the same trajectory (the same minimum of the Gaussian).
TEST(Simulation, FormulationsAgreeOnATrajectory) {
  const Model m = compile(double_pendulum(R"("none")"));
  std::vector<Eigen::VectorXd> finals;
  for (Formulation f : {Formulation::Pinv, Formulation::GibbsAppell, Formulation::Sparse}) {
    SimulationOptions o = options("dopri5", 1.0, 0.01, 1e-11, 1e-13);
    o.formulation = f;
    appell::Simulation sim(m, o);
    ASSERT_TRUE(sim.run().ok());
    finals.push_back(sim.state());
  }
  EXPECT_LT((finals[0] - finals[1]).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LT((finals[0] - finals[2]).cwiseAbs().maxCoeff(), 1e-8);
}

// The standard chain integrates and stays on its joints with projection.
TEST(Simulation, StandardChainWithProjection) {
  const Model m = appell::standard_chain(5);
  SimulationOptions o = options("rk4", 0.5, 1e-3);
  o.stabilization.type = appell::Stabilization::Type::Projection;
  const Drift d = run_drift(m, o);
  EXPECT_LT(d.position, 1e-10);
  EXPECT_LT(d.energy, 1e-8);
}

}  // namespace
