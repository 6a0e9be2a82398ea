// Contact scenes shipped in scenes/examples/contact_*.json against results known in closed
// form, each run with the model's own detector and the Moreau–Jean stepper:
//   - a rimless wheel reaches McGeer's limit cycle (McGeer 1990, "Passive dynamic walking"):
//     an inelastic spoke impact keeps the angular momentum about the new contact point,
//     (I + m L² cos 2α) ω⁻ = (I + m L²) ω⁺, and between impacts the energy grows by the
//     drop m g L (cos(α − γ) − cos(α + γ)), so the cycle's largest rate solves
//     ω⁻² (1 − r²) = 4 m g L sin α sin γ / (I + m L²),  r = (I + m L² cos 2α)/(I + m L²).
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/contact.hpp>
#include <cmath>
#include <string>

#include "engine/contact/moreau.hpp"

namespace appell {
namespace {

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

}  // namespace
}  // namespace appell
