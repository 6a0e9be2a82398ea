// Published benchmark mechanisms with redundant and singular constraint sets
// (scenes/benchmarks/), in every formulation, against independent references: the
// conservation of energy, the mobility the geometry gives, and the exact one-coordinate
// reduction of a chain of parallelograms.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "engine/assembly/stages.hpp"
#include "printers.hpp"

namespace appell {

namespace {

const std::string kDir = std::string(APPELL_SOURCE_DIR) + "/scenes/benchmarks/";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const Formulation kAll[] = {Formulation::Pinv, Formulation::GibbsAppell, Formulation::Sparse,
                            Formulation::Recursive};

struct Case {
  Formulation formulation;
  Stabilization::Type stabilization;
};

// a test name from a formulation's name (gtest names take no '-')
std::string identifier(Formulation f) {
  std::string s = formulation_name(f);
  for (char& c : s)
    if (c == '-') c = '_';
  return s;
}

std::string formulation_param_name(const ::testing::TestParamInfo<Formulation>& info) {
  return identifier(info.param);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return identifier(info.param.formulation) +
         (info.param.stabilization == Stabilization::Type::None ? "_none" : "_projection");
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << formulation_name(c.formulation) << ", "
      << (c.stabilization == Stabilization::Type::None ? "no stabilization" : "projection");
}

// ---- A04 Bricard's mechanism ----------------------------------------------------------
// Six revolute joints in one loop give 30 rows on 5 bodies (30 quasi-velocities): the
// count says rigid, the geometry (Bricard's trihedral linkage) says one degree of freedom,
// so exactly one row is redundant all along the motion.  10 s in every formulation, with
// and without projection: rank 29 (one degree of freedom) kept to the end, the motion not
// frozen, and the energy conserved to 1e-6 (issue "Redundant and singular constraint
// sets", item 5).
class Bricard : public ::testing::TestWithParam<Case> {};

TEST_P(Bricard, KeepsOneDegreeOfFreedomAndItsEnergyForTenSeconds) {
  const Scene scene = load_scene(kDir + "bricard.json");
  const Model m = compile(scene);
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.stabilization.type = GetParam().stabilization;
  o.formulation = GetParam().formulation;
  ASSERT_DOUBLE_EQ(o.integrator.duration, 10.0);
  double E0 = NAN, drift = 0.0, wmax_late = 0.0, T0 = 0.0;
  int rank_min = 1000, rank_max = 0;
  const SimulationResult r = simulate(m, o, [&](const Sample& s) {
    if (s.index == 0) {
      E0 = s.energy;
      T0 = s.kinetic_energy;
    }
    drift = std::max(drift, std::abs(s.energy - E0));
    rank_min = std::min(rank_min, s.data.diagnostics.rank);
    rank_max = std::max(rank_max, s.data.diagnostics.rank);
    if (s.t > 8.0) wmax_late = std::max(wmax_late, s.data.body[0].w.norm());
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(rank_min, 29);
  EXPECT_EQ(rank_max, 29);
  EXPECT_LT(drift / std::abs(E0), 1e-6);
  // still moving in the last two seconds: the rod swings at rad/s, not frozen
  EXPECT_GT(wmax_late, 0.1);
  EXPECT_GT(T0, 0.0);
  std::cout << "[ figures  ] Bricard, " << case_name({GetParam(), 0})
            << ": energy drift (relative) " << drift / std::abs(E0) << ", steps " << r.steps
            << "\n";
}

INSTANTIATE_TEST_SUITE_P(
    EveryFormulation, Bricard,
    ::testing::Values(Case{Formulation::Pinv, Stabilization::Type::None},
                      Case{Formulation::Pinv, Stabilization::Type::Projection},
                      Case{Formulation::GibbsAppell, Stabilization::Type::None},
                      Case{Formulation::GibbsAppell, Stabilization::Type::Projection},
                      Case{Formulation::Sparse, Stabilization::Type::None},
                      Case{Formulation::Sparse, Stabilization::Type::Projection},
                      Case{Formulation::Recursive, Stabilization::Type::None},
                      Case{Formulation::Recursive, Stabilization::Type::Projection}),
    case_name);

// One axis tilted by 3e-8 rad: rigid on paper, mobile to every practical purpose.  Every
// formulation judges it alike: rank 29, one degree of freedom.
TEST(BricardTilted, EveryFormulationFindsTheSameRank) {
  nlohmann::json scene = nlohmann::json::parse(read(kDir + "bricard.json"));
  for (auto& c : scene["constraints"])
    if (c["name"] == "D") c["axis"] = {std::sin(3e-8), std::cos(3e-8), 0.0};
  const Model m = load_model_from_string(scene.dump(), "bricard_tilted.json");
  for (Formulation f : kAll) {
    Data d(m);
    ASSERT_EQ(forward(m, d, f), SolveStatus::Ok)
        << formulation_name(f) << ": " << d.diagnostics.message;
    EXPECT_EQ(d.diagnostics.rank, 29) << formulation_name(f);
  }
}

// ---- A02 N-four-bar mechanism ---------------------------------------------------------
// N + 1 cranks of length L hinged to the ground L apart, N couplers joining their tips:
// every crank turns by the same θ and the couplers translate, so the motion reduces
// exactly to one coordinate.  With rods of mass m (box L × w × w about their centres):
//   T = ½ I θ̇²,  I = (N+1)(m(L² + w²)/12 + m L²/4) + N m L²,
//   V = g sin θ ((N+1) m L/2 + N m L)      (gravity −y, θ from the x axis),
// so θ̈ = −K cos θ / I with K = g ((N+1) m L/2 + N m L).  At θ = kπ the mechanism is flat:
// the loops' rows lose rank and the branch of anti-parallelograms crosses the motion.
class FourBarChain : public ::testing::TestWithParam<Formulation> {};

TEST_P(FourBarChain, PassesFourFlatPositionsOnTheOneCoordinateReduction) {
  const Scene scene = load_scene(kDir + "four_bar_chain.json");
  const Model m = compile(scene);
  const int N = (m.nbody() - 1) / 2;
  const double L = 1.0, w = 0.05, mass = 1.0, g = 9.81;
  ASSERT_NEAR(m.gravity().y(), -g, 1e-15);
  const double I = (N + 1) * (mass * (L * L + w * w) / 12 + mass * L * L / 4) + N * mass * L * L;
  const double K = g * ((N + 1) * mass * L / 2 + N * mass * L);
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.formulation = GetParam();
  o.integrator.duration = 1.7;
  ASSERT_EQ(o.stabilization.type, Stabilization::Type::Projection);

  // the reduction, integrated independently (θ, θ̇) from the scene's crank 0
  using State = std::array<double, 2>;
  State x{M_PI / 2, m.bodies()[0].angular_velocity.z()};
  double tr = 0.0;
  auto rhs = [&](const State& s, State& ds, double) {
    ds[0] = s[1];
    ds[1] = -K * std::cos(s[0]) / I;
  };
  auto stepper = boost::numeric::odeint::make_dense_output(
      1e-13, 1e-13, boost::numeric::odeint::runge_kutta_dopri5<State>());
  stepper.initialize(x, 0.0, 1e-4);

  double worst = 0.0, E0 = NAN, drift = 0.0, theta_end = 0.0;
  const SimulationResult r = simulate(m, o, [&](const Sample& s) {
    if (s.index == 0) E0 = s.energy;
    drift = std::max(drift, std::abs(s.energy - E0));
    while (stepper.current_time() < s.t) stepper.do_step(rhs);
    State ref;
    stepper.calc_state(s.t, ref);
    tr = s.t;
    const Mat3& Q = s.data.body[0].Q;
    const double theta = std::atan2(Q(1, 0), Q(0, 0));
    const double e = std::remainder(theta - ref[0], 2 * M_PI);
    worst = std::max(worst, std::abs(e));
    theta_end = ref[0];
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_DOUBLE_EQ(tr, 1.7);
  const int flats =
      static_cast<int>(std::floor(theta_end / M_PI)) - 0;  // θ from π/2 through π, 2π, …
  EXPECT_GE(flats, 4);
  EXPECT_LT(worst, 1e-6);
  EXPECT_LT(drift / std::abs(E0), 1e-8);
  std::cout << "[ figures  ] four-bar chain (N = " << N << "), " << formulation_name(GetParam())
            << ": " << flats << " flat positions, max |θ − θ_ref| " << worst
            << ", energy drift (relative) " << drift / std::abs(E0) << ", steps " << r.steps
            << "\n";
}

// Without projection the drift along the vanishing direction grows like σ⁻² on the way
// into a flat position (rank_policy.hpp, item 4): the run stops, and says what helps.
// (Which way a run goes at the bifurcation is decided by round-off: the maximal
// coordinates of pinv stop here; the recursion's joint coordinates may instead carry the
// motion onto the anti-parallelogram branch, a motion the rows allow.)
TEST(FourBarChainWithoutProjection, StopsAndNamesTheRemedy) {
  const Scene scene = load_scene(kDir + "four_bar_chain.json");
  const Model m = compile(scene);
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.stabilization.type = Stabilization::Type::None;
  o.formulation = Formulation::Pinv;
  o.integrator.duration = 1.7;
  const SimulationResult r = simulate(m, o, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status == SimulationStatus::Inconsistent ||
              r.status == SimulationStatus::StepUnderflow)
      << r.message;
  EXPECT_NE(r.message.find("\"stabilization\": {\"type\": \"projection\"}"), std::string::npos)
      << r.message;
}

INSTANTIATE_TEST_SUITE_P(EveryFormulation, FourBarChain, ::testing::ValuesIn(kAll),
                         formulation_param_name);

// ---- A01 simple pendulum --------------------------------------------------------------
// Released from the horizontal (θ₀ = π/2), its period is T = 4 √(L/g) K(sin(θ₀/2)); after
// exactly two periods the bob is back where it started, at rest.
class Pendulum : public ::testing::TestWithParam<Formulation> {};

TEST_P(Pendulum, ReturnsAfterTheEllipticPeriod) {
  const Scene scene = load_scene(kDir + "pendulum.json");
  const Model m = compile(scene);
  const double L = 1.0, g = 9.81;
  const double T = 4.0 * std::sqrt(L / g) * std::comp_ellint_1(std::sin(M_PI / 4));
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.formulation = GetParam();
  o.integrator.duration = 2 * T;
  o.integrator.dt = T / 50;
  o.integrator.rtol = 1e-12;
  o.integrator.atol = 1e-14;
  Vec3 x, v;
  const SimulationResult r = simulate(m, o, [&](const Sample& s) {
    x = s.data.body[0].x;
    v = s.data.body[0].v;
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT((x - Vec3(1, 0, 0)).norm(), 1e-8) << formulation_name(GetParam());
  EXPECT_LT(v.norm(), 1e-7) << formulation_name(GetParam());
  std::cout << "[ figures  ] pendulum, " << formulation_name(GetParam()) << ": |x(2T) - x(0)| "
            << (x - Vec3(1, 0, 0)).norm() << " m, |v(2T)| " << v.norm() << " m/s\n";
}

INSTANTIATE_TEST_SUITE_P(EveryFormulation, Pendulum, ::testing::ValuesIn(kAll),
                         formulation_param_name);

// ---- A05 flyball governor -------------------------------------------------------------
// A free spindle, two arms hinged on its axis, two links from the arms (at b from the
// hinge) to a sleeve that slides on the spindle: two closed loops, 40 rows of rank 34.  In
// a steady rotation Ω about the vertical the arms stand at θ from it where the effective
// potential V(θ) − ½ Ω² I_zz(θ) is stationary (angular momentum fixed, spindle free):
//   V' = g sin θ (2 m_a ℓ_c + 3 m_l b + 2 M_s b),
//   I_zz' = 4 sin θ cos θ ((I⊥_a − I∥_a + m_a ℓ_c²) + (I⊥_l − I∥_l + m_l b²/4)),
//   Ω² = 2 V' / I_zz'
// (arms: boxes of m_a, length ℓ, centre at ℓ_c = ℓ/2; links: boxes of m_l, length b; I⊥, I∥
// about their centres).  Released there, it must stay there.
class FlyballGovernor : public ::testing::TestWithParam<Formulation> {};

TEST_P(FlyballGovernor, StaysInItsSteadyRotation) {
  const Scene scene = load_scene(kDir + "flyball_governor.json");
  const Model m = compile(scene);
  const double g = 9.81, b = 0.1, la = 0.3, lc = la / 2, ma = 1.0, wa = 0.03, ml = 0.1, wl = 0.01,
               Ms = 0.5;
  ASSERT_DOUBLE_EQ(m.bodies()[1].mass, ma);
  ASSERT_DOUBLE_EQ(m.bodies()[3].mass, ml);
  ASSERT_DOUBLE_EQ(m.bodies()[5].mass, Ms);
  const Vec3 arm0 = m.initial_body_state(1).Q.col(2);
  const double theta0 = std::atan2(arm0.x(), -arm0.z());
  const double Ipa = ma * (wa * wa + la * la) / 12, Iaa = ma * 2 * wa * wa / 12;
  const double Ipl = ml * (wl * wl + b * b) / 12, Ial = ml * 2 * wl * wl / 12;
  const double Omega = std::sqrt(
      g * (2 * ma * lc + 3 * ml * b + 2 * Ms * b) /
      (2 * std::cos(theta0) * ((Ipa - Iaa + ma * lc * lc) + (Ipl - Ial + ml * b * b / 4))));
  ASSERT_NEAR(m.initial_body_state(0).w.z(), Omega, 1e-12 * Omega);  // the scene's spin
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.formulation = GetParam();
  o.integrator.duration = 1.0;
  double dtheta = 0.0, domega = 0.0;
  int rank = -1;
  const SimulationResult r = simulate(m, o, [&](const Sample& s) {
    const Vec3 a = s.data.body[1].Q.col(2);
    dtheta = std::max(dtheta, std::abs(std::atan2(std::hypot(a.x(), a.y()), -a.z()) - theta0));
    domega = std::max(domega, std::abs(s.data.body[0].w.z() - Omega) / Omega);
    rank = s.data.diagnostics.rank;
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(rank, 34);
  EXPECT_LT(dtheta, 1e-8);
  EXPECT_LT(domega, 1e-9);
  std::cout << "[ figures  ] flyball governor, " << formulation_name(GetParam())
            << ": Ω = " << Omega << " rad/s, max |θ − θ₀| " << dtheta << " rad, max |Ω − Ω₀|/Ω₀ "
            << domega << ", steps " << r.steps << "\n";
}

INSTANTIATE_TEST_SUITE_P(EveryFormulation, FlyballGovernor, ::testing::ValuesIn(kAll),
                         formulation_param_name);

// ---- A03 Andrews' squeezing mechanism -------------------------------------------------
// Seven bodies in a plane, three loops closing at one point, a drive torque and a spring
// (Hairer & Wanner, Solving ODEs II, §VII.7).  The Test Set for IVP Solvers (Mazzia et al.,
// problem "andrews") gives the seven angles at t = 0.03 s to 16 digits; the angles are read
// back from the bodies' orientations (Θ, Φ, Ω are relative: K2 − K1, K4 − K5, K6 − K7) and
// unwrapped along the samples (β turns 2.5 times).
class AndrewsSqueezer : public ::testing::TestWithParam<Formulation> {};

TEST_P(AndrewsSqueezer, MatchesTheTestSetReferenceAtThirtyMilliseconds) {
  const Scene scene = load_scene(kDir + "andrews_squeezer.json");
  const Model m = compile(scene);
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.formulation = GetParam();
  ASSERT_DOUBLE_EQ(o.integrator.duration, 0.03);
  std::array<double, 7> angle{}, last{};
  bool first = true;
  int rank = -1;
  const SimulationResult r = simulate(m, o, [&](const Sample& s) {
    for (int k = 0; k < 7; ++k) {
      const Mat3& Q = s.data.body[k].Q;
      const double a = std::atan2(Q(1, 0), Q(0, 0));
      angle[k] = first ? a : angle[k] + std::remainder(a - last[k], 2 * M_PI);
      last[k] = a;
    }
    first = false;
    rank = s.data.diagnostics.rank;
  });
  ASSERT_TRUE(r.ok()) << r.message;
  const double q[7] = {angle[0], angle[1] - angle[0], angle[2], angle[3] - angle[4],
                       angle[4], angle[5] - angle[6], angle[6]};
  const double ref[7] = {0.1581077119629904e2, -0.1575637105984298e2, 0.4082224013073101e-1,
                         -0.5347301163226948,  0.5244099658805304,    0.5347301163226948,
                         0.1048080741042263e1};
  double worst = 0.0;
  for (int k = 0; k < 7; ++k) {
    EXPECT_NEAR(q[k], ref[k], 1e-7) << "angle " << k;
    worst = std::max(worst, std::abs(q[k] - ref[k]));
  }
  EXPECT_EQ(rank, 41);  // 50 rows, one degree of freedom
  std::cout << "[ figures  ] Andrews' squeezer, " << formulation_name(GetParam())
            << ": max |angle − reference| at t = 0.03 s: " << worst << " rad, steps " << r.steps
            << "\n";
}

INSTANTIATE_TEST_SUITE_P(EveryFormulation, AndrewsSqueezer, ::testing::ValuesIn(kAll),
                         formulation_param_name);

}  // namespace
}  // namespace appell
