// The linear models the exact derivatives give (appell/derivatives.hpp, `appell linearize`)
// against closed forms: the cart-pole about its upright equilibrium, and a double pendulum's
// small-oscillation frequencies.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <appell/derivatives.hpp>
#include <appell/scene.hpp>
#include <appell/simulation.hpp>
#include <appell/tree.hpp>
#include <cmath>
#include <complex>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace appell {
namespace {

const std::string kExamples = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/";

// the double pendulum of two rigid links on hinges about x, hanging along −z
std::string double_pendulum_scene(double m1, double m2, double l1, double c1, double c2, double I1,
                                  double I2) {
  auto num = [](double x) { return std::to_string(x); };
  return R"({"name": "double pendulum on hinges", "gravity": [0, 0, -9.81],
  "bodies": [
    {"name": "upper", "mass": )" +
         num(m1) + R"(, "inertia": {"principal": [)" + num(I1) + ", " + num(I1) +
         R"(, 0.001]}, "position": [0, 0, )" + num(-c1) + R"(]},
    {"name": "lower", "mass": )" +
         num(m2) + R"(, "inertia": {"principal": [)" + num(I2) + ", " + num(I2) +
         R"(, 0.001]}, "position": [0, 0, )" + num(-l1 - c2) + R"(]}],
  "constraints": [
    {"name": "shoulder", "type": "revolute", "bodies": ["world", "upper"], "anchor": [0, 0, 0], "axis": [1, 0, 0]},
    {"name": "elbow", "type": "revolute", "bodies": ["upper", "lower"], "anchor": [0, 0, )" +
         num(-l1) + R"(], "axis": [1, 0, 0]}]})";
}

// ω² of det(K − ω² M) = 0 for the 2 × 2 M, K (the quadratic formula)
std::pair<double, double> closed_form_w2(const Eigen::Matrix2d& M, const Eigen::Matrix2d& K) {
  const double a = M.determinant(), b = -(K(0, 0) * M(1, 1) + K(1, 1) * M(0, 0)),
               c = K(0, 0) * K(1, 1);
  const double r = std::sqrt(b * b - 4 * a * c);
  return {(-b - r) / (2 * a), (-b + r) / (2 * a)};
}

TEST(Linearize, CartPoleUprightAgainstClosedForm) {
  const Model m = compile(load_scene(kExamples + "cart_pole.json"));
  ASSERT_EQ(m.tree().nu, 2);
  Data d(m);
  ForwardDerivatives fd;
  forward_dynamics_derivatives(m, d, m.initial_state(), Eigen::VectorXd(), fd);
  // x = cart position, θ = pole angle from upright (about +y, towards +x):
  // M = [[Mc + m, m l], [m l, I + m l²]],  V = m g l cos θ  ⇒  K = diag(0, −m g l)
  const double Mc = 1.0, mp = 0.1, l = 0.5, I = 0.1 / 12, g = 9.81;
  Eigen::Matrix2d M, K;
  M << Mc + mp, mp * l, mp * l, I + mp * l * l;
  K << 0, 0, 0, -mp * g * l;
  const Eigen::Matrix2d Minv = M.inverse();
  EXPECT_LT((fd.dudot_dq - (-Minv * K)).norm(), 1e-12);
  EXPECT_LT(fd.dudot_du.norm(), 1e-12);
  EXPECT_LT((fd.dudot_dtau - Minv).norm(), 1e-12);
  EXPECT_LT(fd.udot.norm(), 1e-12);  // an equilibrium
}

TEST(Linearize, DoublePendulumSmallOscillationFrequencies) {
  const double m1 = 1.2, m2 = 0.7, l1 = 0.5, c1 = 0.22, c2 = 0.3, I1 = 0.02, I2 = 0.011, g = 9.81;
  const std::string path = ::testing::TempDir() + "deriv_double_pendulum.json";
  std::ofstream(path) << double_pendulum_scene(m1, m2, l1, c1, c2, I1, I2);
  const Model m = compile(load_scene(path));
  Data d(m);
  ForwardDerivatives fd;
  forward_dynamics_derivatives(m, d, m.initial_state(), Eigen::VectorXd(), fd);
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(4, 4);
  A.topRightCorner(2, 2).setIdentity();
  A.bottomLeftCorner(2, 2) = fd.dudot_dq;
  A.bottomRightCorner(2, 2) = fd.dudot_du;
  Eigen::Matrix2d M, K;
  M << I1 + m1 * c1 * c1 + m2 * l1 * l1, m2 * l1 * c2, m2 * l1 * c2, I2 + m2 * c2 * c2;
  K << (m1 * c1 + m2 * l1) * g, 0, 0, m2 * c2 * g;
  const auto w2 = closed_form_w2(M, K);
  const Eigen::VectorXcd lam = Eigen::EigenSolver<Eigen::MatrixXd>(A).eigenvalues();
  std::vector<double> w;
  for (int k = 0; k < 4; ++k) {
    EXPECT_LT(std::abs(lam(k).real()), 1e-9);
    if (lam(k).imag() > 0) w.push_back(lam(k).imag());
  }
  ASSERT_EQ(w.size(), 2u);
  std::sort(w.begin(), w.end());
  EXPECT_NEAR(w[0], std::sqrt(w2.first), 1e-10 * std::sqrt(w2.first));
  EXPECT_NEAR(w[1], std::sqrt(w2.second), 1e-10 * std::sqrt(w2.second));
}

// A free axisymmetric body spinning about its axis, torque-free: in the parent (world)
// frame its angular velocity cones about the angular momentum at I3 Ω / I1 (Euler), so the
// linear model, which follows the reference rotation, has the eigenvalues ±i I3 Ω / I1.
// Leaving out the spin's ω × δq term would give a different (wrong) pair.
TEST(Linearize, SpinningAxisymmetricBodyConesAtItsEulerFrequency) {
  const double I1 = 0.7, I3 = 1.1, W = 3.0;
  const Model m = compile(load_scene_from_string(
      R"({"name": "rotor", "gravity": [0, 0, 0], "bodies": [{"name": "rotor", "mass": 2,
          "inertia": {"principal": [0.7, 0.7, 1.1]}, "orientation": {"axis_angle": [0, 0, 1, 0.4]},
          "angular_velocity": [0, 0, 3.0]}]})",
      "rotor.json"));
  const LinearModel lin = linearize(m, m.initial_state(), {});
  EXPECT_NE(lin.note.find("spins at"), std::string::npos);
  const Eigen::VectorXcd lam = modes(lin).values;
  double best = INFINITY;
  int nonzero = 0;
  for (int k = 0; k < lam.size(); ++k) {
    if (std::abs(lam(k)) > 1e-9) ++nonzero;
    best = std::min(best, std::abs(lam(k) - std::complex<double>(0, I3 * W / I1)));
  }
  EXPECT_LT(best, 1e-12);
  EXPECT_EQ(nonzero, 2);
}

