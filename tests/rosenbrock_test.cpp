// The linearly implicit integrator (integrator.method "rosenbrock", odeint's rosenbrock4 with
// the exact Jacobian of appell/derivatives.hpp) on a stiff scene: an arm held by high-gain
// PD servos.  The explicit methods fail at the step rosenbrock takes, or need far more
// steps; rosenbrock's motion and energy agree with a fine explicit reference.
#include <gtest/gtest.h>

#include <appell/derivatives.hpp>
#include <appell/simulation.hpp>
#include <appell/state_space.hpp>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "random_chain.hpp"

namespace appell {
namespace {

using test_chain::Chain;
using test_chain::random_chain;
using test_chain::random_state;
using test_scenes::Rng;

Model stiff_arm() {
  Chain c = random_chain(5, 3, false, true);
  for (const auto& j : c.joints) {
    std::vector<Expression> target;
    target.push_back(Expression::parse("0.3", {}, nullptr));
    // a stiff regulator: the fast mode decays at kd / I ≈ 1e4..1e5 1/s, the slow one at
    // kp / kd = 100 1/s
    c.b.add_force(std::make_shared<JointServo>(j, 2e5, 2e3, std::move(target)));
  }
  return compile(c.b);
}

struct Outcome {
  SimulationResult r;
  std::vector<Eigen::VectorXd> q;
  std::vector<double> energy;
};

Outcome run_scene(const Model& m, const std::string& method, double dt, double rtol) {
  SimulationOptions o;
  o.formulation = Formulation::Recursive;
  o.integrator.method = method;
  o.integrator.method_given = true;
  o.integrator.duration = 0.3;
  o.integrator.dt = dt;
  o.integrator.rtol = rtol;
  o.integrator.atol = rtol * 1e-2;
  Outcome out;
  out.r = simulate(m, o, [&](const Sample& s) {
    out.q.push_back(s.state->q);
    out.energy.push_back(s.energy);
  });
  return out;
}

TEST(Rosenbrock, StateJacobianAgainstRichardson) {
  // the first-order system's ∂ẋ/∂x in its own coordinates, quaternions included
  for (unsigned seed = 1; seed <= 4; ++seed) {
    Chain c = random_chain(seed, 4, true);
    const Model m = seed == 4 ? stiff_arm() : compile(c.b);
    Rng rng(seed);
    const State s = random_state(m, rng);
    Data d(m);
    Eigen::MatrixXd J;
    state_jacobian(m, d, s, J);
    const int nq = m.tree().nq, nx = nq + m.tree().nu;
    auto space = make_state_space(m, SolverOptions{Formulation::Recursive, {}});
    Eigen::VectorXd x0(nx);
    x0 << s.q, s.u;
    auto f = [&](double h, int j) {
      Eigen::VectorXd x = x0, xd;
      x(j) += h;
      Data dd(m);
      space->derivative(x, s.t, dd, xd);
      return xd;
    };
    for (int j = 0; j < nx; ++j) {
      auto D = [&](double h) -> Eigen::VectorXd { return (f(h, j) - f(-h, j)) / (2 * h); };
      const Eigen::VectorXd e0 = (4 * D(5e-3) - D(1e-2)) / 3, e1 = (4 * D(2.5e-3) - D(5e-3)) / 3;
      const Eigen::VectorXd col = (16 * e1 - e0) / 15;
      EXPECT_LT((J.col(j) - col).cwiseAbs().maxCoeff(), 1e-7 * std::max(1.0, col.norm()))

          << "seed " << seed << " column " << j;
    }
  }
}

TEST(Rosenbrock, StiffServoArmAtALargeStep) {
  const Model m = stiff_arm();
  // explicit rk4 at the output step 0.01 s is unstable
  const Outcome rk4 = run_scene(m, "rk4", 0.01, 1e-6);
  EXPECT_NE(rk4.r.status, SimulationStatus::Completed);
  // rosenbrock completes with steps near the output spacing
  const Outcome ros = run_scene(m, "rosenbrock", 0.01, 1e-6);
  ASSERT_EQ(ros.r.status, SimulationStatus::Completed) << ros.r.message;
  // dopri5 at the same tolerance is held down by stability to far smaller steps
  const Outcome dp = run_scene(m, "dopri5", 0.01, 1e-6);
  ASSERT_EQ(dp.r.status, SimulationStatus::Completed) << dp.r.message;
  EXPECT_GT(dp.r.steps, 10 * ros.r.steps) << dp.r.steps << " vs " << ros.r.steps;
  // against a fine explicit reference: the motion and the energy at every output instant
  const Outcome ref = run_scene(m, "dopri5", 0.01, 1e-11);
  ASSERT_EQ(ref.r.status, SimulationStatus::Completed);
  ASSERT_EQ(ref.q.size(), ros.q.size());
  double dq = 0, de = 0, scale = 0;
  for (size_t i = 0; i < ros.q.size(); ++i) {
    dq = std::max(dq, (ros.q[i] - ref.q[i]).cwiseAbs().maxCoeff());
    de = std::max(de, std::abs(ros.energy[i] - ref.energy[i]));
    scale = std::max(scale, std::abs(ref.energy[i]));
  }
  EXPECT_LT(dq, 1e-5);
  EXPECT_LT(de, 1e-4 * std::max(1.0, scale));
  // the servos reach their set point 0.3 (the reference says so too)
  EXPECT_NEAR(ros.q.back()(0), 0.3, 0.01);
}

TEST(Rosenbrock, RefusedWhereItHasNoJacobian) {
  Chain c = random_chain(2, 2, false, true);
  c.b.add_force(std::make_shared<DampingForce>(0, 0.5, 0.5));
  const Model m = compile(c.b);
  SimulationOptions o;
  o.integrator.method = "rosenbrock";
  o.integrator.method_given = true;
  EXPECT_THROW(Simulation(m, o), std::invalid_argument);
}

TEST(Rosenbrock, CommandLine) {
  // the cart-pole held by stiff servos (scenes/examples/cart_pole.json with "pd" forces):
  // --integrator rosenbrock reaches the set points in a few hundred steps; a scene with
  // constraint rows beyond its tree is refused in one line, exit status 2
  const std::string scene = testing::write_temp("servo_cart.json", R"({"gravity": [0, 0, -9.81],
  "bodies": [
    {"name": "cart", "mass": 1.0, "inertia": {"box": [0.3, 0.2, 0.1]}, "position": [0, 0, 0]},
    {"name": "pole", "mass": 0.1, "inertia": {"principal": [0.0083, 0.0083, 0.0001]}, "position": [0, 0, 0.5]}],
  "constraints": [
    {"name": "rail", "type": "prismatic", "bodies": ["world", "cart"], "axis": [1, 0, 0]},
    {"name": "hinge", "type": "revolute", "bodies": ["cart", "pole"], "anchor": [0, 0, 0], "axis": [0, 1, 0]}],
  "forces": [
    {"type": "pd", "joint": "hinge", "kp": 2e5, "kd": 2e3, "target": "0"},
    {"type": "pd", "joint": "rail", "kp": 1e4, "kd": 2e3, "target": "0.5"}],
  "integrator": {"method": "dopri5", "duration": 1.0, "dt": 0.01, "rtol": 1e-6, "atol": 1e-8}})");
  const std::string summary = ::testing::TempDir() + "rosenbrock_summary.json";
  const auto r = testing::run_cli("simulate " + scene +
                                  " --integrator rosenbrock --quiet --summary " + summary);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(testing::read_file(summary));
  EXPECT_EQ(j["integrator"], "rosenbrock");
  EXPECT_LT(j["steps"].get<long>(), 1000);
  const auto refused = testing::run_cli("simulate " + std::string(APPELL_SOURCE_DIR) +
                                        "/scenes/examples/double_pendulum.json --integrator "
                                        "rosenbrock --quiet");
  EXPECT_EQ(refused.status, 2);
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1);
  EXPECT_NE(refused.err.find("rosenbrock"), std::string::npos);
}

}  // namespace
}  // namespace appell
