// The joint-space output columns (appell/joint_columns.hpp) as appell::Trajectory records
// them, against closed forms: a body on a hinge under a constant joint torque turns with
// constant angular acceleration, q(t) = ω₀ t + ½ (τ/I) t², whole turns included.
#include <gtest/gtest.h>

#include <algorithm>
#include <appell/appell.hpp>
#include <appell/trajectory.hpp>
#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

namespace {

using appell::Trajectory;

// a rigid body centred on the hinge axis x (no gravity), I_xx = 0.1, spinning at ω₀ = 4,
// driven by τ = 0.3 (and a second hinge at rest, unactuated, for the column layout)
const char* kScene = R"({
  "bodies": [
    {"name": "wheel", "mass": 1, "inertia": {"principal": [0.1, 0.2, 0.2]},
     "angular_velocity": [4, 0, 0]},
    {"name": "flap", "mass": 1, "inertia": {"principal": [0.1, 0.2, 0.2]}, "position": [0, 1, 0]}
  ],
  "constraints": [
    {"name": "axle", "type": "revolute", "bodies": ["world", "wheel"], "anchor": [0, 0, 0],
     "axis": [1, 0, 0]},
    {"name": "pin", "type": "revolute", "bodies": ["world", "flap"], "anchor": [0, 1, 0],
     "axis": [0, 0, 1]}
  ],
  "forces": [{"type": "joint_torque", "joint": "axle", "value": 0.3}]
})";

Trajectory run(const appell::Model& m, double duration) {
  appell::SimulationOptions o;
  o.integrator.method = "rk4";
  o.integrator.duration = duration;
  o.integrator.dt = 1e-3;
  o.every = 10;
  Trajectory tr(m);
  appell::Simulation sim(m, o);
  EXPECT_TRUE(sim.run([&](const appell::Sample& s) { tr.record(s); }).ok());
  return tr;
}

// the names of the groups of one quantity, in the schema's order
std::vector<std::string> names_of(const appell::OutputSchema& s,
                                  std::initializer_list<appell::Quantity> what) {
  std::vector<std::string> out;
  for (const appell::ColumnGroup& g : s.groups())
    if (std::find(what.begin(), what.end(), g.quantity) != what.end())
      out.insert(out.end(), s.names().begin() + g.first, s.names().begin() + g.first + g.width);
  return out;
}

TEST(JointColumns, NamesFollowTheCsvLayout) {
  using appell::Quantity;
  const appell::Model m = appell::load_model_from_string(kScene, "wheel.json");
  EXPECT_EQ(names_of(appell::traj_schema(m), {Quantity::JointCoordinates, Quantity::JointRates}),
            (std::vector<std::string>{"axle.q", "axle.qd", "pin.q", "pin.qd"}));
  // only the driven joint has actuator columns
  EXPECT_EQ(names_of(appell::forces_schema(m), {Quantity::ActuatorForce, Quantity::ActuatorPower}),
            (std::vector<std::string>{"axle.tau", "axle.power"}));
  const Trajectory tr(m);
  const auto& c = tr.columns();
  ASSERT_EQ(tr.traj_columns(), static_cast<size_t>(tr.find("pin.qd") + 1));
  EXPECT_EQ(c[tr.find("violation_velocity") + 1], "axle.q");
  EXPECT_EQ(c.back(), "axle.power");
  EXPECT_EQ(Trajectory(m, false).cols(), tr.traj_columns());
}

TEST(JointColumns, AngleIsContinuousAndMatchesConstantAcceleration) {
  const appell::Model m = appell::load_model_from_string(kScene, "wheel.json");
  const double duration = 2.0, w0 = 4.0, alpha = 0.3 / 0.1;  // τ / I_xx
  const Trajectory tr = run(m, duration);
  const auto t = tr.column("t"), q = tr.column("axle.q"), qd = tr.column("axle.qd");
  const auto tau = tr.column("axle.tau"), power = tr.column("axle.power");
  ASSERT_GT(t.size(), 100u);
  // q reaches ω₀ T + ½ α T² = 14 rad, more than two turns: no wrap into (−π, π]
  EXPECT_GT(q.back(), 4 * M_PI);
  for (size_t r = 0; r < t.size(); ++r) {
    EXPECT_NEAR(q[r], w0 * t[r] + 0.5 * alpha * t[r] * t[r], 1e-8) << "t = " << t[r];
    EXPECT_NEAR(qd[r], w0 + alpha * t[r], 1e-8);
    EXPECT_DOUBLE_EQ(tau[r], 0.3);
    EXPECT_NEAR(power[r], 0.3 * qd[r], 1e-12);  // τ·u (joint_state.hpp G1)
  }
  // the idle pin stays at rest
  for (double v : tr.column("pin.q")) EXPECT_NEAR(v, 0.0, 1e-12);
}

}  // namespace
