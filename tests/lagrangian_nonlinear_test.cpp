// Lagrangian systems with constraints nonlinear in the rates, φ(q, q̇, t) = 0 (docs/lagrangian.md
// "Constraints nonlinear in the rates"): the isokinetic particle in a uniform field against its
// closed form (the heading obeys v0 θ̇ = −g cos θ), Appell's particle against [UK98 eq. (32)] and
// against the particle scene of the rigid-body path, the two forms against each other on random
// states, Newton's rates on the constraint set, the exact linear model against its closed form
// and against differences (lagrangian_nonlinear_errors_test.cpp: the errors a user meets).
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
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
using testing::run_cli;

std::string sci(double v) {
  std::ostringstream os;
  os << std::scientific << std::setprecision(2) << v;
  return os.str();
}

constexpr double kG = 9.81, kV0 = 5.0, kMass = 1.5;

// The isokinetic particle's closed form.  With v = v0 (cos θ, sin θ) and the force m (0, −g),
// Gauss's principle keeps the component of the field normal to v: v0 θ̇ = −g cos θ, so
// u = gd⁻¹(θ) = asinh(tan θ) falls at the rate g/v0, and
//   x = x0 − (v0²/g)(θ − θ0),   y = y0 − (v0²/g) ln(cosh u / cosh u0)
// (ẋ = v0 sech u = v0 cos θ, ẏ = v0 tanh u = v0 sin θ: a grim reaper curve).
Eigen::Vector2d grim_reaper(double t, double theta0) {
  const double u0 = std::asinh(std::tan(theta0)), u = u0 - kG * t / kV0;
  const double theta = std::atan(std::sinh(u)), r = kV0 * kV0 / kG;
  return {-r * (theta - theta0), -r * std::log(std::cosh(u) / std::cosh(u0))};
}

TEST(LagrangianNonlinear, IsokineticParticleFollowsTheGrimReaper) {
  const LagrangianScene sc = load_lagrangian_scene(example("isokinetic_particle.json"));
  ASSERT_TRUE(sc.system.constraints[0].nonlinear);
  const double theta0 = std::atan2(4.0, 3.0);
  int samples = 0;
  double worst = 0.0, speed = 0.0;
  const LagrangianRunResult r =
      integrate_lagrangian(sc.system, sc.initial, sc.run, [&](const LagrangianSample& x) {
        ++samples;
        const Eigen::Vector2d p = grim_reaper(x.t, theta0);
        worst = std::max(worst, (x.q - p).cwiseAbs().maxCoeff());
        speed = std::max(speed, std::abs(x.qd.norm() - kV0));
        EXPECT_EQ(x.nu(0), x.qd(1));
        EXPECT_GT(x.qd(0), 0.0);  // the branch ẋ > 0 followed throughout
      });
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(samples, 201);
  EXPECT_LT(worst, 1e-9);   // rk4 at 1 ms over 2 s, the heading turned by 2.4 rad
  EXPECT_LT(speed, 1e-13);  // the rates are solved on the constraint set at every step
  RecordProperty("worst_position_error", sci(worst));
  // dopri5 through the program: the final state against the closed form
  const std::string out = ::testing::TempDir() + "isokinetic_dopri5.csv";
  const auto c = run_cli("simulate " + example("isokinetic_particle.json") +
                         " --integrator dopri5 --quiet --out " + out);
  ASSERT_EQ(c.status, 0) << c.err;
  const auto rows = csv_rows(out);
  ASSERT_EQ(rows.size(), 201u);
  const Eigen::Vector2d p = grim_reaper(rows.back()[0], theta0);
  EXPECT_NEAR(rows.back()[1], p(0), 1e-7);
  EXPECT_NEAR(rows.back()[2], p(1), 1e-7);
  EXPECT_LT(rows.back()[8], 1e-12);  // violation_velocity
}

