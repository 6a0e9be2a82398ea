// Simulation (appell/simulation.hpp) against closed forms and conservation laws.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/standard_chain.hpp>
#include <appell/trajectory.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "engine/assembly/stages.hpp"

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

constexpr double kG = 9.81;

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
std::string vec(const Vec3& v) {
  return "[" + num(v.x()) + ", " + num(v.y()) + ", " + num(v.z()) + "]";
}

SimulationOptions options(const std::string& method, double duration, double dt,
                          double rtol = 1e-10, double atol = 1e-12) {
  SimulationOptions o;
  o.formulation = Formulation::Pinv;
  o.integrator.method = method;
  o.integrator.duration = duration;
  o.integrator.dt = dt;
  o.integrator.rtol = rtol;
  o.integrator.atol = atol;
  return o;
}

// A particle on a massless rod of length L to the world origin [UK96 ex. 1].
Scene pendulum(const Vec3& x0, const Vec3& v0, const std::string& stabilization = R"("none")") {
  const std::string scene = R"({"name": "pendulum", "gravity": [0, 0, -9.81],
    "bodies": [{"name": "bob", "type": "particle", "mass": 0.7, "position": )" +
                            vec(x0) + R"(, "velocity": )" + vec(v0) + R"(}],
    "constraints": [{"name": "rod", "type": "distance", "bodies": ["world", "bob"],
                     "points": [[0, 0, 0], )" +
                            vec(x0) + R"(]}],
    "solver": {"stabilization": )" +
                            stabilization + R"(}})";
  return appell::load_scene_from_string(scene, "pendulum.json");
}

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

// Two rigid links on revolute joints, released from a large angle: chaotic.
Scene double_pendulum(const std::string& stabilization) {
  const std::string scene = R"({"name": "double pendulum", "gravity": [0, 0, -9.81],
    "bodies": [
      {"name": "a", "mass": 1.0, "inertia": {"box": [0.05, 0.05, 0.4]},
       "position": [0, 0.2, 0], "orientation": {"axis_angle": [1, 0, 0, -1.5707963267948966]}},
      {"name": "b", "mass": 1.0, "inertia": {"box": [0.05, 0.05, 0.4]},
       "position": [0, 0.4, 0.2], "orientation": {"axis_angle": [1, 0, 0, 3.141592653589793]},
       "angular_velocity": [2, 0, 0], "velocity": [0, 0, 0]}],
    "constraints": [
      {"name": "hinge1", "type": "revolute", "bodies": ["world", "a"], "anchor": [0, 0, 0], "axis": [1, 0, 0]},
      {"name": "hinge2", "type": "revolute", "bodies": ["a", "b"], "anchor": [0, 0.4, 0], "axis": [1, 0, 0]}],
    "solver": {"stabilization": )" +
                            stabilization + R"(}})";
  return appell::load_scene_from_string(scene, "double_pendulum.json");
}

// Angular momentum about the world origin.
Vec3 angular_momentum(const Model& m, const appell::Data& d) {
  Vec3 L = Vec3::Zero();
  for (int i = 0; i < m.nbody(); ++i) {
    const appell::BodyState& s = d.body[i];
    L += s.x.cross(m.bodies()[i].mass * s.v);
    if (m.bodies()[i].rigid()) L += d.J[i] * s.w;
  }
  return L;
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

// Initial velocities off the constraint are projected in the mass metric: for the
// pendulum only the radial component is removed, ‖Δu‖_M = sqrt(m) |v_r|.
TEST(Simulation, InitialVelocityProjection) {
  const Vec3 x0(0.6, 0.0, -0.8), tangential(0.8, 0.3, 0.6), radial = 0.5 * x0;
  const Model m = compile(pendulum(x0, tangential + radial));
  Vec3 v_first;
  double pi_first = 1;
  const SimulationResult r = appell::simulate(m, options("rk4", 0.01, 0.01), [&](const Sample& s) {
    if (s.index == 0) v_first = s.data.body[0].v, pi_first = s.violation_velocity;
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_NEAR(r.initial_velocity_correction, std::sqrt(0.7) * radial.norm(), 1e-14);
  EXPECT_LT((v_first - tangential).norm(), 1e-14);
  EXPECT_LT(pi_first, 1e-14);
}

// Output instants: t = 0, every N-th step or instant, and the final time.
TEST(Simulation, OutputEverySemantics) {
  const Model m = compile(pendulum(Vec3(0.6, 0.0, -0.8), Vec3(0.0, 1.3, 0.0)));
  for (const char* method : {"rk4", "dopri5", "rkf78"}) {
    SimulationOptions o = options(method, 1.05, 0.1);
    o.every = 3;
    std::vector<double> times;
    const SimulationResult r =
        appell::simulate(m, o, [&](const Sample& s) { times.push_back(s.t); });
    ASSERT_TRUE(r.ok()) << r.message;
    const std::vector<double> expected = {0.0, 0.3, 0.6, 0.9, 1.05};
    ASSERT_EQ(times.size(), expected.size()) << method;
    for (size_t i = 0; i < times.size(); ++i) EXPECT_NEAR(times[i], expected[i], 1e-15) << method;
    if (std::string(method) == "rk4") {
      EXPECT_EQ(r.steps, 11);
      EXPECT_EQ(r.rhs_evaluations, 44);
    }
  }
}

// A stiff spring with a coarse rk4 step blows up: the run stops, says when and why, and
// the samples before the failure were delivered.
TEST(Simulation, BlowUpStopsWithStatus) {
  const Model m = appell::load_model_from_string(R"({"bodies": [
      {"name": "p", "type": "particle", "mass": 1, "position": [0, 0, -1.1]}],
    "forces": [{"type": "spring", "bodies": ["world", "p"], "points": [[0, 0, 0], [0, 0, -1.1]],
                "stiffness": 1e8, "rest_length": 1.0}]})");
  long samples = 0;
  double last_t = -1;
  const SimulationResult r = appell::simulate(m, options("rk4", 10.0, 0.01), [&](const Sample& s) {
    ++samples;
    last_t = s.t;
  });
  EXPECT_EQ(r.status, SimulationStatus::NotFinite);
  EXPECT_GT(r.t, 0.0);
  EXPECT_LT(r.t, 10.0);
  EXPECT_GT(samples, 2);
  EXPECT_LE(last_t, r.t);
  EXPECT_FALSE(r.message.empty());
}

// A force that becomes infinite at t = 0.5: the adaptive steppers shrink the step and
// stop there.
TEST(Simulation, SingularForceStopsAdaptiveStepper) {
  appell::ModelBuilder m;
  appell::Body b;
  b.name = "p";
  b.type = appell::BodyType::Particle;
  m.add_body(b);
  m.add_force(std::make_shared<appell::CallableForce>(
      [](const appell::StateView& s, appell::SpatialForce* out) {
        out[0].force.x() += 1.0 / std::pow(0.5 - s.t, 3);
      }));
  for (const char* method : {"dopri5", "rkf78"}) {
    const SimulationResult r = appell::simulate(compile(m), options(method, 1.0, 0.1));
    EXPECT_NE(r.status, SimulationStatus::Completed) << method;
    EXPECT_NEAR(r.t, 0.5, 1e-3) << method << ": " << r.message;
  }
}

TEST(Simulation, BadOptionsThrow) {
  const Model m = compile(pendulum(Vec3(0.6, 0.0, -0.8), Vec3::Zero()));
  EXPECT_THROW(appell::Simulation(m, options("euler", 1, 0.1)), std::invalid_argument);
  EXPECT_THROW(appell::Simulation(m, options("rk4", 1, 0.0)), std::invalid_argument);
}

}  // namespace

namespace {

std::string example(const char* name) {
  return std::string(APPELL_SOURCE_DIR) + "/scenes/examples/" + name;
}

// [HO21 §7]: a cylinder on a smooth horizontal plane.  The centre of mass moves at constant
// velocity, and the spin components Ω3 = ω·E3 and ω3 = ω·e3 are constant.
TEST(Simulation, CylinderOnSmoothPlaneMatchesHO21) {
  const Scene scene = appell::load_scene(example("cylinder_on_plane.json"));
  const Model m = compile(scene);
  Vec3 v0;
  double W0 = 0, w0 = 0, dv = 0, dW = 0, dw = 0;
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.integrator.duration = 2.0;
  const SimulationResult r = appell::simulate(m, o, [&](const Sample& s) {
    const appell::BodyState& b = s.data.body[0];
    const double W = b.w.z(), w = b.w.dot(b.Q.col(2));
    if (s.index == 0) v0 = b.v, W0 = W, w0 = w;
    dv = std::max(dv, (b.v - v0).norm());
    dW = std::max(dW, std::abs(W - W0));
    dw = std::max(dw, std::abs(w - w0));
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT(dv, 1e-9);
  EXPECT_LT(dW, 1e-8);
  EXPECT_LT(dw, 1e-8);
}

// The heavy symmetric top: energy, the vertical angular momentum about the pivot and the
// spin ω·e3 are the Lagrange top's three integrals.
TEST(Simulation, HeavyTopKeepsLagrangeIntegrals) {
  const Scene scene = appell::load_scene(example("heavy_top.json"));
  const Model m = compile(scene);
  double E0 = 0, Lz0 = 0, s0 = 0, dE = 0, dLz = 0, ds = 0;
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.integrator.duration = 1.0;
  const SimulationResult r = appell::simulate(m, o, [&](const Sample& s) {
    const appell::BodyState& b = s.data.body[0];
    const double Lz = angular_momentum(m, s.data).z(), spin = b.w.dot(b.Q.col(2));
    if (s.index == 0) E0 = s.energy, Lz0 = Lz, s0 = spin;
    dE = std::max(dE, std::abs(s.energy - E0));
    dLz = std::max(dLz, std::abs(Lz - Lz0));
    ds = std::max(ds, std::abs(spin - s0));
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT(dE, 1e-8);
  EXPECT_LT(dLz, 1e-9);
  EXPECT_LT(ds, 1e-7);
}

// Every example loads, is consistent at t = 0 and runs.
TEST(Simulation, ExamplesRun) {
  for (const char* name :
       {"spherical_pendulum.json", "cylinder_on_plane.json", "double_pendulum.json",
        "chain_3d.json", "four_bar.json", "heavy_top.json"}) {
    const Scene scene = appell::load_scene(example(name));
    const Model m = compile(scene);
    SimulationOptions o = SimulationOptions::from_settings(scene.settings);
    o.integrator.duration = 0.05;
    const SimulationResult r = appell::simulate(m, o);
    EXPECT_TRUE(r.ok()) << name << ": " << r.message;
    EXPECT_LT(r.initial_velocity_correction, 1e-12) << name;
  }
}

}  // namespace

namespace {

// v_x = 0 and v_x = −1 at once: no velocity satisfies both; the run stops at t = 0.
// (built in code: the scene loader refuses such a scene, scene_loader_test.cpp)
TEST(Simulation, ContradictoryConstraintsStopAtStart) {
  appell::ModelBuilder b;
  appell::Body p;
  p.name = "p";
  p.type = appell::BodyType::Particle;
  p.mass = 1;
  const int i = b.add_body(p);
  using appell::LinearConstraint;
  for (const auto& [name, e] : {std::make_pair("still", 0.0), std::make_pair("moving", 1.0)})
    b.add_constraint(std::make_shared<LinearConstraint>(name, i, b.initial_state(i), Vec3::Zero(),
                                                        Vec3::UnitX(), Vec3::Zero(), e,
                                                        LinearConstraint::Frame::World));
  const Model m = appell::compile(b);
  const SimulationResult r = appell::simulate(m, options("rk4", 1.0, 0.1));
  EXPECT_EQ(r.status, SimulationStatus::Inconsistent) << r.message;
  EXPECT_EQ(r.t, 0.0);
  EXPECT_NE(r.message.find("velocit"), std::string::npos) << r.message;
}

}  // namespace

namespace {

// Driving the loop by hand gives exactly what run() gives.
TEST(Simulation, SteppingMatchesRun) {
  const Model m = compile(double_pendulum(R"({"type": "projection"})"));
  for (const char* method : {"rk4", "dopri5", "rkf78"}) {
    const SimulationOptions o = options(method, 0.5, 0.01);
    appell::Simulation a(m, o), b(m, o);
    std::vector<double> ta, tb;
    const SimulationResult ra = a.run([&](const Sample& s) { ta.push_back(s.t); });
    ASSERT_TRUE(b.start([&](const Sample& s) { tb.push_back(s.t); }));
    long steps = 0;
    while (b.step([&](const Sample& s) { tb.push_back(s.t); })) {
      ++steps;
      EXPECT_TRUE(b.running() || b.time() == 0.5);
    }
    EXPECT_FALSE(b.running());
    EXPECT_TRUE(b.result().ok()) << b.result().message;
    EXPECT_EQ(steps, ra.steps) << method;
    EXPECT_EQ(b.result().rhs_evaluations, ra.rhs_evaluations) << method;
    EXPECT_EQ(ta, tb) << method;
    EXPECT_EQ(a.state(), b.state()) << method;
    EXPECT_EQ(b.time(), 0.5);
  }
}

}  // namespace
