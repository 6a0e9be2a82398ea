// Lagrangian systems in the user's quasi-velocities (engine/lagrangian/, docs/lagrangian.md):
// L96 §2's worked example against eqs. (2.4)–(2.5), the two forms (Gibbs–Appell in ν and
// Gauss/Udwadia–Kalaba) against each other on random states, the rigid-body path on the
// same system, the linear model, and the errors a user meets (lagrangian_examples_test.cpp:
// the example systems against closed forms).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

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
using lagrangian_test::load_error;
using testing::run_cli;
using testing::write_temp;

// a random state on the constraint set: q and ν drawn, q̇ = Y ν + y
LagrangianState random_state(const LagrangianSystem& s, std::mt19937& rng, LagrangianData& d) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  LagrangianState x;
  x.t = 2.0 * u(rng);
  x.q = Eigen::VectorXd::NullaryExpr(s.n(), [&] { return u(rng); });
  const Eigen::VectorXd nu = Eigen::VectorXd::NullaryExpr(s.dof(), [&] { return u(rng); });
  x.qd.resize(s.n());
  EXPECT_EQ(rates_of(s, x.t, x.q, nu, d, x.qd), LagrangianStatus::Ok);
  return x;
}

// L96 §2: m ν̇¹ = F_y (2.4);  m/(1+y²) ν̇² − m y/(1+y²)² ν¹ν² = (F_x + y F_z)/(1+y²) (2.5),
// with F = (−k x, c sin t − d ẏ, −m g) (the scene's forces and gravity), and the Gibbs
// function's Hessian diag(m, m/(1+y²)) read off L96's G.
TEST(LagrangianL96, GibbsAppellEquationsAreEqs2_4And2_5) {
  const LagrangianScene sc = load_lagrangian_scene(example("lewis_particle.json"));
  const LagrangianSystem& s = sc.system;
  ASSERT_EQ(s.dof(), 2);
  const double m = 1.3, g = 9.81, k = 2.0, c = 0.5, dd = 0.1;
  LagrangianData d(s);
  std::mt19937 rng(36);
  for (int trial = 0; trial < 50; ++trial) {
    // the state's y inside the parameterization (2.2): ẋ = ν²/(1+y²), ẏ = ν¹, ż = y ν²/(1+y²)
    const LagrangianState x = random_state(s, rng, d);
    const double y = x.q(1), t = x.t;
    const double nu1 = x.qd(1), nu2 = y * x.qd(2) + x.qd(0);
    const double w = 1.0 + y * y;
    EXPECT_NEAR(x.qd(0), nu2 / w, 1e-14);
    EXPECT_NEAR(x.qd(2), y * nu2 / w, 1e-14);
    ASSERT_EQ(evaluate_lagrangian(s, x, d), LagrangianStatus::Ok);
    const double Fx = -k * x.q(0), Fy = c * std::sin(t) - dd * x.qd(1), Fz = -m * g;
    // (2.4), (2.5) solved for ν̇
    const double nudot1 = Fy / m;
    const double nudot2 = (Fx + y * Fz) / m + y * nu1 * nu2 / w;
    EXPECT_NEAR(d.nudot(0), nudot1, 1e-12);
    EXPECT_NEAR(d.nudot(1), nudot2, 1e-12);
    EXPECT_NEAR(d.H(0, 0), m, 1e-13);
    EXPECT_NEAR(d.H(1, 1), m / w, 1e-13);
    EXPECT_NEAR(d.H(0, 1), 0.0, 1e-13);
    EXPECT_NEAR(d.F_nu(0), Fy, 1e-12);
    EXPECT_NEAR(d.F_nu(1), (Fx + y * Fz) / w + m * y * nu1 * nu2 / (w * w), 1e-12);
    // Lagrange's equations (2.6)–(2.8): the multiplier is the force along ż
    EXPECT_NEAR(m * d.qdd_gauss(2) - Fz, d.lambda(0), 1e-12);
    EXPECT_NEAR(m * d.qdd_gauss(0) - Fx, -y * d.lambda(0), 1e-12);
  }
}

