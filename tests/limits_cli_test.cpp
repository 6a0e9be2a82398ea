// Joint limits at the edges of what they can do, through the `appell` program: a model with
// no degrees of freedom, a start outside a limit, a limit on a loop-closing joint, a limit
// on a prescribed joint, the force of a limit that holds a joint, and `linearize` about a
// state where a limit or a contact presses (docs/contact.md, docs/derivatives.md).
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_util.hpp"

namespace appell {
namespace {

using testing::run_cli;
using testing::write_temp;

constexpr double kG = 9.81;

// a number as JSON, to the last digit
std::string num(double x) {
  std::ostringstream s;
  s << std::setprecision(17) << x;
  return s.str();
}

// one box welded to the world: nothing moves
constexpr char kWelded[] = R"({"name": "welded", "gravity": [0, 0, -9.81],
 "bodies": [{"name": "block", "mass": 2.0, "inertia": {"box": [0.1, 0.2, 0.3]},
             "position": [0.1, 0.2, 1.0]}],
 "constraints": [{"name": "weld", "type": "fixed", "bodies": ["world", "block"]}],
 "integrator": {"duration": 0.01, "dt": 0.001}})";

TEST(LimitsCli, ZeroDofModelChecksEvaluatesSimulatesAndLinearizes) {
  const std::string scene = write_temp("welded.json", kWelded);
  const auto check = run_cli("check " + scene);
  ASSERT_EQ(check.status, 0) << check.err;
  EXPECT_NE(check.out.find("degrees of freedom: 0\n"), std::string::npos) << check.out;
  const auto eval = run_cli("eval " + scene);
  ASSERT_EQ(eval.status, 0) << eval.err;
  const auto e = nlohmann::json::parse(eval.out);
  EXPECT_EQ(e["dof"], 0);
  // the weld holds the block against gravity: zero acceleration
  for (const auto& a : e["bodies"]["block"]["linear_acceleration"]) EXPECT_EQ(a.get<double>(), 0.0);
  // the state stays the initial one: the centre at (0.1, 0.2, 1.0) at every output
  const std::string traj = write_temp("welded.csv", "");
  const auto sim = run_cli("simulate " + scene + " --quiet --out " + traj);
  ASSERT_EQ(sim.status, 0) << sim.err;
  const std::string csv = testing::read_file(traj);
  std::istringstream in(csv);
  std::string header, line;
  std::getline(in, header);
  int rows = 0;
  const size_t col = [&] {
    size_t k = 0, pos = 0;
    for (size_t next; (next = header.find(',', pos)) != std::string::npos; pos = next + 1, ++k)
      if (header.substr(pos, next - pos) == "block.z") return k;
    return k;
  }();
  while (std::getline(in, line)) {
    ++rows;
    std::istringstream cells(line);
    std::string cell;
    for (size_t k = 0; k <= col; ++k) std::getline(cells, cell, ',');
    EXPECT_EQ(std::stod(cell), 1.0) << line;
  }
  EXPECT_EQ(rows, 11);
  const auto lin = run_cli("linearize " + scene);
  ASSERT_EQ(lin.status, 0) << lin.err;
  const auto l = nlohmann::json::parse(lin.out);
  EXPECT_TRUE(l["A"].empty());
  EXPECT_TRUE(l["B"].empty());
  EXPECT_TRUE(l["eigenvalues"].empty());
}

