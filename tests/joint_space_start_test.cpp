// Joint space from the start (issue 35, item 3): a run starts from the joints' stated
// coordinates, never from body poses read back, and its joint outputs come from the State.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <string>

namespace appell {
namespace {

// a pendulum of two links whose angles are beyond ±π: body poses give them back only
// modulo 2π (4 − 2π and 2π − 7.5)
std::string two_turns(const std::string& limit = "") {
  return std::string(R"({"gravity": [0, 0, -9.81], "bodies": [
  {"name": "a", "mass": 1, "inertia": {"box": [0.1, 0.1, 1]}, "com": [0, 0, -0.5]},
  {"name": "b", "mass": 1, "inertia": {"box": [0.1, 0.1, 1]}, "com": [0, 0, -0.5]}],
 "constraints": [
  {"name": "j1", "type": "revolute", "bodies": ["world", "a"], "origin": {"xyz": [0, 0, 2]},
   "axis": [1, 0, 0], "q": 4, "qd": 0.5)") +
         limit + R"(},
  {"name": "j2", "type": "revolute", "bodies": ["a", "b"], "origin": {"xyz": [0, 0, -1]},
   "axis": [1, 0, 0], "q": -7.5, "qd": -0.25}]})";
}

TEST(JointSpaceStart, StatedCoordinatesAreKeptWholeTurnsIncluded) {
  const Model m = load_model_from_string(two_turns(), "s.json");
  const State& s = m.initial_state();
  ASSERT_EQ(s.q.size(), 2);
  EXPECT_EQ(s.q(0), 4.0);
  EXPECT_EQ(s.q(1), -7.5);
  EXPECT_EQ(s.u(0), 0.5);
  EXPECT_EQ(s.u(1), -0.25);
  // the bodies' described poses are the outputs of those coordinates
  Data d(m);
  for (int b = 0; b < m.nbody(); ++b) {
    const BodyState described = m.initial_body_state(b);
    EXPECT_LT((d.body[b].x - described.x).norm(), 1e-14) << b;
    EXPECT_LT((d.body[b].Q - described.Q).norm(), 1e-14) << b;
    EXPECT_LT((d.body[b].v - described.v).norm(), 1e-14) << b;
    EXPECT_LT((d.body[b].w - described.w).norm(), 1e-14) << b;
  }
  // read back from those poses, the angles lose their whole turns
  const State read = state_from_bodies(m, d.body);
  EXPECT_NEAR(read.q(0), 4.0 - 2 * M_PI, 1e-14);
  EXPECT_NEAR(read.q(1), 2 * M_PI - 7.5, 1e-14);
}

// A limit the stated angle is inside, and its value modulo 2π is not: the scene loads and
// runs (read back from the poses, it would start 2π below its limit).
TEST(JointSpaceStart, AStartInsideALimitBeyondPiStaysInside) {
  const Model m =
      load_model_from_string(two_turns(R"(, "limit": {"lower": 3.5, "upper": 4.5})"), "s.json");
  EXPECT_EQ(m.initial_state().q(0), 4.0);
  SimulationOptions o;
  o.integrator.method = "moreau";
  o.integrator.method_given = true;
  o.integrator.dt = 1e-3;
  o.integrator.duration = 0.01;
  const SimulationResult r = simulate(m, o);
  EXPECT_EQ(r.status, SimulationStatus::Completed) << r.message;
}

// forward(m, d) on the State Data(m) set, and on a maximal state the caller wrote: the
// first evaluates d.state itself, the second reads the joint coordinates off d.q, d.u.
TEST(JointSpaceStart, ForwardReadsTheStateUntilTheCallerChangesTheMaximalOne) {
  const Model m = load_model_from_string(two_turns(), "s.json");
  Data d(m);
  EXPECT_EQ(d.state.q, m.initial_state().q);
  ASSERT_EQ(forward(m, d, Formulation::Recursive), SolveStatus::Ok);
  Data by_state(m);
  ASSERT_EQ(forward(m, by_state, m.initial_state()), SolveStatus::Ok);
  EXPECT_EQ(d.udot, by_state.udot);
  // another state's maximal q, u written by hand: forward follows them, not d.state
  State other = m.initial_state();
  other.q(1) += 0.3;
  other.u(0) -= 1.0;
  Data at_other(m);
  ASSERT_EQ(forward(m, at_other, other), SolveStatus::Ok);
  d.q = at_other.q;
  d.u = at_other.u;
  ASSERT_EQ(forward(m, d, Formulation::Recursive), SolveStatus::Ok);
  EXPECT_LT((d.udot - at_other.udot).cwiseAbs().maxCoeff(), 1e-12);
}

// A run's energy reads the rotors (armature) and the joint springs from its State: equal to
// the body-state reading to round-off.
TEST(JointSpaceStart, EnergyFromTheStateEqualsEnergyFromTheBodies) {
  std::string text = two_turns();
  const std::string with = R"("armature": 0.2, "q": -7.5)";
  text.replace(text.find(R"("q": -7.5)"), std::string(R"("q": -7.5)").size(), with);
  text.replace(text.rfind("]}"), 2, R"(], "forces": [
  {"type": "joint_spring", "joint": "j2", "stiffness": 3, "rest": 0.5, "damping": 0.1}]})");
  const Model m = load_model_from_string(text, "s.json");
  Data d(m);
  const State& s = m.initial_state();
  const double T = kinetic_energy(m, d), V = potential_energy(m, d);
  EXPECT_NEAR(kinetic_energy(m, d, s), T, 1e-12 * std::abs(T));
  EXPECT_NEAR(potential_energy(m, d, s), V, 1e-12 * std::abs(V));
  // the rotor's ½ a u² (u = −0.25) is in both
  const Model plain = load_model_from_string(two_turns(), "s.json");
  const Data at_plain(plain);
  EXPECT_NEAR(T - kinetic_energy(plain, at_plain), 0.5 * 0.2 * 0.25 * 0.25, 1e-12);
}

}  // namespace
}  // namespace appell
