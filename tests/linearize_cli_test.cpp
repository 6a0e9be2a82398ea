// `appell linearize` (cli/linearize.cpp): the cart-pole's A, B against the closed form,
// a double pendulum's frequencies, the table, and located errors with exit status 2.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace appell {
namespace {

using testing::run_cli;
using testing::write_temp;

const std::string kExamples = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/";

Eigen::MatrixXd matrix(const nlohmann::json& j) {
  Eigen::MatrixXd A(j.size(), j.empty() ? 0 : j[0].size());
  for (size_t r = 0; r < j.size(); ++r)
    for (size_t c = 0; c < j[r].size(); ++c) A(r, c) = j[r][c].get<double>();
  return A;
}

TEST(LinearizeCli, CartPoleAandB) {
  const auto r = run_cli("linearize " + kExamples + "cart_pole.json --inputs rail");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["derivatives"], "exact");
  EXPECT_EQ(j["coordinates"], nlohmann::json({"rail", "hinge"}));
  EXPECT_EQ(j["inputs"], nlohmann::json({"rail"}));
  // closed form (x, θ, ẋ, θ̇), force F on the cart:
  //   ẍ = (−m² l² g θ + (I + m l²) F) / Δ,   θ̈ = ((Mc + m) m g l θ − m l F) / Δ,
  //   Δ = (Mc + m)(I + m l²) − m² l²
  const double Mc = 1.0, m = 0.1, l = 0.5, I = 0.1 / 12, g = 9.81;
  const double D = (Mc + m) * (I + m * l * l) - m * m * l * l;
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(4, 4), B = Eigen::MatrixXd::Zero(4, 1);
  A(0, 2) = A(1, 3) = 1;
  A(2, 1) = -m * m * l * l * g / D;
  A(3, 1) = (Mc + m) * m * g * l / D;
  B(2, 0) = (I + m * l * l) / D;
  B(3, 0) = -m * l / D;
  EXPECT_LT((matrix(j["A"]) - A).norm(), 1e-12);
  EXPECT_LT((matrix(j["B"]) - B).norm(), 1e-12);
  // upright: one eigenvalue +√(A₃₂) (unstable), one −√(A₃₂), a double zero (the cart)
  double unstable = 0;
  for (const auto& e : j["eigenvalues"]) unstable = std::max(unstable, e["re"].get<double>());
  EXPECT_NEAR(unstable, std::sqrt(A(3, 1)), 1e-10);
}

TEST(LinearizeCli, DoublePendulumFrequenciesAndTable) {
  // two uniform rods of length 1 m, 1 kg each, on hinges: ω² from det(K − ω² M) = 0,
  //   M = [[4/3, 1/2], [1/2, 1/3]],  K = g [[3/2, 0], [0, 1/2]]
  const std::string scene = write_temp("rods.json", R"({"gravity": [0, 0, -9.81],
  "bodies": [
    {"name": "upper", "mass": 1, "inertia": {"principal": [0.08333333333333333, 0.08333333333333333, 0.001]}, "position": [0, 0, -0.5]},
    {"name": "lower", "mass": 1, "inertia": {"principal": [0.08333333333333333, 0.08333333333333333, 0.001]}, "position": [0, 0, -1.5]}],
  "constraints": [
    {"name": "shoulder", "type": "revolute", "bodies": ["world", "upper"], "anchor": [0, 0, 0], "axis": [1, 0, 0]},
    {"name": "elbow", "type": "revolute", "bodies": ["upper", "lower"], "anchor": [0, 0, -1], "axis": [1, 0, 0]}]})");
  const auto r = run_cli("linearize " + scene);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const double g = 9.81, a = 4.0 / 3 * 1.0 / 3 - 0.25, b = -(1.5 * g / 3 + 0.5 * g * 4.0 / 3),
               c = 1.5 * g * 0.5 * g;
  const double w1 = std::sqrt((-b - std::sqrt(b * b - 4 * a * c)) / (2 * a)),
               w2 = std::sqrt((-b + std::sqrt(b * b - 4 * a * c)) / (2 * a));
  std::vector<double> w;
  for (const auto& e : j["eigenvalues"]) {
    EXPECT_NEAR(e["damping_ratio"].get<double>(), 0.0, 1e-9);
    if (e["im"].get<double>() > 0) w.push_back(e["natural_frequency"].get<double>());
  }
  ASSERT_EQ(w.size(), 2u);
  std::sort(w.begin(), w.end());
  EXPECT_NEAR(w[0], w1, 1e-10 * w1);
  EXPECT_NEAR(w[1], w2, 1e-10 * w2);
  // the slow mode moves both hinges in phase, the fast one in opposition
  const auto t = run_cli("linearize " + scene + " --format table");
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("eigenvalues:"), std::string::npos);
  EXPECT_NE(t.out.find("shoulder"), std::string::npos);
}