// a rod (1 kg, centre 0.2 m from the hinge along y) in joint space, hinged about −x (or +x
// when `down` is false), q = 0 horizontal: gravity's torque on q is ±m g c cos q, c = 0.2 m,
// towards +q (the upper limit) about −x, towards −q (the lower) about +x
std::string rod(double q, double lower, double upper, const std::string& extra = "",
                bool down = true) {
  return std::string(R"({"name": "rod", "gravity": [0, 0, -9.81],
 "bodies": [{"name": "rod", "mass": 1.0, "inertia": {"box": [0.02, 0.4, 0.02]},
             "com": [0, 0.2, 0]}],
 "constraints": [{"name": "hinge", "type": "revolute", "bodies": ["world", "rod"],
   "origin": {"xyz": [0, 0, 0]}, "axis": [)") +
         (down ? "-1" : "1") + R"(, 0, 0], "q": )" + num(q) + R"(, "limit": {"lower": )" +
         num(lower) + R"(, "upper": )" + num(upper) + "}}" + extra + R"(],
 "integrator": {"duration": 0.01, "dt": 0.001}})";
}

TEST(LimitsCli, StartOutsideALimitIsRefusedAtTheJointsQ) {
  const std::string scene = write_temp("outside.json", rod(1.3, -1.0, 1.0));
  for (const char* command : {"check", "eval", "simulate", "linearize"}) {
    const auto r = run_cli(std::string(command) + " " + scene);
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_EQ(r.out, "") << command;
    EXPECT_EQ(r.err.rfind("error: " + scene +
                              ": /constraints/0/q: joint 'hinge' starts 0.3 rad "
                              "past its upper limit (q = 1.3, limits [-1, 1])",
                          0),
              0u)
        << command << ": " << r.err;
  }
  // limits off: the start is the user's to choose
  const std::string off =
      write_temp("outside_off.json", rod(1.3, -1.0, 1.0).substr(0, rod(1.3, -1.0, 1.0).size() - 1) +
                                         R"(, "contact": {"joint_limits": false}})");
  EXPECT_EQ(run_cli("check " + off).status, 0);
}

TEST(LimitsCli, LimitOnALoopClosingJointIsRefused) {
  // the planar four-bar of scenes/examples: its spanning tree runs A, B, C; D closes the loop
  std::string text =
      testing::read_file(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/four_bar.json");
  const std::string d = R"("anchor": [0.4, 0, 0], "axis": [0, 1, 0]})";
  const size_t at = text.find(d);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, d.size(),
               R"("anchor": [0.4, 0, 0], "axis": [0, 1, 0], "limit": {"lower": -1, "upper": 1}})");
  const std::string scene = write_temp("four_bar_limit.json", text);
  const auto r = run_cli("check " + scene);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("error: " + scene + ": /constraints/3/limit: joint 'D' closes a loop", 0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("its limit cannot be enforced"), std::string::npos) << r.err;
}

TEST(LimitsCli, FrictionOnALoopClosingJointIsRefused) {
  std::string text =
      testing::read_file(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/four_bar.json");
  const std::string d = R"("anchor": [0.4, 0, 0], "axis": [0, 1, 0]})";
  const size_t at = text.find(d);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, d.size(), R"("anchor": [0.4, 0, 0], "axis": [0, 1, 0], "friction": 0.5})");
  const std::string scene = write_temp("four_bar_friction.json", text);
  const auto r = run_cli("eval " + scene);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(
      r.err.rfind("error: " + scene + ": /constraints/3/friction: joint 'D' closes a loop", 0), 0u)
      << r.err;
}

TEST(LimitsCli, RodHeldOnALimitReportsItsSideAndTheStaticTorque) {
  // at rest on the limit gravity presses on, at θ from horizontal: the limit's torque is
  // m g c cos θ, on the side it holds, pushing the joint away from it
  const double theta = 0.5, torque = 1.0 * kG * 0.2 * std::cos(theta);
  for (const bool upper : {true, false}) {
    const std::string scene =
        write_temp(upper ? "held_upper.json" : "held_lower.json",
                   upper ? rod(theta, -1.0, theta) : rod(-theta, -theta, 1.0, "", false));
    const auto r = run_cli("eval " + scene);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto& l = j["contacts"]["limits"]["hinge"];
    EXPECT_EQ(l["side"], upper ? "upper" : "lower") << r.out;
    EXPECT_EQ(l["state"], "stick");
    EXPECT_NEAR(l["normal_force"].get<double>(), torque, 1e-9);
    EXPECT_NEAR(l["joint_force"].get<double>(), upper ? -torque : torque, 1e-9);
  }
}

TEST(LimitsCli, NarrowRangeReportsTheSideThatHolds) {
  // both sides of a 5e-4 rad range are in the step; the one that holds is reported
  const double theta = 0.5, torque = 1.0 * kG * 0.2 * std::cos(theta);
  const std::string scene =
      write_temp("narrow.json", rod(-theta, -theta, -theta + 5e-4, "", false));
  const auto r = run_cli("eval " + scene);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto l = nlohmann::json::parse(r.out)["contacts"]["limits"]["hinge"];
  EXPECT_EQ(l["side"], "lower") << l;
  EXPECT_EQ(l["state"], "stick");
  EXPECT_NEAR(l["normal_force"].get<double>(), torque, 1e-9);
}

TEST(LimitsCli, PrescribedMotionThroughALimitIsAnErrorNotAForce) {
  const std::string rod_driven = R"({"gravity": [0, 0, -9.81],
 "bodies": [{"name": "rod", "mass": 1.0, "inertia": {"principal": [0.02, 0.001, 0.02]},
             "com": [0, 0.2, 0]}],
 "constraints": [
   {"name": "hinge", "type": "revolute", "bodies": ["world", "rod"],
    "origin": {"xyz": [0, 0, 0]}, "axis": [1, 0, 0], "q": 0.5,
    "limit": {"lower": -1.0, "upper": 0.5}},
   {"name": "drive", "type": "prescribed", "joint": "hinge", "q": "0.5 + SIGN t"}]})";
  auto scene = [&](const std::string& sign) {
    std::string text = rod_driven;
    text.replace(text.find("SIGN"), 4, sign);
    return write_temp("driven" + std::to_string(sign == "+") + ".json", text);
  };
  const auto into = run_cli("eval " + scene("+"));
  EXPECT_EQ(into.status, 3);
  EXPECT_EQ(into.out, "");
  EXPECT_NE(into.err.find("joint 'hinge' is driven past its upper limit"), std::string::npos)
      << into.err;
  const auto away = run_cli("eval " + scene("-"));
  ASSERT_EQ(away.status, 0) << away.err;
  const auto l = nlohmann::json::parse(away.out)["contacts"]["limits"]["hinge"];
  EXPECT_EQ(l["normal_force"].get<double>(), 0.0);
  EXPECT_EQ(l["state"], "open");
}