// Both forms — the null-space Gibbs–Appell solve in ν and the range-space generalized
// inverse — give the same q̈ and ν̇ on every state, for every example scene.
TEST(LagrangianForms, GibbsAppellEqualsGaussOnRandomStates) {
  for (const char* name :
       {"lewis_particle.json", "charged_particle.json", "relativistic_particle.json",
        "spherical_pendulum.json", "planar_pendulum_cartesian.json", "rolling_disk.json"}) {
    SCOPED_TRACE(name);
    const LagrangianScene sc = load_lagrangian_scene(example(name));
    LagrangianData d(sc.system);
    std::mt19937 rng(7);
    for (int trial = 0; trial < 100; ++trial) {
      LagrangianState x = random_state(sc.system, rng, d);
      if (std::string(name) == "relativistic_particle.json") x.qd *= 0.5;  // |v| < c
      ASSERT_EQ(evaluate_lagrangian(sc.system, x, d), LagrangianStatus::Ok) << d.message;
      const double scale = 1.0 + d.qdd.cwiseAbs().maxCoeff();
      EXPECT_LT((d.qdd - d.qdd_gauss).cwiseAbs().maxCoeff(), 1e-12 * scale);
      EXPECT_LT((d.nudot - d.nudot_gauss).cwiseAbs().maxCoeff(), 1e-12 * scale);
      // the constraint forces do no work on the admissible velocities: Yᵀ Q_c = 0
      EXPECT_LT((d.Y.transpose() * d.Qc).cwiseAbs().maxCoeff(), 1e-12 * scale);
    }
  }
}