// The isokinetic particle in ν = ẏ: q̇ = (√(v0² − ν²), ν) and ν̇ = ÿ = −g cos² θ = −g (1 − ν²/v0²),
// so  A = ∂(ẋ, ẏ, ν̇)/∂(x, y, ν) = [0 0 −ν/ẋ; 0 0 1; 0 0 2 g ν / v0²].  And eval's report: the
// Gibbs function's Hessian m (1 + ν²/ẋ²), the multiplier m ẍ / (2 ẋ).
TEST(LagrangianNonlinear, IsokineticLinearModelAndEvalAreTheClosedForms) {
  const LagrangianScene sc = load_lagrangian_scene(example("isokinetic_particle.json"));
  Eigen::MatrixXd A;
  std::string message;
  ASSERT_EQ(linearize_lagrangian(sc.system, sc.initial, A, message), LagrangianStatus::Ok)
      << message;
  Eigen::Matrix3d ref;
  ref << 0, 0, -4.0 / 3.0, 0, 0, 1, 0, 0, 2 * kG * 4.0 / 25.0;
  EXPECT_LT((A - ref).cwiseAbs().maxCoeff(), 1e-13) << A;
  const auto r = run_cli("eval --json " + example("isokinetic_particle.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const double nudot = -kG * (1.0 - 16.0 / 25.0);
  // a = g − (g·v / v²) v
  const double ax = kG * 4.0 / 25.0 * 3.0;
  EXPECT_NEAR(j["nudot"][0].get<double>(), nudot, 1e-13);
  EXPECT_NEAR(j["qdd"]["x"].get<double>(), ax, 1e-13);
  EXPECT_NEAR(j["qdd"]["y"].get<double>(), nudot, 1e-13);
  EXPECT_NEAR(j["hessian"][0][0].get<double>(), kMass * (1.0 + 16.0 / 9.0), 1e-13);
  EXPECT_NEAR(j["constraints"]["speed"]["multipliers"][0].get<double>(), kMass * ax / 6.0, 1e-13);
  EXPECT_LT(j["gauss_difference"].get<double>(), 1e-13);
}

// Appell's particle [UK98 eqs. (28)–(32)]: M = m I, A = 2 (ẋ, ẏ, −ż), b = 2 α ḣ, and
//   q̈ = a + Aᵀ (b − A a) / (A Aᵀ),  a = (0, 0, −g)                                (32)
// (UK98 write A/2; the factor cancels).  h = x y cos(w t) + k z sin 3t + c t.
struct Appell {
  double alpha = 1.0, w = 1.3, k = 0.5, c = 0.25;
  double h(const Eigen::Vector3d& q, double t) const {
    return q(0) * q(1) * std::cos(w * t) + k * q(2) * std::sin(3 * t) + c * t;
  }
  Eigen::Vector3d eq32(const Eigen::Vector3d& q, const Eigen::Vector3d& v, double t) const {
    const double hdot = q(1) * std::cos(w * t) * v(0) + q(0) * std::cos(w * t) * v(1) +
                        k * std::sin(3 * t) * v(2) - w * q(0) * q(1) * std::sin(w * t) +
                        3 * k * q(2) * std::cos(3 * t) + c;
    const Eigen::Vector3d A(2 * v(0), 2 * v(1), -2 * v(2)), a(0, 0, -kG);
    return a + A * (2 * alpha * hdot - A.dot(a)) / A.squaredNorm();
  }
};

// a random state of Appell's particle on its constraint set: q, t, ẋ, ẏ drawn (|ẏ| ≥ 1, where
// ν = (ẋ, ż) are independent), ż solved (either sign)
LagrangianState appell_state(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Appell ap;
  LagrangianState x;
  x.t = 2 * u(rng);
  x.q = Eigen::Vector3d(u(rng), u(rng), u(rng));
  const double vx = 3.5 + 0.5 * u(rng), vy = (u(rng) < 0 ? -1 : 1) * (1.5 + 0.5 * u(rng));
  const double zz = vx * vx + vy * vy - 2 * ap.alpha * ap.h(x.q, x.t);
  x.qd = Eigen::Vector3d(vx, vy, (u(rng) < 0 ? -1 : 1) * std::sqrt(zz));
  return x;
}

TEST(LagrangianNonlinear, AppellParticleIsUK98Eq32) {
  const LagrangianScene sc = load_lagrangian_scene(example("appell_particle.json"));
  LagrangianData d(sc.system);
  std::mt19937 rng(28);
  const Appell ap;
  for (int trial = 0; trial < 100; ++trial) {
    const LagrangianState x = appell_state(rng);
    ASSERT_EQ(evaluate_lagrangian(sc.system, x, d), LagrangianStatus::Ok) << d.message;
    EXPECT_LT(std::abs(d.r(0)), 1e-12);
    const Eigen::Vector3d ref = ap.eq32(x.q, x.qd, x.t);
    EXPECT_LT((d.qdd - ref).cwiseAbs().maxCoeff(), 1e-12 * (1 + ref.norm())) << trial;
    EXPECT_LT((d.qdd_gauss - ref).cwiseAbs().maxCoeff(), 1e-12 * (1 + ref.norm())) << trial;
    // ν = (ẋ, ż): ν̇ = (ẍ, z̈)
    EXPECT_NEAR(d.nudot(0), ref(0), 1e-12 * (1 + ref.norm()));
    EXPECT_NEAR(d.nudot(1), ref(2), 1e-12 * (1 + ref.norm()));
  }
}

// ... and equals the particle scene scenes/examples/appell_constraint.json (a particle with an
// expression constraint on the rigid-body path) at t = 0 and along a second of rk4 at 1 ms.
TEST(LagrangianNonlinear, AppellParticleEqualsTheParticleScene) {
  const LagrangianScene sc = load_lagrangian_scene(example("appell_particle.json"));
  LagrangianData d(sc.system);
  ASSERT_EQ(evaluate_lagrangian(sc.system, sc.initial, d), LagrangianStatus::Ok);
  const std::string rigid =
      std::string(APPELL_SOURCE_DIR) + "/scenes/examples/appell_constraint.json";
  const Model m = load_model(rigid);
  Data data(m);
  ASSERT_EQ(forward(m, data, m.initial_state()), SolveStatus::Ok);
  const SpatialMotion a = body_acceleration(m, data, 0);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(d.qdd(i), a.linear(i), 1e-12);
  const std::string dir = ::testing::TempDir();
  const std::string fa = dir + "lag_appell.csv", fb = dir + "rigid_appell.csv";
  auto r1 = run_cli("simulate " + example("appell_particle.json") + " --quiet --out " + fa);
  ASSERT_EQ(r1.status, 0) << r1.err;
  auto r2 = run_cli("simulate " + rigid +
                    " --integrator rk4 --dt 0.001 --duration 1 --quiet --out " + fb);
  ASSERT_EQ(r2.status, 0) << r2.err;
  const auto la = csv_rows(fa), rb = csv_rows(fb);
  ASSERT_EQ(la.size(), 101u);
  ASSERT_EQ(rb.size(), 1001u);
  double worst = 0.0;
  for (size_t i = 0; i < la.size(); ++i) {
    ASSERT_NEAR(la[i][0], rb[10 * i][0], 1e-12);
    for (int k = 1; k <= 3; ++k) worst = std::max(worst, std::abs(la[i][k] - rb[10 * i][k]));
  }
  EXPECT_LT(worst, 1e-9);
  RecordProperty("worst_position_difference", sci(worst));
}

// Lewis's ż = y ẋ together with a constant speed |q̇| = v0 and a spring: an affine row and a
// nonlinear one, in the quasi-velocity ν = ẏ + x ẋ.
constexpr char kMixed[] = R"J({"lagrangian": {
  "parameters": {"m": 1.3, "g": 9.81, "k": 2.0, "v0": 1.5},
  "coordinates": [{"name": "x", "q": 0.2, "rate": 1.0}, {"name": "y", "q": 0.5, "rate": 1.0},
                  {"name": "z", "q": -0.3, "rate": 0.5}],
  "L": "0.5*m*(qd(x)^2 + qd(y)^2 + qd(z)^2) - m*g*q(z) - 0.5*k*q(x)^2",
  "constraints": [{"name": "lewis", "level": "velocity", "equation": "qd(z) - q(y)*qd(x)"},
                  {"name": "speed", "level": "velocity", "equation": "qd(x)^2 + qd(y)^2 + qd(z)^2 - v0^2"}],
  "quasi_velocities": [{"name": "nu", "expression": "qd(y) + q(x)*qd(x)"}]}})J";

