// Contact scenes shipped in scenes/examples/contact_*.json against results known in closed
// form, each run with the model's own detector and the Moreau–Jean stepper:
//   - a rimless wheel reaches McGeer's limit cycle (McGeer 1990, "Passive dynamic walking"):
//     an inelastic spoke impact keeps the angular momentum about the new contact point,
//     (I + m L² cos 2α) ω⁻ = (I + m L²) ω⁺, and between impacts the energy grows by the
//     drop m g L (cos(α − γ) − cos(α + γ)), so the cycle's largest rate solves
//     ω⁻² (1 − r²) = 4 m g L sin α sin γ / (I + m L²),  r = (I + m L² cos 2α)/(I + m L²);
//   - Newton's cradle: equal balls with e = 1 a little apart meet one pair at a time, and
//     each such impact exchanges their velocities (momentum and energy kept), so the last
//     ball leaves at the first's speed and rises to its height, the others stay put;
//   - a stack of ten boxes stands: every box stays where it was put (1e-9 m) and the ground
//     carries the stack's weight;
//   - a capsule pinched between two pads with 5 N (μ = 0.5, so up to 5 N of friction
//     against its 0.98 N weight) sticks: it does not creep (1e-9 m in 3 s), each pad
//     presses with 5 N and friction carries exactly the weight.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/contact.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "engine/contact/moreau.hpp"