// The same particle through the rigid-body path (scenes/examples/lewis_particle.json:
// a particle, an expression constraint, gravity and an expression force) at t = 0.
TEST(LagrangianL96, EqualsTheParticleScene) {
  const LagrangianScene sc = load_lagrangian_scene(example("lewis_particle.json"));
  LagrangianData d(sc.system);
  ASSERT_EQ(evaluate_lagrangian(sc.system, sc.initial, d), LagrangianStatus::Ok);
  const Model m =
      load_model(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/lewis_particle.json");
  Data data(m);
  ASSERT_EQ(forward(m, data, m.initial_state()), SolveStatus::Ok);
  const SpatialMotion a = body_acceleration(m, data, 0);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(d.qdd(i), a.linear(i), 1e-12);
}

// ... and along a run: the (q, ν) integration against the particle scene's maximal
// coordinates, both rk4 at 1 ms for 2 s.
TEST(LagrangianL96, RunEqualsTheParticleSceneRun) {
  const std::string dir = ::testing::TempDir();
  const std::string a = dir + "lag_lewis.csv", b = dir + "rigid_lewis.csv";
  auto r1 = run_cli("simulate " + example("lewis_particle.json") + " --quiet --out " + a);
  ASSERT_EQ(r1.status, 0) << r1.err;
  auto r2 = run_cli("simulate " + std::string(APPELL_SOURCE_DIR) +
                    "/scenes/examples/lewis_particle.json --duration 2 --quiet --out " + b);
  ASSERT_EQ(r2.status, 0) << r2.err;
  const auto la = csv_rows(a), rb = csv_rows(b);
  ASSERT_EQ(la.size(), 201u);  // every 10th step
  ASSERT_EQ(rb.size(), 2001u);
  for (size_t i = 0; i < la.size(); ++i) {
    const std::vector<double>& p = la[i];
    const std::vector<double>& r = rb[10 * i];
    ASSERT_NEAR(p[0], r[0], 1e-12);
    for (int k = 1; k <= 3; ++k) EXPECT_NEAR(p[k], r[k], 1e-10) << "t = " << p[0];
  }
}

// Default quasi-velocities (none given): the rates of the coordinates left after solving
// the constraints for the last ones — here ẋ, ẏ — and the same accelerations.
TEST(LagrangianQuasiVelocities, DefaultChoiceGivesTheSameMotion) {
  const std::string chosen = testing::read_file(example("lewis_particle.json"));
  std::string text = chosen;
  const size_t a = text.find(",\n    \"quasi_velocities\"");
  const size_t b = text.find("]", a);
  text.erase(a, b - a + 1);
  const LagrangianScene sd = load_lagrangian_scene_from_string(text, "default.json");
  const LagrangianScene sc = load_lagrangian_scene(example("lewis_particle.json"));
  ASSERT_EQ(sd.system.dof(), 2);
  EXPECT_EQ(sd.system.quasi_velocities[0].e.text(), "qd(x)");
  EXPECT_EQ(sd.system.quasi_velocities[1].e.text(), "qd(y)");
  LagrangianData dd(sd.system), dc(sc.system);
  ASSERT_EQ(evaluate_lagrangian(sd.system, sd.initial, dd), LagrangianStatus::Ok);
  ASSERT_EQ(evaluate_lagrangian(sc.system, sc.initial, dc), LagrangianStatus::Ok);
  EXPECT_LT((dd.qdd - dc.qdd).cwiseAbs().maxCoeff(), 1e-12);
  // ν̇ in the default ν is (ẍ, ÿ)
  EXPECT_NEAR(dd.nudot(0), dc.qdd(0), 1e-12);
  EXPECT_NEAR(dd.nudot(1), dc.qdd(1), 1e-12);
}

// The linear model in (q, ν): a pendulum in its angle, A = [0 1; −(g/l) cos θ 0] at any
// state; the charged particle's ±i eB/m (the CLI's eigenvalues).
TEST(LagrangianLinearize, PendulumAndCyclotron) {
  const LagrangianScene sc = load_lagrangian_scene_from_string(
      R"J({"lagrangian": {"parameters": {"g": 9.81, "l": 0.5},
           "coordinates": [{"name": "th", "q": 0.7, "rate": 0.3}],
           "L": "0.5*l^2*qd(th)^2 + g*l*cos(q(th))"}})J",
      "pendulum.json");
  Eigen::MatrixXd A;
  std::string message;
  ASSERT_EQ(linearize_lagrangian(sc.system, sc.initial, A, message), LagrangianStatus::Ok);
  ASSERT_EQ(A.rows(), 2);
  EXPECT_NEAR(A(0, 0), 0.0, 1e-10);
  EXPECT_NEAR(A(0, 1), 1.0, 1e-10);
  EXPECT_NEAR(A(1, 0), -9.81 / 0.5 * std::cos(0.7), 1e-9);
  EXPECT_NEAR(A(1, 1), 0.0, 1e-10);
  const auto r = run_cli("linearize " + example("charged_particle.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["eigenvalues"].size(), 6u);
  EXPECT_NEAR(j["eigenvalues"][0]["im"].get<double>(), 2.0 * 1.5 / 0.5, 1e-9);
  EXPECT_NEAR(j["eigenvalues"][5]["im"].get<double>(), -2.0 * 1.5 / 0.5, 1e-9);
  EXPECT_EQ(run_cli("linearize --inputs x " + example("charged_particle.json")).status, 2);
}

// linearize's exact columns (nested dual numbers, third derivatives of L and the rows) against
// Richardson-extrapolated differences of exact evaluations on every example, holonomic rows
// (the Cartesian pendulum) and nonholonomic ones (Lewis's particle, the rolling disk)
// included; and a closed form the differences reach only to ~1e-10
TEST(LagrangianLinearize, ExactColumnsEqualDifferencesAndTheClosedForm) {
  double worst = 0;
  for (const char* name :
       {"lewis_particle.json", "charged_particle.json", "relativistic_particle.json",
        "spherical_pendulum.json", "planar_pendulum_cartesian.json", "rolling_disk.json"}) {
    SCOPED_TRACE(name);
    const LagrangianScene sc = load_lagrangian_scene(example(name));
    const LagrangianSystem& s = sc.system;
    Eigen::MatrixXd A, D;
    std::string message;
    ASSERT_EQ(linearize_lagrangian(s, sc.initial, A, message), LagrangianStatus::Ok) << message;
    // the differences of F(q, ν) = (q̇, ν̇)
    LagrangianData d(s);
    ASSERT_EQ(quasi_velocity_map(s, sc.initial, d), LagrangianStatus::Ok);
    Eigen::VectorXd X(s.n() + s.dof());
    X << sc.initial.q, d.nu;
    LagrangianState x = sc.initial;
    auto F = [&](const Eigen::VectorXd& Z, Eigen::VectorXd& out) {
      x.q = Z.head(s.n());
      LagrangianStatus st = rates_of(s, x.t, x.q, Z.tail(s.dof()), d, x.qd);
      if (st == LagrangianStatus::Ok) st = lagrangian_terms(s, x, d);
      if (st == LagrangianStatus::Ok) st = quasi_velocity_map(s, x, d);
      if (st == LagrangianStatus::Ok) st = gibbs_appell_nu(s, d);
      out.resize(X.size());
      out << x.qd, d.nudot;
      return st == LagrangianStatus::Ok;
    };
    ASSERT_TRUE(lagrangian_detail::richardson_jacobian(F, X, s.n(), D, message)) << message;
    const double diff = (A - D).cwiseAbs().maxCoeff();
    worst = std::max(worst, diff / (1.0 + D.cwiseAbs().maxCoeff()));
    EXPECT_GT(A.cwiseAbs().maxCoeff(), 0.5);
    EXPECT_LT(diff, 1e-7 * (1.0 + D.cwiseAbs().maxCoeff())) << "exact\n"
                                                            << A << "\ndifferences\n"
                                                            << D;
  }
  std::ostringstream os;
  os << std::scientific << worst;
  RecordProperty("worst_relative_difference", os.str());
  // the pendulum: A = [[0, 1], [−(g/l) cos θ, 0]] to round-off
  const LagrangianScene sc = load_lagrangian_scene_from_string(
      R"J({"lagrangian": {"parameters": {"g": 9.81, "l": 0.5},
           "coordinates": [{"name": "th", "q": 0.7, "rate": 0.3}],
           "L": "0.5*l^2*qd(th)^2 + g*l*cos(q(th))"}})J",
      "pendulum.json");
  Eigen::MatrixXd A;
  std::string message;
  ASSERT_EQ(linearize_lagrangian(sc.system, sc.initial, A, message), LagrangianStatus::Ok);
  Eigen::Matrix2d ref;
  ref << 0, 1, -9.81 / 0.5 * std::cos(0.7), 0;
  EXPECT_LT((A - ref).cwiseAbs().maxCoeff(), 1e-14) << A;
}