// modes() sets aside cyclic states exactly and keeps the eigenvectors of the others
TEST(Linearize, ModesSetCyclicStatesAsideAndKeepTheEigenvectors) {
  LinearModel lm;
  lm.A.resize(4, 4);
  // x = (y, ψ, s, ω): y' = 2 ψ, ψ' = s (a chain of two cyclic states) driven by the
  // damped oscillator s' = ω, ω' = −4 s − 0.2 ω
  lm.A << 0, 2, 0, 0,  //
      0, 0, 1, 0,      //
      0, 0, 0, 1,      //
      0, 0, -4, -0.2;
  const LinearModes md = modes(lm);
  EXPECT_EQ(md.cyclic, 2);
  int zeros = 0;
  for (int k = 0; k < 4; ++k) {
    if (md.values(k) == 0.0) ++zeros;
    const Eigen::VectorXcd v = md.vectors.col(k);
    ASSERT_GT(v.norm(), 0);
    if (md.values(k) != 0.0) {
      EXPECT_LT((lm.A.cast<std::complex<double>>() * v - md.values(k) * v).norm(),
                1e-12 * v.norm());
    }
  }
  EXPECT_EQ(zeros, 2);
  // the oscillator's pair: λ² + 0.2 λ + 4 = 0
  const std::complex<double> pair(-0.1, std::sqrt(4 - 0.01));
  double best = INFINITY;
  for (int k = 0; k < 4; ++k) best = std::min(best, std::abs(md.values(k) - pair));
  EXPECT_LT(best, 1e-14);
}