// a random state of kMixed: q drawn, (ẋ, ẏ) drawn, ż = y ẋ, scaled to |q̇| = v0
LagrangianState mixed_state(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  LagrangianState x;
  x.t = u(rng);
  x.q = Eigen::Vector3d(u(rng), u(rng), u(rng));
  x.qd = Eigen::Vector3d(1.5 + 0.5 * u(rng), u(rng), 0.0);
  x.qd(2) = x.q(1) * x.qd(0);
  x.qd *= 1.5 / x.qd.norm();
  return x;
}

// The two forms on random states of every system with a nonlinear row: the same q̈ and ν̇, the
// constraint forces along the rows' ∂φ/∂q̇ and doing no work on the admissible velocities.
TEST(LagrangianNonlinear, GibbsAppellEqualsGaussOnRandomStates) {
  const LagrangianScene iso = load_lagrangian_scene(example("isokinetic_particle.json"));
  const LagrangianScene app = load_lagrangian_scene(example("appell_particle.json"));
  const LagrangianScene mix = load_lagrangian_scene_from_string(kMixed, "mixed.json");
  ASSERT_FALSE(mix.system.constraints[0].nonlinear);
  ASSERT_TRUE(mix.system.constraints[1].nonlinear);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst = 0.0;
  for (const LagrangianScene* sc : {&iso, &app, &mix}) {
    LagrangianData d(sc->system);
    for (int trial = 0; trial < 100; ++trial) {
      LagrangianState x;
      if (sc == &iso) {
        const double th = 1.5 * u(rng);
        x.t = u(rng);
        x.q = Eigen::Vector2d(u(rng), u(rng));
        x.qd = kV0 * Eigen::Vector2d(std::cos(th), std::sin(th));
      } else {
        x = sc == &app ? appell_state(rng) : mixed_state(rng);
      }
      ASSERT_EQ(evaluate_lagrangian(sc->system, x, d), LagrangianStatus::Ok) << d.message;
      const double scale = 1.0 + d.qdd.cwiseAbs().maxCoeff();
      const double diff = std::max((d.qdd - d.qdd_gauss).cwiseAbs().maxCoeff(),
                                   (d.nudot - d.nudot_gauss).cwiseAbs().maxCoeff());
      worst = std::max(worst, diff / scale);
      EXPECT_LT(diff, 1e-12 * scale);
      EXPECT_LT((d.Y.transpose() * d.Qc).cwiseAbs().maxCoeff(), 1e-12 * scale);
      // φ̇ = 0 along the motion: ∂φ/∂q̇ q̈ + ∂φ/∂q q̇ + ∂φ/∂t
      EXPECT_LT((d.A * d.qdd + d.alpha).cwiseAbs().maxCoeff(), 1e-12 * scale);
      if (sc == &iso) {  // ν̇ = −g (1 − ν²/v0²)
        EXPECT_NEAR(d.nudot(0), -kG * (1.0 - x.qd(1) * x.qd(1) / (kV0 * kV0)), 1e-12);
      }
    }
  }
  RecordProperty("worst_relative_difference", sci(worst));
}