TEST(LagrangianErrors, SceneErrorsAreLocated) {
  // a scene of two coordinates around `rest` (the rest of the "lagrangian" object)
  auto scene = [](const std::string& rest) {
    return R"J({"lagrangian": {"coordinates": [{"name": "x", "q": 0, "rate": 1}, {"name": "y"}], )J" +
           rest + "}}";
  };
  const std::string L = R"J("L": "0.5*(qd(x)^2 + qd(y)^2)")J";
  EXPECT_EQ(load_error(scene(R"J("L": "0.5*(qd(x)^2 - qd(y)^2)")J")),
            "s.json: /lagrangian/L: at t = 0: the Lagrangian is not regular: ∂²L/∂q̇² is not "
            "positive definite");
  EXPECT_EQ(load_error(scene(R"J("L": "0.5*(qd(x)^2 + qd(w)^2)")J")),
            "s.json: /lagrangian/L: column 19: unknown coordinate 'w' in qd(...)");
  EXPECT_EQ(
      load_error(scene(
          L +
          R"J(, "quasi_velocities": [{"name": "a", "expression": "qd(x) + qd(y)"}, {"name": "b", "expression": "2*qd(x) + 2*qd(y)"}])J")),
      "s.json: /lagrangian/quasi_velocities: at t = 0: the quasi-velocities are not "
      "independent on the constraint set ([γ; C] is singular)");
  EXPECT_EQ(
      load_error(scene(L + R"J(, "quasi_velocities": [{"name": "a", "expression": "qd(x)"}])J")),
      "s.json: /lagrangian/quasi_velocities: expected n - m = 2 quasi-velocities (one per "
      "degree of freedom: 2 coordinates, 0 constraint rows), got 1");
  EXPECT_EQ(load_error(scene(
                L + R"J(, "constraints": [{"level": "velocity", "equation": "qd(y) - qd(x)"}])J")),
            "s.json: /lagrangian/constraints/0: not satisfied at t = 0 by the initial rates: "
            "residual -1");
  EXPECT_EQ(
      load_error(scene(L + R"J(, "constraints": [{"level": "velocity", "equation": "qd(y)^2"}])J")),
      "s.json: /lagrangian/constraints/0/equation: at t = 0: ∂φ/∂q̇ = 0 on the constraint set; "
      "a constraint φ(q, q̇, t) = 0 nonlinear in the rates must have a nonzero gradient in the "
      "rates there (write it so that it is regular, e.g. qd(x)^2 + qd(y)^2 - v^2, not its "
      "square)");
  EXPECT_EQ(load_error(scene(
                L + R"J(, "constraints": [{"level": "position", "equation": "q(x) - qd(y)"}])J")),
            "s.json: /lagrangian/constraints/0/equation: a position-level constraint g(q, t) = 0 "
            "may not read rates qd(...); write it at level velocity");
  EXPECT_EQ(load_error(scene(R"J("L": "0.5*qd(x)^2/q(x) + qd(y)^2")J")),
            "s.json: /lagrangian/L: at t = 0: column 12: not finite (or not differentiable)");
  // two rows saying the same thing leave the default quasi-velocities undefined
  EXPECT_EQ(
      load_error(
          R"J({"lagrangian": {"coordinates": [{"name": "x"}, {"name": "y"}, {"name": "z"}], "L": "0.5*(qd(x)^2 + qd(y)^2 + qd(z)^2)", "constraints": [{"level": "velocity", "equation": "qd(y) - qd(x)"}, {"level": "velocity", "equation": "2*qd(y) - 2*qd(x)"}]}})J"),
      "s.json: /lagrangian/constraints: at t = 0: the constraint rows are not independent "
      "(rank 1 of 2 rows)");
}