TEST(LinearizeCli, ConstrainedDoublePendulumOfParticles) {
  // two unit point masses on rods of length 1 (distance rows): the tree is two free
  // particles (6 coordinates), two holonomic rows leave 4 independent coordinates and
  // velocities.  Small oscillations in each vertical plane: ω² = (g / l)(2 ∓ √2), twice.
  const std::string scene = write_temp("particles.json", R"({"gravity": [0, 0, -9.81],
  "bodies": [
    {"name": "b1", "type": "particle", "mass": 1, "position": [0, 0, -1]},
    {"name": "b2", "type": "particle", "mass": 1, "position": [0, 0, -2]}],
  "constraints": [
    {"name": "rod1", "type": "distance", "bodies": ["world", "b1"], "points": [[0, 0, 0], [0, 0, -1]]},
    {"name": "rod2", "type": "distance", "bodies": ["b1", "b2"], "points": [[0, 0, -1], [0, 0, -2]]}]})");
  const auto r = run_cli("linearize " + scene);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["derivatives"], "exact");  // the distance rows give their derivatives
  EXPECT_EQ(j["constraint_rows"], 2);
  EXPECT_EQ(j["independent_coordinates"].size(), 4u);
  EXPECT_EQ(j["independent_velocities"].size(), 4u);
  const double g = 9.81, w1 = std::sqrt(g * (2 - std::sqrt(2.0))),
               w2 = std::sqrt(g * (2 + std::sqrt(2.0)));
  std::vector<double> w;
  for (const auto& e : j["eigenvalues"]) {
    EXPECT_NEAR(e["re"].get<double>(), 0.0, 1e-8);
    if (e["im"].get<double>() > 0) w.push_back(e["im"].get<double>());
  }
  ASSERT_EQ(w.size(), 4u);
  std::sort(w.begin(), w.end());
  for (int k = 0; k < 2; ++k) {
    EXPECT_NEAR(w[k], w1, 1e-8 * w1);
    EXPECT_NEAR(w[2 + k], w2, 1e-8 * w2);
  }
}

TEST(LinearizeCli, LocatedErrors) {
  const auto bad_input = run_cli("linearize " + kExamples + "cart_pole.json --inputs wheel");
  EXPECT_EQ(bad_input.status, 2);
  EXPECT_EQ(bad_input.err,
            "error: --inputs: 'wheel' is not a joint of the scene's spanning tree (its joints: "
            "rail, hinge)\n");
  EXPECT_EQ(bad_input.out, "");
  const auto bad_format = run_cli("linearize " + kExamples + "cart_pole.json --format xml");
  EXPECT_EQ(bad_format.status, 2);
  EXPECT_EQ(bad_format.err, "error: --format: expected json or table (got 'xml')\n");
  const auto bad_time = run_cli("linearize " + kExamples + "cart_pole.json --at nan");
  EXPECT_EQ(bad_time.status, 2);
  EXPECT_EQ(std::count(bad_time.err.begin(), bad_time.err.end(), '\n'), 1);
  const auto missing = run_cli("linearize /nonexistent/scene.json");
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1);
}

}  // namespace
}  // namespace appell
