// The errors a user meets with constraints nonlinear in the rates (docs/lagrangian.md
// "Constraints nonlinear in the rates"): scene errors located, and a run whose
// quasi-velocities stop describing the constraint set exits 3 and says when.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "appell/lagrangian_scene.hpp"
#include "appell/scene.hpp"
#include "cli_util.hpp"
#include "lagrangian_util.hpp"

namespace appell {
namespace {

using lagrangian_test::csv_rows;
using lagrangian_test::example;
using lagrangian_test::load_error;
using testing::run_cli;
using testing::write_temp;

constexpr double kG = 9.81, kV0 = 5.0;  // the isokinetic particle's field and speed

TEST(LagrangianNonlinear, SceneErrorsAreLocated) {
  auto scene = [](const std::string& rates, const std::string& row, const std::string& nu) {
    return R"J({"lagrangian": {"coordinates": [{"name": "x", "q": 0, "rate": )J" + rates +
           R"J(], "L": "0.5*(qd(x)^2 + qd(y)^2)", "constraints": [{"level": "velocity", "equation": ")J" +
           row + "\"}]" + nu + "}}";
  };
  auto with = [&](const std::string& vx, const std::string& vy, const std::string& row,
                  const std::string& nu = "") {
    return scene(vx + R"J(}, {"name": "y", "rate": )J" + vy + "}", row, nu);
  };
  // off the constraint set
  EXPECT_EQ(load_error(with("3", "4.1", "qd(x)^2 + qd(y)^2 - 25")),
            "s.json: /lagrangian/constraints/0: not satisfied at t = 0 by the initial rates: "
            "residual 0.81");
  // not regular: the square of a row has ∂φ/∂q̇ = 0 where it holds
  EXPECT_EQ(load_error(with("0.6", "0.8", "(qd(x)^2 + qd(y)^2 - 1)^2")),
            "s.json: /lagrangian/constraints/0/equation: at t = 0: ∂φ/∂q̇ = 0 on the constraint "
            "set; a constraint φ(q, q̇, t) = 0 nonlinear in the rates must have a nonzero "
            "gradient in the rates there (write it so that it is regular, e.g. qd(x)^2 + "
            "qd(y)^2 - v^2, not its square)");
  // not differentiable: √(ẋ² + ẏ²) at rest
  EXPECT_EQ(load_error(with("0", "0", "sqrt(qd(x)^2 + qd(y)^2)")),
            "s.json: /lagrangian/constraints/0/equation: at t = 0: not finite (or not "
            "differentiable)");
  // ν = ẋ is dependent on the constraint set where the velocity is along x
  EXPECT_EQ(load_error(with("5", "0", "qd(x)^2 + qd(y)^2 - 25",
                            R"J(, "quasi_velocities": [{"name": "vx", "expression": "qd(x)"}])J")),
            "s.json: /lagrangian/quasi_velocities: at t = 0: the quasi-velocities are not "
            "independent on the constraint set ([γ; C] is singular)");
  // and accepted where it is not
  EXPECT_EQ(load_error(with("3", "4", "qd(x)^2 + qd(y)^2 - 25",
                            R"J(, "quasi_velocities": [{"name": "vx", "expression": "qd(x)"}])J")),
            "");
}

// During a run: in ν = ẋ the isokinetic particle's heading turns through θ = 0, where ẋ = v0 is
// the largest ν the constraint set allows and [∂φ/∂q̇; C] is singular (at t = u0 v0 / g =
// 0.56 s): exit 3, said when, the rows before it written.
TEST(LagrangianNonlinear, QuasiVelocitiesLostDuringARunExit3) {
  std::string text = testing::read_file(example("isokinetic_particle.json"));
  const std::string from = R"J("name": "vy", "expression": "qd(y)")J";
  text.replace(text.find(from), from.size(), R"J("name": "vx", "expression": "qd(x)")J");
  const std::string scene = write_temp("isokinetic_vx.json", text);
  const std::string out = ::testing::TempDir() + "isokinetic_vx.csv";
  const auto r = run_cli("simulate " + scene + " --quiet --out " + out);
  EXPECT_EQ(r.status, 3);
  const double fold = std::log(3.0) * kV0 / kG;
  const auto rows = csv_rows(out);
  ASSERT_GT(rows.size(), 10u);
  EXPECT_LT(rows.back()[0], fold + 0.01);
  EXPECT_GT(rows.back()[0], fold - 0.05);
  EXPECT_NE(r.err.find("at t = "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(the rows before it are written)"), std::string::npos) << r.err;
  EXPECT_TRUE(r.err.find("no rates on the constraint set") != std::string::npos ||
              r.err.find("not independent on the constraint set") != std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace appell