// The scene loader of bodies says where a Lagrangian system goes (sweep, inverse, report,
// Python's load_model).
TEST(LagrangianErrors, TheBodiesLoaderPointsToTheLagrangianOne) {
  EXPECT_EQ(testing::load_error(example("charged_particle.json")),
            example("charged_particle.json") +
                ": /lagrangian: a Lagrangian system is loaded by load_lagrangian_scene() (the "
                "program's check, eval, simulate and linearize; docs/lagrangian.md), not as a "
                "scene of bodies");
}

// Regularity lost during a run: L = ½ (1 − t) ẋ² has M = 1 − t; exit 3 at t = 1 and the
// rows before it written.
TEST(LagrangianErrors, RegularityLostDuringARunExits3) {
  const std::string scene = write_temp(
      "lag_lost.json",
      R"J({"lagrangian": {"coordinates": [{"name": "x", "rate": 1}], "L": "0.5*(1 - t)*qd(x)^2"}, "integrator": {"method": "rk4", "dt": 0.01, "duration": 2}})J");
  const std::string out = ::testing::TempDir() + "lag_lost.csv";
  const auto r = run_cli("simulate " + scene + " --quiet --out " + out);
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("at t = 1: the Lagrangian is not regular"), std::string::npos) << r.err;
  const std::string csv = testing::read_file(out);
  EXPECT_EQ(csv.rfind("t,q.x,qd.x,nu.x,energy,", 0), 0u);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 101);  // header, t = 0 .. 0.99
}

TEST(LagrangianCli, EvalPrintsTheEquationsInNu) {
  const auto r = run_cli("eval --json " + example("lewis_particle.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["dof"], 2);
  // (2.4) at t = 0: m ν̇¹ = F_y = c sin 0 − d ẏ
  EXPECT_NEAR(j["nudot"][0].get<double>(), -0.1 * -0.3 / 1.3, 1e-14);
  EXPECT_NEAR(j["hessian"][1][1].get<double>(), 1.3 / (1 + 0.49), 1e-14);
  EXPECT_LT(j["gauss_difference"].get<double>(), 1e-13);
  EXPECT_TRUE(j["constraints"].contains("lewis"));
}

}  // namespace
}  // namespace appell