// rates_of: from rates perturbed off the constraint set, Newton's method returns the state's
// own rates (the branch nearest the guess), the rows satisfied to round-off.
TEST(LagrangianNonlinear, RatesOfSolvesTheConstraintSetByNewton) {
  const LagrangianScene app = load_lagrangian_scene(example("appell_particle.json"));
  const LagrangianScene mix = load_lagrangian_scene_from_string(kMixed, "mixed.json");
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int most = 0;
  for (const LagrangianScene* sc : {&app, &mix}) {
    LagrangianData d(sc->system);
    for (int trial = 0; trial < 50; ++trial) {
      const LagrangianState x = sc == &app ? appell_state(rng) : mixed_state(rng);
      ASSERT_EQ(quasi_velocity_map(sc->system, x, d), LagrangianStatus::Ok);
      const Eigen::VectorXd nu = d.nu;
      Eigen::VectorXd qd = x.qd + 0.05 * Eigen::Vector3d(u(rng), u(rng), u(rng));
      ASSERT_EQ(rates_of(sc->system, x.t, x.q, nu, d, qd), LagrangianStatus::Ok) << d.message;
      EXPECT_LT((qd - x.qd).cwiseAbs().maxCoeff(), 1e-13 * (1 + x.qd.norm())) << trial;
      most = std::max(most, d.newton_iterations);
    }
  }
  EXPECT_LE(most, 6);  // quadratic convergence from 5 % off
  RecordProperty("most_newton_iterations", most);
  // along a run the guess is a step away: at ν one rk4 step on, from the previous rates
  {
    const LagrangianScene iso = load_lagrangian_scene(example("isokinetic_particle.json"));
    LagrangianData d(iso.system);
    Eigen::VectorXd qd = iso.initial.qd;
    const double nu1 = 4.0 - 1e-3 * kG * (1.0 - 16.0 / 25.0);  // ν + h ν̇
    ASSERT_EQ(rates_of(iso.system, 1e-3, iso.initial.q, Eigen::VectorXd::Constant(1, nu1), d, qd),
              LagrangianStatus::Ok);
    EXPECT_NEAR(qd(0), std::sqrt(25.0 - nu1 * nu1), 1e-14);
    EXPECT_LE(d.newton_iterations, 4);  // three steps, the fourth at round-off
    RecordProperty("newton_iterations_one_step_on", d.newton_iterations);
  }
  // ν outside what the constraint set allows: |ẏ| > v0 has no rates
  const LagrangianScene iso = load_lagrangian_scene(example("isokinetic_particle.json"));
  LagrangianData d(iso.system);
  Eigen::VectorXd qd = iso.initial.qd;
  EXPECT_EQ(rates_of(iso.system, 0.0, iso.initial.q, Eigen::VectorXd::Constant(1, 5.5), d, qd),
            LagrangianStatus::OffConstraintSet);
  EXPECT_EQ(d.message.rfind("no rates on the constraint set for the quasi-velocities (5.5)", 0), 0u)
      << d.message;
  EXPECT_EQ(qd, iso.initial.qd);  // left as it was
}