TEST(LimitsCli, LinearizeHoldsACoordinateOnItsLimit) {
  // an upper rod pressed onto its limit, a lower rod hanging from its tip: with the
  // shoulder held, the elbow swings as a pendulum about a fixed pivot,
  //   ω² = m g c / (I + m c²)   (m = 1 kg, c = 0.2 m, I = 0.02 kg m² about the centre)
  const double q1 = 0.5, I = 0.02, c = 0.2;
  const std::string text = R"({"gravity": [0, 0, -9.81],
 "bodies": [
   {"name": "upper", "mass": 1.0, "inertia": {"principal": [0.02, 0.001, 0.02]}, "com": [0, 0.2, 0]},
   {"name": "lower", "mass": 1.0, "inertia": {"principal": [0.02, 0.001, 0.02]}, "com": [0, 0.2, 0]}],
 "constraints": [
   {"name": "shoulder", "type": "revolute", "bodies": ["world", "upper"],
    "origin": {"xyz": [0, 0, 0]}, "axis": [-1, 0, 0], "q": )" +
                           num(q1) + R"(, "limit": {"lower": -1.0, "upper": )" + num(q1) + R"(}},
   {"name": "elbow", "type": "revolute", "bodies": ["upper", "lower"],
    "origin": {"xyz": [0, 0.4, 0]}, "axis": [-1, 0, 0], "q": )" +
                           num(M_PI / 2 - q1) + R"(}]})";
  const std::string scene = write_temp("held_double.json", text);
  const auto r = run_cli("linearize " + scene);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["derivatives"], "exact");
  EXPECT_EQ(j["states"], nlohmann::json({"q:elbow", "u:elbow"}));
  ASSERT_EQ(j["held_by_limits"].size(), 1u);
  EXPECT_EQ(j["held_by_limits"][0]["joint"], "shoulder");
  EXPECT_EQ(j["held_by_limits"][0]["side"], "upper");
  const double omega = std::sqrt(1.0 * kG * c / (I + 1.0 * c * c));
  ASSERT_EQ(j["eigenvalues"].size(), 2u);
  for (const auto& e : j["eigenvalues"]) {
    EXPECT_NEAR(e["re"].get<double>(), 0.0, 1e-9);
    EXPECT_NEAR(std::abs(e["im"].get<double>()), omega, 1e-9);
  }
  // B: a torque on the elbow accelerates it by 1/(I + m c²); on the held shoulder, nothing
  ASSERT_EQ(j["inputs"], nlohmann::json({"shoulder", "elbow"}));
  EXPECT_EQ(j["B"][1][0].get<double>(), 0.0);
  EXPECT_NEAR(j["B"][1][1].get<double>(), 1.0 / (I + c * c), 1e-9);
}

TEST(LimitsCli, LinearizeRefusesPressingContacts) {
  // a free box resting on the ground: its contacts carry its weight, and a linear model of
  // the free body would be wrong
  const std::string scene = write_temp("box_on_ground.json", R"({"gravity": [0, 0, -9.81],
 "bodies": [{"name": "box", "mass": 1.0, "inertia": {"box": [0.2, 0.2, 0.2]},
             "position": [0, 0, 0.1], "shapes": [{"name": "cube", "type": "box", "size": [0.2, 0.2, 0.2]}]}],
 "shapes": [{"name": "ground", "type": "plane"}],
 "integrator": {"dt": 0.001}})");
  const auto r = run_cli("linearize " + scene);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("4 contact point(s) press at this state (the first between "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("contacts are not linearized"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace appell
