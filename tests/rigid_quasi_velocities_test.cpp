// Scenes of bodies in the quasi-velocities their user chooses (appell/rigid_quasi_velocities.hpp):
// the Gibbs–Appell equations in ν [L96 (5.4)] against Gauss's principle by the generalized
// inverse [UK98 (26)] and against the engine's own recursion in joint rates; ν̇ against the
// derivative of ν along the motion; the benchmark bicycle in (lean rate, steer rate, speed)
// against Meijaard et al.'s published linear model; the command line on them.
#include <gtest/gtest.h>

#include <appell/derivatives.hpp>
#include <appell/forward.hpp>
#include <appell/jacobians.hpp>
#include <appell/rigid_quasi_velocities.hpp>
#include <complex>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "cli_util.hpp"
#include "meijaard_benchmark.hpp"

namespace appell {
namespace {

const std::string kExamples = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/";
const std::string kBicycle = kExamples + "quasi_velocities/bicycle.json";
const std::string kDisk = kExamples + "quasi_velocities/rolling_disk.json";

// A random state near the scene's: q moved along a random tangent, u on the rows from
// random ν (u = Y ν + y)
State random_state(const RigidNuScene& rs, std::mt19937& rng, double spread) {
  const RigidNuSystem& s = rs.system;
  std::uniform_real_distribution<double> U(-1, 1);
  Eigen::VectorXd delta(s.n()), nu(s.dof());
  for (int i = 0; i < s.n(); ++i) delta(i) = spread * U(rng);
  for (int i = 0; i < s.dof(); ++i) nu(i) = 3 * U(rng);
  State x;
  x.t = 0.0;
  x.q = tangent_step(s.model, rs.initial.q, delta);
  RigidNuData d(s);
  EXPECT_EQ(rigid_rates_of(s, x.t, x.q, nu, d, x.u), LagrangianStatus::Ok);
  return x;
}

double scale(const Eigen::VectorXd& v) {
  return 1.0 + v.cwiseAbs().maxCoeff();
}

// The two forms in ν agree, and agree with the recursion (forward dynamics in joint rates,
// the default path); ν̇ is the derivative of ν along the motion (q ⊕ s u, u + s u̇)
void check_scene(const std::string& path, double spread) {
  const RigidNuScene rs = load_rigid_nu_scene(path);
  const RigidNuSystem& s = rs.system;
  RigidNuData d(s), e(s);
  JointForward recursion(s.model);
  std::mt19937 rng(7);
  double worst_forms = 0, worst_recursion = 0, worst_rate = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const State x = random_state(rs, rng, spread);
    ASSERT_EQ(evaluate_rigid_nu(s, x, d), LagrangianStatus::Ok) << d.r.message;
    const Eigen::VectorXd& udot = d.r.qdd;
    worst_forms = std::max(worst_forms, (udot - d.r.qdd_gauss).cwiseAbs().maxCoeff() / scale(udot));
    worst_forms = std::max(worst_forms,
                           (d.r.nudot - d.r.nudot_gauss).cwiseAbs().maxCoeff() / scale(d.r.nudot));
    Eigen::VectorXd ref;
    ASSERT_EQ(recursion(x, Eigen::VectorXd(), ref), SolveStatus::Ok);
    worst_recursion = std::max(worst_recursion, (udot - ref).cwiseAbs().maxCoeff() / scale(ref));
    // d/ds ν at s = 0 by a central difference (error O(h²) ≈ 1e-10)
    const double h = 1e-5;
    Eigen::VectorXd nu_at[2];
    for (int side = 0; side < 2; ++side) {
      const double sh = side ? h : -h;
      State y;
      y.t = x.t + sh;
      y.q = tangent_step(s.model, x.q, sh * x.u);
      y.u = x.u + sh * udot;
      ASSERT_EQ(rigid_nu_terms(s, y, e), LagrangianStatus::Ok) << e.r.message;
      nu_at[side] = e.r.nu;
    }
    const Eigen::VectorXd rate = (nu_at[1] - nu_at[0]) / (2 * h);
    worst_rate = std::max(worst_rate, (rate - d.r.nudot).cwiseAbs().maxCoeff() / scale(rate));
  }
  std::ostringstream os;
  os << std::scientific << worst_forms << " " << worst_recursion << " " << worst_rate;
  ::testing::Test::RecordProperty("worst_forms_recursion_rate", os.str());
  EXPECT_LT(worst_forms, 1e-12) << path;
  EXPECT_LT(worst_recursion, 1e-10) << path;
  EXPECT_LT(worst_rate, 1e-7) << path;
}

TEST(RigidQuasiVelocities, RollingDiskInBodyRatesEqualsTheRecursion) {
  check_scene(kDisk, 0.3);
}

TEST(RigidQuasiVelocities, BicycleInLeanSteerAndSpeedEqualsTheRecursion) {
  check_scene(kBicycle, 0.05);
}

// a planar loop: 5 rows of which 2 are independent; the crank's rate as the one ν
TEST(RigidQuasiVelocities, FourBarWithRedundantRowsEqualsTheRecursion) {
  std::ifstream in(kExamples + "four_bar.json");
  nlohmann::json scene = nlohmann::json::parse(in);
  scene["quasi_velocities"] = {{{"name", "crank"}, {"expression", "qd(A)"}}};
  const std::string path = testing::write_temp("four_bar_nu.json", scene.dump());
  EXPECT_EQ(load_rigid_nu_scene(path).system.m(), 2);
  check_scene(path, 0.2);
}

TEST(RigidQuasiVelocities, TheMassMatrixInNuIsTheKineticEnergy) {
  // ½ νᵀ (Yᵀ M Y) ν is the kinetic energy of u = Y ν on a state whose rows are homogeneous
  // (y = 0): the disk's, whose kinetic energy the engine computes from the bodies' states
  const RigidNuScene rs = load_rigid_nu_scene(kDisk);
  RigidNuData d(rs.system);
  ASSERT_EQ(evaluate_rigid_nu(rs.system, rs.initial, d), LagrangianStatus::Ok);
  EXPECT_LT(d.r.y.norm(), 1e-14);
  set_state(rs.system.model, d.data, rs.initial);
  const double T = kinetic_energy(rs.system.model, d.data);
  EXPECT_NEAR(0.5 * d.r.nu.dot(d.r.H * d.r.nu), T, 1e-12 * T);
}

// simulate: the disk's steady circular motion in (q, ν) keeps its tilt (the angle of its axis
// to the ground, 0.3 rad) and its energy, as the closed form of the steady motion says
TEST(RigidQuasiVelocities, DiskRunInBodyRatesKeepsItsSteadyMotion) {
  const RigidNuScene rs = load_rigid_nu_scene(kDisk);
  LagrangianRun run;
  run.method = "rk4";
  run.dt = 1e-3;
  run.duration = 1.0;
  run.every = 100;
  double worst_tilt = 0, e0 = NAN, worst_energy = 0, worst_rows = 0;
  int samples = 0;
  const LagrangianRunResult res =
      integrate_rigid_nu(rs.system, rs.initial, run, [&](const LagrangianSample& x) {
        ++samples;
        const Quat o(x.q(3), x.q(4), x.q(5), x.q(6));  // the root's free joint: x̄, quaternion
        const double axis_z = (o.normalized().toRotationMatrix() * Vec3::UnitZ()).z();
        worst_tilt = std::max(worst_tilt, std::abs(std::abs(axis_z) - std::sin(0.3)));
        if (std::isnan(e0)) e0 = x.energy;
        worst_energy = std::max(worst_energy, std::abs(x.energy - e0));
        worst_rows = std::max({worst_rows, x.violation_position, x.violation_velocity});
      });
  ASSERT_TRUE(res.ok) << res.message;
  EXPECT_EQ(samples, 11);
  EXPECT_LT(worst_tilt, 1e-9);
  EXPECT_LT(worst_energy, 1e-10 * std::abs(e0));
  EXPECT_LT(worst_rows, 1e-12);
}

// the last row of a csv file as column name → value
std::map<std::string, double> last_row(const std::string& path) {
  std::istringstream in(testing::read_file(path));
  std::string header, line, last;
  std::getline(in, header);
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  std::map<std::string, double> out;
  std::istringstream h(header), v(last);
  std::string name, value;
  while (std::getline(h, name, ',') && std::getline(v, value, ',')) out[name] = std::stod(value);
  return out;
}

// simulate: the bicycle pushed into a weave (lean rate 0.5 rad/s at 5 m/s) runs in (q, ν) as
// the recursion runs it in joint rates: the rear frame's pose after 5 s (dopri5, rtol 1e-10)
TEST(RigidQuasiVelocities, PerturbedBicycleRunEqualsTheRecursionsRun) {
  std::ifstream in(kBicycle);
  nlohmann::json scene = nlohmann::json::parse(in);
  scene["bodies"][0]["angular_velocity"] = {0.5, 0, 0};
  const std::string nu_scene = testing::write_temp("bicycle_pushed_nu.json", scene.dump());
  scene.erase("quasi_velocities");
  scene["solver"] = {{"formulation", "recursive"}};
  const std::string plain = testing::write_temp("bicycle_pushed.json", scene.dump());
  const std::string a = testing::write_temp("bicycle_nu.csv", ""),
                    b = testing::write_temp("bicycle_plain.csv", "");
  ASSERT_EQ(testing::run_cli("simulate " + nu_scene + " --quiet --out " + a).status, 0);
  ASSERT_EQ(testing::run_cli("simulate " + plain + " --quiet --out " + b).status, 0);
  auto ra = last_row(a), rb = last_row(b);
  ASSERT_EQ(ra["t"], 5.0);
  ASSERT_EQ(rb["t"], 5.0);
  // the root's free joint: position, quaternion (the same sign: both start at the identity)
  const char* parts[] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
  double worst = 0;
  for (int k = 0; k < 7; ++k)
    worst = std::max(worst, std::abs(ra["q.rear_frame.q" + std::to_string(k)] -
                                     rb[std::string("rear_frame.") + parts[k]]));
  EXPECT_LT(worst, 1e-9);
  EXPECT_GT(std::abs(ra["q.rear_frame.q4"]), 1e-3);  // it leans
}

// the bicycle scene at forward speed v (every body at v, the wheels at v / r)
std::string bicycle_at(double v) {
  std::ifstream in(kBicycle);
  nlohmann::json scene = nlohmann::json::parse(in);
  for (auto& body : scene["bodies"]) {
    body["velocity"] = {v, 0, 0};
    const std::string name = body["name"];
    if (name == "rear_wheel") body["angular_velocity"] = {0, v / 0.3, 0};
    if (name == "front_wheel") body["angular_velocity"] = {0, v / 0.35, 0};
  }
  return scene.dump();
}

double distance_to_nearest(const Eigen::VectorXcd& set, std::complex<double> z) {
  double best = INFINITY;
  for (int k = 0; k < set.size(); ++k) best = std::min(best, std::abs(set(k) - z));
  return best;
}

TEST(RigidQuasiVelocities, BicycleGivesMeijaardsEigenvaluesFrom0To10MetresPerSecond) {
  const Benchmark b = meijaard();
  double worst = 0;
  for (double v : {0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 5.8, 6.0, 6.2, 7.0, 8.0, 9.0, 10.0}) {
    const RigidNuScene rs = load_rigid_nu_scene_from_string(bicycle_at(v), "bicycle.json");
    LinearModel lin;
    std::string message;
    ASSERT_EQ(linearize_rigid_nu(rs.system, rs.initial, lin.A, message), LagrangianStatus::Ok)
        << message;
    ASSERT_EQ(lin.A.rows(), 10 + 3);  // (q, ν): the tree's 10 coordinates, 3 quasi-velocities
    const Eigen::VectorXcd got = modes(lin).values;
    const Eigen::VectorXcd ref = reference_eigenvalues(b, v);
    for (int k = 0; k < ref.size(); ++k) {
      const double e = distance_to_nearest(got, ref(k));
      worst = std::max(worst, e);
      EXPECT_LT(e, 1e-8) << "v = " << v << " m/s, eigenvalue " << ref(k);
    }
  }
  std::ostringstream os;
  os << std::scientific << worst;
  RecordProperty("worst_eigenvalue_error", os.str());
}

// The Gibbs function's Hessian in ν at the upright straight motion is the paper's mass
// matrix M in (φ̇, δ̇) (eq. 5.3, Appendix A; the steer axis points up here, down in the
// paper, so the coupling changes sign) and, for the speed, the translational mass with the
// wheels' spin inertias m_T + I_Ryy / r_R² + I_Fyy / r_F², uncoupled
TEST(RigidQuasiVelocities, BicycleMassMatrixInNuIsMeijaardsM) {
  const Benchmark b = meijaard();
  const RigidNuScene rs = load_rigid_nu_scene(kBicycle);
  RigidNuData d(rs.system);
  ASSERT_EQ(evaluate_rigid_nu(rs.system, rs.initial, d), LagrangianStatus::Ok);
  Eigen::Matrix3d H_ref = Eigen::Matrix3d::Zero();
  H_ref.topLeftCorner<2, 2>() = b.M;
  H_ref(0, 1) = H_ref(1, 0) = -b.M(0, 1);
  H_ref(2, 2) = 85 + 2 + 4 + 3 + 0.12 / (0.3 * 0.3) + 0.28 / (0.35 * 0.35);
  EXPECT_LT((d.r.H - H_ref).cwiseAbs().maxCoeff(), 1e-12) << d.r.H;
}

TEST(RigidQuasiVelocities, CommandLineEvalSimulateAndLinearize) {
  // eval: ν, ν̇, H = Yᵀ M Y, F_ν and the rows' forces; the two forms' difference
  auto r = testing::run_cli("eval --json '" + kBicycle + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["system"], "rigid");
  EXPECT_EQ(j["dof"], 3);
  EXPECT_NEAR(j["quasi_velocities"]["speed"]["value"].get<double>(), 5.0, 1e-12);
  EXPECT_EQ(j["hessian"].size(), 3u);
  EXPECT_LT(j["gauss_difference"].get<double>(), 1e-10);
  // simulate: ν columns; the speed stays 5 m/s upright (a steady motion)
  const std::string out = ::testing::TempDir() + "rigid_nu_traj.csv";
  r = testing::run_cli("simulate '" + kBicycle + "' --duration 0.05 --out " + out + " --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string csv = testing::read_file(out);
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find(",nu.lean_rate,nu.steer_rate,nu.speed,energy"), std::string::npos)
      << header;
  // linearize: the weave pair at 5 m/s (Meijaard et al.'s Table 2)
  r = testing::run_cli("linearize '" + kBicycle + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  bool weave = false;
  for (const auto& e : j["eigenvalues"])
    weave = weave || (std::abs(e["re"].get<double>() + 0.775341882195845) < 1e-8 &&
                      std::abs(std::abs(e["im"].get<double>()) - 4.46486771378823) < 1e-8);
  EXPECT_TRUE(weave) << r.out;
}

}  // namespace
}  // namespace appell
