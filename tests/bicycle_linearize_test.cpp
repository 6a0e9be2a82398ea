// The Whipple bicycle of Meijaard, Papadopoulos, Ruina & Schwab, "Linearized dynamics
// equations for the balance and steer of a bicycle: a benchmark and review", Proc. R. Soc. A
// 463 (2007) 1955–1982: scenes/benchmarks/whipple_bicycle.json, four rigid bodies on three
// hinges with two wheels rolling without slipping (nonholonomic), linearized by
// `appell linearize` about its upright straight motion at speed v.  The reference is the
// paper's own linear model M q̈ + v C1 q̇ + (g K0 + v² K2) q = 0 in lean and steer, whose
// entries the paper's Appendix A gives in closed form from the benchmark parameters
// (Table 1); the paper prints the resulting matrices, eigenvalues and critical speeds to 14
// or 15 digits, and those printed numbers are checked here too.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <appell/derivatives.hpp>
#include <appell/scene.hpp>
#include <appell/tree.hpp>
#include <cmath>
#include <complex>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_util.hpp"
#include "meijaard_benchmark.hpp"

namespace appell {
namespace {

const std::string kScene =
    std::string(APPELL_SOURCE_DIR) + "/scenes/benchmarks/whipple_bicycle.json";

// the shipped scene with its forward speed set to v: every body moves forward at v and each
// wheel turns at v / r about its axle (world y), so that its contact point is at rest
std::string bicycle_at(double v, const std::string& root = "") {
  std::ifstream in(kScene);
  nlohmann::json scene = nlohmann::json::parse(in);
  for (auto& body : scene["bodies"])
    if (body["name"] == root) body["root"] = true;
  for (auto& body : scene["bodies"]) {
    body["velocity"] = {v, 0, 0};
    const std::string name = body["name"];
    if (name == "rear_wheel") body["angular_velocity"] = {0, v / 0.3, 0};
    if (name == "front_wheel") body["angular_velocity"] = {0, v / 0.35, 0};
  }
  return scene.dump();
}

Eigen::VectorXcd appell_eigenvalues(double v, LinearModel* out = nullptr,
                                    const std::string& root = "") {
  const Model m = compile(load_scene_from_string(bicycle_at(v, root), "bicycle.json"));
  const LinearModel lin = linearize(m, m.initial_state(), {});
  if (out) *out = lin;
  return modes(lin).values;
}

double distance_to_nearest(const Eigen::VectorXcd& set, std::complex<double> z) {
  double best = INFINITY;
  for (int k = 0; k < set.size(); ++k) best = std::min(best, std::abs(set(k) - z));
  return best;
}

TEST(WhippleBicycle, AppendixFormulasGiveThePrintedMatrices) {
  const Benchmark b = meijaard();
  // the paper's eq. (5.3), as printed
  Eigen::Matrix2d M, C1, K0, K2;
  M << 80.81722, 2.31941332208709, 2.31941332208709, 0.29784188199686;
  C1 << 0, 33.86641391492494, -0.85035641456978, 1.68540397397560;
  K0 << -80.95, -2.59951685249872, -2.59951685249872, -0.80329488458618;
  K2 << 0, 76.59734589573222, 0, 2.65431523794604;
  EXPECT_LT((b.M - M).cwiseAbs().maxCoeff(), 1e-13);
  EXPECT_LT((b.C1 - C1).cwiseAbs().maxCoeff(), 1e-13);
  EXPECT_LT((b.K0 - K0).cwiseAbs().maxCoeff(), 1e-13);
  EXPECT_LT((b.K2 - K2).cwiseAbs().maxCoeff(), 1e-13);
  // the printed eigenvalues at 5 m/s (the paper's Table 2): castor, weave pair, capsize
  const Eigen::VectorXcd lam = reference_eigenvalues(b, 5.0);
  for (std::complex<double> z : {std::complex<double>(-14.0783896927982, 0),
                                 std::complex<double>(-0.775341882195845, 4.46486771378823),
                                 std::complex<double>(-0.775341882195845, -4.46486771378823),
                                 std::complex<double>(-0.322866429004087, 0)})
    EXPECT_LT(distance_to_nearest(lam, z), 1e-12) << z;
}

TEST(WhippleBicycle, LinearizeGivesThePublishedEigenvaluesFrom0To10MetresPerSecond) {
  const Benchmark b = meijaard();
  double worst = 0;
  for (double v : {0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 5.8, 6.0, 6.2, 7.0, 8.0, 9.0, 10.0}) {
    LinearModel lin;
    const Eigen::VectorXcd got = appell_eigenvalues(v, &lin);
    // a nonholonomic system: 3 velocities (lean, steer, forward) on 7 independent coordinates
    // (x, y, yaw, lean, the wheels' angles and steer; pitch and height follow)
    ASSERT_EQ(lin.velocities.size(), 3u);
    ASSERT_EQ(lin.coordinates.size(), 7u);
    EXPECT_TRUE(lin.exact) << lin.note;  // the rolling rows give their derivatives
    const Eigen::VectorXcd ref = reference_eigenvalues(b, v);
    for (int k = 0; k < ref.size(); ++k) {
      const double e = distance_to_nearest(got, ref(k));
      worst = std::max(worst, e);
      EXPECT_LT(e, 1e-9) << "v = " << v << " m/s, eigenvalue " << ref(k);
    }
    // the other six are the motion's symmetries (position, heading, wheel angles, speed):
    // exact zeros, the cyclic states modes() sets aside (and the speed's own)
    int zeros = 0;
    for (int k = 0; k < got.size(); ++k)
      if (std::abs(got(k)) < 1e-12) ++zeros;
    EXPECT_EQ(zeros, 6) << "v = " << v << ": " << got.transpose();
  }
  std::ostringstream os;
  os << std::scientific << worst;
  RecordProperty("worst_eigenvalue_error", os.str());
}

// The same bicycle with the spinning rear wheel as the tree's floating root: its free
// joint's quaternion turns at v / r, and the linear model must follow that rotation (the
// ω_ref × δq term of appell/derivatives.hpp) to give the same eigenvalues.
TEST(WhippleBicycle, ASpinningWheelAtTheRootGivesTheSameEigenvalues) {
  const Benchmark b = meijaard();
  for (double v : {2.0, 5.0, 8.0}) {
    LinearModel lin;
    const Eigen::VectorXcd got = appell_eigenvalues(v, &lin, "rear_wheel");
    EXPECT_NE(lin.note.find("spins at"), std::string::npos) << lin.note;
    const Eigen::VectorXcd ref = reference_eigenvalues(b, v);
    for (int k = 0; k < ref.size(); ++k)
      EXPECT_LT(distance_to_nearest(got, ref(k)), 1e-9) << "v = " << v << ", " << ref(k);
  }
}

TEST(WhippleBicycle, WeaveAndCapsizeSpeedsAreThePublishedOnes) {
  // the paper's critical speeds: the weave pair crosses the imaginary axis at v_w and the
  // capsize eigenvalue passes through zero at v_c
  const double vw = 4.29238253634111, vc = 6.02426201538837;
  double weave = -INFINITY;
  for (auto z : appell_eigenvalues(vw))
    if (std::abs(z.imag()) > 1) weave = std::max(weave, z.real());
  EXPECT_LT(std::abs(weave), 1e-9);
  // capsize: the real eigenvalue nearest zero other than the six symmetries changes sign
  // across v_c, one side stable and the other not
  auto capsize = [](double v) {
    double out = INFINITY;
    for (auto z : appell_eigenvalues(v))
      if (z.imag() == 0 && z.real() != 0 && std::abs(z.real()) < 0.1) out = z.real();
    return out;
  };
  EXPECT_LT(capsize(vc - 0.01), 0);
  EXPECT_GT(capsize(vc + 0.01), 0);
}

TEST(WhippleBicycle, CliPrintsTheWeaveOfTheShippedScene) {
  const auto r = testing::run_cli("linearize '" + kScene + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["independent_velocities"].size(), 3u);
  bool weave = false;
  for (const auto& e : j["eigenvalues"])
    if (std::abs(e["re"].get<double>() + 0.775341882195845) < 1e-9 &&
        std::abs(std::abs(e["im"].get<double>()) - 4.46486771378823) < 1e-9)
      weave = true;
  EXPECT_TRUE(weave) << r.out;
}

// A scene whose wheel rate is rounded (16.6667 for 5 / 0.3) violates its rolling rows by
// 3e-5 m/s: linearize starts, as simulate does, from the velocities projected onto the
// rows, says by how much, and finds the weave of the nearby steady motion
TEST(WhippleBicycle, RoundedWheelRatesAreProjectedFirst) {
  std::string text = testing::read_file(kScene);
  const std::string exact = "16.666666666666668";
  ASSERT_NE(text.find(exact), std::string::npos);
  text.replace(text.find(exact), exact.size(), "16.6667");
  const std::string path = testing::write_temp("rounded_bicycle.json", text);
  const auto r = testing::run_cli("linearize '" + path + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("initial_velocity_correction"));
  EXPECT_GT(j["initial_velocity_correction"].get<double>(), 0);
  bool weave = false;
  for (const auto& e : j["eigenvalues"])
    if (std::abs(e["re"].get<double>() + 0.775341882195845) < 1e-5 &&
        std::abs(std::abs(e["im"].get<double>()) - 4.46486771378823) < 1e-5)
      weave = true;
  EXPECT_TRUE(weave) << r.out;
}

}  // namespace
}  // namespace appell