namespace appell {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct SceneRun {
  Model m;
  Data d;
  Eigen::VectorXd q, u;
  MoreauStepper stepper;
  explicit SceneRun(const std::string& scene, double tolerance = 1e-12)
      : m(load_model(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/" + scene)),
        d(m),
        q(m.initial_state().q),
        u(m.initial_state().u),
        stepper(m, make_contact_detector(m), options(tolerance)) {
    EXPECT_EQ(forward(m, d, State{0.0, q, u}), SolveStatus::Ok);
  }
  static MoreauOptions options(double tolerance) {
    MoreauOptions o;
    o.solver.tolerance = tolerance;
    return o;
  }
  double energy() const { return kinetic_energy(m, d) + potential_energy(m, d); }
};

// The mean of the cycles' largest rate (the rate just before an impact), at step h.
double rimless_wheel_peak(double h, double* depth, int* impacts) {
  SceneRun r("contact_rimless_wheel.json");
  const int n = static_cast<int>(std::lround(3.0 / h));
  double fastest = 0.0;
  std::vector<double> peaks;
  *depth = 0.0;
  *impacts = 0;
  for (int k = 0; k < n; ++k) {
    if (r.stepper.step(k * h, h, r.q, r.u, r.d) != SolveStatus::Ok || !r.stepper.stats().converged)
      return NAN;
    *impacts += r.stepper.stats().impacts;
    *depth = std::max(*depth, r.stepper.stats().penetration);
    if (r.stepper.stats().impacts > 0) {
      peaks.push_back(fastest);
      fastest = 0.0;
    } else {
      fastest = std::max(fastest, r.d.body[0].w.y());
    }
  }
  if (peaks.size() < 4) return NAN;
  double sum = 0.0;
  for (double p : peaks) sum += p;
  return sum / static_cast<double>(peaks.size());
}

TEST(ContactBenchmarks, RimlessWheelReachesMcGeersLimitCycle) {
  // the scene: spokes L = 0.5 m, eight of them (α = π/8), m = 1 kg, I = 0.025 kg m², a slope
  // of γ = 0.08 rad (gravity tilted), μ = 1 (no slip)
  const Model m =
      load_model(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/contact_rimless_wheel.json");
  const double L = 0.5, mass = 1.0, I = 0.025, alpha = M_PI / 8;
  const double g = m.gravity().norm(), gamma = std::atan2(m.gravity().x(), -m.gravity().z());
  ASSERT_NEAR(gamma, 0.08, 1e-12);
  const double ratio = (I + mass * L * L * std::cos(2 * alpha)) / (I + mass * L * L);
  const double w_minus = std::sqrt(4 * mass * g * L * std::sin(alpha) * std::sin(gamma) /
                                   ((I + mass * L * L) * (1 - ratio * ratio)));
  // Moreau's scheme meets an impact within a step, first order in h: the error halves with h
  double depth = 0.0, depth2 = 0.0;
  int impacts = 0, impacts2 = 0;
  const double coarse = rimless_wheel_peak(5e-4, &depth, &impacts) / w_minus - 1;
  const double fine = rimless_wheel_peak(2.5e-4, &depth2, &impacts2) / w_minus - 1;
  RecordProperty("peak_rate_error_h5e-4", std::to_string(coarse));
  RecordProperty("peak_rate_error_h2.5e-4", std::to_string(fine));
  EXPECT_LT(std::abs(coarse), 1e-2);
  EXPECT_LT(std::abs(fine), 0.7 * std::abs(coarse));
  // one impact per spoke, met by its two ends (the prism's front and back vertices): the
  // same spokes at both steps
  EXPECT_EQ(impacts, impacts2);
  EXPECT_EQ(impacts % 2, 0);
  EXPECT_GE(impacts / 2, 4);
  EXPECT_LE(std::max(depth, depth2), 1e-6);
}

TEST(ContactBenchmarks, LightHubRimlessWheelConvergesOnItsCycleInFewIterations) {
  // the shipped wheel with a hub 12.5 times lighter in rotation (I = 0.002 kg m²): each
  // spoke impact puts two contacts on a body whose G spans 0.28 to 501 (N·s)⁻¹·m/s, where
  // ADMM alone took up to 1,700 iterations a step; Newton's steps once ADMM stalls for 16
  // iterations meet the tolerance.  Started on the heavy wheel's cycle, it settles on its own
  // (McGeer's formula with this I) within a few impacts.
  nlohmann::json j = nlohmann::json::parse(
      read_text(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/contact_rimless_wheel.json"));
  const double I = 0.002, L = 0.5, mass = 1.0, alpha = M_PI / 8;
  j["bodies"][0]["inertia"] = {{"principal", {I, I, I}}};
  const Scene scene = load_scene_from_string(
      j.dump(), std::string(APPELL_SOURCE_DIR) + "/scenes/examples/light_wheel.json");
  const Model m = compile(scene);
  Data d(m);
  Eigen::VectorXd q = m.initial_state().q, u = m.initial_state().u;
  ASSERT_EQ(forward(m, d, State{0.0, q, u}), SolveStatus::Ok);
  MoreauStepper stepper(m, make_contact_detector(m), SceneRun::options(1e-12));
  const double g = m.gravity().norm(), gamma = std::atan2(m.gravity().x(), -m.gravity().z());
  const double ratio = (I + mass * L * L * std::cos(2 * alpha)) / (I + mass * L * L);
  const double w_minus = std::sqrt(4 * mass * g * L * std::sin(alpha) * std::sin(gamma) /
                                   ((I + mass * L * L) * (1 - ratio * ratio)));
  const double h = 5e-4;
  std::vector<double> peaks;
  double fastest = 0.0;
  int most = 0;
  for (int k = 0; k < 6000; ++k) {
    ASSERT_EQ(stepper.step(k * h, h, q, u, d), SolveStatus::Ok) << "step " << k;
    ASSERT_TRUE(stepper.stats().converged) << "step " << k;
    most = std::max(most, stepper.stats().iterations);
    if (stepper.stats().impacts > 0) {
      peaks.push_back(fastest);
      fastest = 0.0;
    } else {
      fastest = std::max(fastest, d.body[0].w.y());
    }
  }
  EXPECT_LE(most, 256);
  ASSERT_GE(peaks.size(), 4u);
  // each cycle nearer McGeer's rate than the last (the first peak is the start's, not a
  // cycle's), the last within the scheme's first-order error at this step
  for (size_t k = 2; k < peaks.size(); ++k)
    EXPECT_LT(std::abs(peaks[k] - w_minus), std::abs(peaks[k - 1] - w_minus)) << "cycle " << k;
  EXPECT_NEAR(peaks.back() / w_minus, 1.0, 5e-3);
}

TEST(ContactBenchmarks, NewtonsCradleSendsTheLastBallToTheFirstsHeight) {
  SceneRun r("contact_newtons_cradle.json");
  const double h = 2e-4, bottom = 0.5;
  const double e0 = r.energy(), z0 = r.d.body[0].x.z() - bottom;
  std::vector<double> rise(5, 0.0);
  double drift = 0.0, depth = 0.0;
  for (int k = 0; k < 4500; ++k) {
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok) << k;
    ASSERT_TRUE(r.stepper.stats().converged) << k;
    for (int b = 1; b < 5; ++b) rise[b] = std::max(rise[b], r.d.body[b].x.z() - bottom);
    drift = std::max(drift, std::abs(r.energy() - e0));
    depth = std::max(depth, r.stepper.stats().penetration);
  }
  RecordProperty("last_ball_rise_over_first", std::to_string(rise[4] / z0));
  // the strings turn each pair's line of centres by the 2 mm gaps' angle (4 mrad), so a
  // little motion stays behind in the others: 0.5 % of the height here
  EXPECT_NEAR(rise[4] / z0, 1.0, 1e-2);
  for (int b = 1; b < 4; ++b) EXPECT_LT(rise[b], 5e-3 * z0) << "ball " << b + 1;
  EXPECT_LT(drift, 1e-8 * e0);  // elastic impacts and a frictionless pivot keep the energy
  EXPECT_LE(depth, 1e-6);
}

TEST(ContactBenchmarks, StackOfTenBoxesStands) {
  SceneRun r("contact_box_stack.json");
  // 3 s at 5 ms here (the shipped scene runs 10 s at 2 ms: `appell simulate` it)
  const double h = 5e-3;
  std::vector<Vec3> x0;
  for (int b = 0; b < r.m.nbody(); ++b) x0.push_back(r.d.body[b].x);
  double moved = 0.0, depth = 0.0;
  int impacts = 0;
  for (int k = 0; k < 600; ++k) {
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok) << k;
    ASSERT_TRUE(r.stepper.stats().converged) << k;
    for (int b = 0; b < r.m.nbody(); ++b) moved = std::max(moved, (r.d.body[b].x - x0[b]).norm());
    depth = std::max(depth, r.stepper.stats().penetration);
    impacts += r.stepper.stats().impacts;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", moved);
  RecordProperty("largest_displacement", text);
  EXPECT_LT(moved, 1e-9);
  EXPECT_EQ(impacts, 0);
  EXPECT_LE(depth, 1e-6);
  // the ground's normal impulses over the last step carry the ten boxes' weight
  double ground = 0.0;
  for (const ContactSample& c : r.stepper.records())
    if (c.point.body_a == kWorld || c.point.body_b == kWorld) ground += c.impulse(0) / h;
  EXPECT_NEAR(ground / (10 * 1.0 * r.m.gravity().norm()), 1.0, 1e-9);
}

TEST(ContactBenchmarks, PinchedCapsuleHoldsItsWeightWithoutCreep) {
  SceneRun r("contact_pinched_capsule.json");
  const double h = 1e-3, squeeze = 5.0;
  const int capsule = r.m.body_index("capsule");
  const Vec3 x0 = r.d.body[capsule].x;
  double moved = 0.0, depth = 0.0;
  for (int k = 0; k < 3000; ++k) {
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok) << k;
    ASSERT_TRUE(r.stepper.stats().converged) << k;
    moved = std::max(moved, (r.d.body[capsule].x - x0).norm());
    depth = std::max(depth, r.stepper.stats().penetration);
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", moved);
  RecordProperty("capsule_displacement", text);
  EXPECT_LT(moved, 1e-9);
  EXPECT_LE(depth, 1e-6);
  // forces on the capsule over the last step: each pad's normal force is the squeeze, and
  // their friction forces carry the weight
  Vec3 normal_fixed = Vec3::Zero(), normal_sliding = Vec3::Zero(), friction = Vec3::Zero();
  for (const ContactSample& c : r.stepper.records()) {
    ASSERT_TRUE(c.point.body_a == capsule || c.point.body_b == capsule);
    const double sign = c.point.body_b == capsule ? 1.0 : -1.0;  // along the force on it
    const Vec3 n = sign * c.impulse(0) / h * c.point.normal;
    (c.point.body_a == kWorld || c.point.body_b == kWorld ? normal_fixed : normal_sliding) += n;
    friction += sign * (c.impulse(1) * c.t1 + c.impulse(2) * c.t2) / h;
  }
  EXPECT_NEAR(normal_fixed.x(), squeeze, 1e-9);
  EXPECT_NEAR(normal_sliding.x(), -squeeze, 1e-9);
  const double weight = 0.1 * r.m.gravity().norm();
  EXPECT_NEAR(friction.z(), weight, 1e-9);
  EXPECT_NEAR(friction.x(), 0.0, 1e-9);
  EXPECT_NEAR(friction.y(), 0.0, 1e-9);
}

}  // namespace
}  // namespace appell