// linearize's exact columns against central differences of exact evaluations (whose rates
// Newton solves at every perturbed state), extrapolated once: steps of 1e-3 and 5e-4, error
// O(h⁴) (the ν steps of 0.1 of richardson_jacobian are too coarse on a curved constraint set).
TEST(LagrangianNonlinear, LinearizeEqualsDifferences) {
  const LagrangianScene app = load_lagrangian_scene(example("appell_particle.json"));
  const LagrangianScene mix = load_lagrangian_scene_from_string(kMixed, "mixed.json");
  for (const LagrangianScene* sc : {&app, &mix}) {
    const LagrangianSystem& s = sc->system;
    Eigen::MatrixXd A, D;
    std::string message;
    ASSERT_EQ(linearize_lagrangian(s, sc->initial, A, message), LagrangianStatus::Ok) << message;
    LagrangianData d(s);
    ASSERT_EQ(quasi_velocity_map(s, sc->initial, d), LagrangianStatus::Ok);
    Eigen::VectorXd X(s.n() + s.dof());
    X << sc->initial.q, d.nu;
    LagrangianState x = sc->initial;
    auto F = [&](const Eigen::VectorXd& Z, Eigen::VectorXd& out) {
      x.q = Z.head(s.n());
      x.qd = sc->initial.qd;  // Newton from the state's rates
      LagrangianStatus st = rates_of(s, x.t, x.q, Z.tail(s.dof()), d, x.qd);
      if (st == LagrangianStatus::Ok) st = lagrangian_terms(s, x, d);
      if (st == LagrangianStatus::Ok) st = quasi_velocity_map(s, x, d);
      if (st == LagrangianStatus::Ok) st = gibbs_appell_nu(s, d);
      out.resize(X.size());
      out << x.qd, d.nudot;
      return st == LagrangianStatus::Ok;
    };
    D.setZero(X.size(), X.size());
    for (Eigen::Index j = 0; j < X.size(); ++j) {
      Eigen::VectorXd c[2];
      for (int level = 0; level < 2; ++level) {
        const double h = 1e-3 / (1 << level);
        Eigen::VectorXd fp, fm, Zp = X, Zm = X;
        Zp(j) += h;
        Zm(j) -= h;
        ASSERT_TRUE(F(Zp, fp) && F(Zm, fm));
        c[level] = (fp - fm) / (2 * h);
      }
      D.col(j) = (4 * c[1] - c[0]) / 3;
    }
    EXPECT_GT(A.cwiseAbs().maxCoeff(), 0.5);
    EXPECT_LT((A - D).cwiseAbs().maxCoeff(), 1e-8 * (1.0 + D.cwiseAbs().maxCoeff()))
        << "exact\n"
        << A << "\ndifferences\n"
        << D;
  }
}

}  // namespace
}  // namespace appell