// The shipped rolling disk in a steady turn (tilt 0.3 rad, precession 1.7 rad/s): a
// relative equilibrium under the rotation about the vertical, so `linearize` takes x in a
// frame turning with it.  The reference is the nonlinear motion itself: the disk started
// with its spin raised by ε wobbles about a nearby steady turn, and the frequency of its
// height's oscillation tends to the linear model's wobble frequency as ε → 0 (the
// difference is O(ε): 7.6e-4 at ε = 1e-4, 7.7e-5 at 1e-5).  In the fixed world frame the
// same state would give a spurious pair ±2.36 ± 0.62i, an instability the motion does not
// have.
TEST(Linearize, RollingDiskSteadyTurnWobblesAtTheLinearFrequency) {
  const Scene scene = load_scene(kExamples + "rolling_disk.json");
  const Model m = compile(scene);
  const LinearModel lin = linearize(m, m.initial_state(), {});
  EXPECT_NEAR(lin.turn_rate, 1.7, 1e-9);
  EXPECT_NE(lin.note.find("steady turn"), std::string::npos) << lin.note;
  const Eigen::VectorXcd lam = modes(lin).values;
  // the wobble: the largest |λ| other than the turning frame's own ±i Ω
  double wobble = 0, worst_re = 0;
  for (int k = 0; k < lam.size(); ++k) {
    worst_re = std::max(worst_re, std::abs(lam(k).real()));
    if (std::abs(std::abs(lam(k).imag()) - 1.7) > 1e-6)
      wobble = std::max(wobble, std::abs(lam(k).imag()));
  }
  EXPECT_LT(worst_re, 1e-5);  // neutral: a conservative motion that stays steady
  ASSERT_GT(wobble, 1.0);

  // the nonlinear reference: spin raised by ε, the centre's velocity ω × (centre − contact)
  const double eps = 1e-6, r = 0.5;
  nlohmann::json j = nlohmann::json::parse(testing::read_file(kExamples + "rolling_disk.json"));
  auto& b = j["bodies"][0];
  Eigen::Matrix3d R;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) R(i, k) = b["orientation"]["matrix"][i][k];
  const Eigen::Vector3d c(b["position"][0], b["position"][1], b["position"][2]),
      w0(b["angular_velocity"][0], b["angular_velocity"][1], b["angular_velocity"][2]);
  const Eigen::Vector3d a = R.col(2), z = Eigen::Vector3d::UnitZ();
  const Eigen::Vector3d down = (-z + z.dot(a) * a).normalized(), contact = c + r * down;
  const Eigen::Vector3d w = w0 + eps * a, v = w.cross(c - contact);
  b["angular_velocity"] = {w.x(), w.y(), w.z()};
  b["velocity"] = {v.x(), v.y(), v.z()};
  j["integrator"] = {
      {"method", "dopri5"}, {"duration", 16.0}, {"dt", 0.004}, {"rtol", 1e-12}, {"atol", 1e-14}};
  const Scene perturbed = load_scene_from_string(j.dump(), "disk.json");
  const Model mp = compile(perturbed);
  std::vector<double> t, h;
  const SimulationResult res =
      simulate(mp, SimulationOptions::from_settings(perturbed.settings),
               [&](const Sample& s) { t.push_back(s.t), h.push_back(s.data.body[0].x.z()); });
  ASSERT_TRUE(res.ok()) << res.message;
  // the frequency whose least-squares fit h ≈ p + q cos ωt + s sin ωt + d t leaves least
  const Eigen::Map<const Eigen::VectorXd> H(h.data(), h.size());
  auto misfit = [&](double om) {
    Eigen::MatrixXd X(t.size(), 4);
    for (size_t i = 0; i < t.size(); ++i)
      X.row(i) << 1, std::cos(om * t[i]), std::sin(om * t[i]), t[i];
    const Eigen::VectorXd co = X.colPivHouseholderQr().solve(H);
    return (X * co - H).squaredNorm();
  };
  double lo = wobble - 0.01, hi = wobble + 0.01;  // then golden-section search
  for (int it = 0; it < 60; ++it) {
    const double m1 = lo + 0.382 * (hi - lo), m2 = hi - 0.382 * (hi - lo);
    if (misfit(m1) < misfit(m2))
      hi = m2;
    else
      lo = m1;
  }
  const double measured = 0.5 * (lo + hi);
  EXPECT_NEAR(measured, wobble, 1e-5 * wobble) << "linear " << wobble << ", motion " << measured;
  RecordProperty("wobble_linear", std::to_string(wobble));
  RecordProperty("wobble_motion", std::to_string(measured));
}

}  // namespace
}  // namespace appell
