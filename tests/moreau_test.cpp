// The Moreau–Jean stepper (engine/contact/moreau.hpp) on what it must not get wrong, checked
// against conservation laws and geometry:
//   * a free asymmetric box tumbling near its intermediate axis keeps its kinetic energy
//     and the magnitude of its angular momentum (Euler's free rigid body: both are
//     invariants), and the world angular momentum stays put;
//   * a spinning box bouncing on the ground with e = 1 and no friction keeps its energy
//     through every impact (a perfectly elastic frictionless impact conserves it);
//   * a frictionless (μ = 0) elastic ball bounces back to its height;
//   * a 300 m/s ball stops at a 1 cm wall, never beyond its face, even when its first
//     half-step would carry it past;
//   * a body deep inside another (deeper than half the thinner one's half-thickness), and
//     a body turning so fast that the rows' straight-line prediction misses a thin shape,
//     stop the run with a message instead of passing through.
#include "engine/contact/moreau.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <appell/appell.hpp>
#include <appell/contact.hpp>
#include <cmath>
#include <string>

#include "cli_util.hpp"
#include "engine/contact/ncp.hpp"
#include "engine/model/tree.hpp"

namespace appell {
namespace {

struct StepperRun {
  Model m;
  Data d;
  Eigen::VectorXd q, u;
  MoreauStepper stepper;
  explicit StepperRun(const std::string& scene)
      : m(load_model_from_string(scene)),
        d(m),
        q(m.initial_state().q),
        u(m.initial_state().u),
        stepper(m, make_contact_detector(m), options()) {}
  static MoreauOptions options() {
    MoreauOptions o;
    o.solver.tolerance = 1e-12;
    return o;
  }
  // kinetic energy plus gravity's potential, from d's body states
  double energy() const {
    double e = 0.0;
    for (int b = 0; b < m.nbody(); ++b) {
      const BodyState& s = d.body[b];
      const Body& body = m.bodies()[b];
      const Mat3 J = s.Q * body.inertia * s.Q.transpose();
      e += 0.5 * body.mass * s.v.squaredNorm() + 0.5 * s.w.dot(J * s.w) -
           body.mass * m.gravity().dot(s.x);
    }
    return e;
  }
  // body 0's angular momentum about its centre, world frame
  Vec3 spin_momentum() const {
    const BodyState& s = d.body[0];
    return s.Q * m.bodies()[0].inertia * s.Q.transpose() * s.w;
  }
};

// a flat box 0.6 × 0.3 × 0.05 m (principal moments 1 : 3.3 : 4.3) spinning at 71 rad/s
// about its intermediate axis y, with 10 rad/s off it: it flips over and over
std::string tumbling_box(const std::string& gravity, const std::string& ground) {
  return R"({"gravity": )" + gravity + R"(, "shapes": [)" + ground + R"(],
    "bodies": [{"name": "box", "mass": 0.36, "inertia": {"box": [0.6, 0.3, 0.05]},
      "position": [0, 0, 1], "angular_velocity": [10, 71, 10],
      "shapes": [{"name": "box", "type": "box", "size": [0.6, 0.3, 0.05],
                  "friction": 0, "restitution": 1}]}]})";
}

TEST(Moreau, FreeBoxTumblingAboutItsIntermediateAxisKeepsEnergyAndMomentum) {
  // the ground far below: the box touches nothing
  StepperRun r(tumbling_box("[0, 0, 0]", R"({"type": "plane", "position": [0, 0, -100]})"));
  const double h = 1e-3;
  tree_kinematics(r.m, r.q, r.u, r.d);  // d at the initial state
  const double e0 = r.energy();
  const Vec3 L0 = r.spin_momentum();
  double energy = 0.0, magnitude = 0.0, direction = 0.0, turned = 0.0;
  for (int k = 0; k < 2000; ++k) {
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok) << r.d.diagnostics.message;
    energy = std::max(energy, std::abs(r.energy() - e0) / e0);
    magnitude = std::max(magnitude, std::abs(r.spin_momentum().norm() - L0.norm()) / L0.norm());
    direction = std::max(direction, (r.spin_momentum() - L0).norm() / L0.norm());
    // ω about the box's own y axis
    const double wy = (r.d.body[0].Q.transpose() * r.d.body[0].w).y();
    turned = std::max(turned, std::abs(wy - 71.0));
  }
  EXPECT_GT(turned, 100.0);  // it flips: ω_y changes sign
  // the implicit midpoint keeps ½ ωᵀJω and |J ω| exactly: to its passes' tolerance
  EXPECT_LE(energy, 1e-10);
  EXPECT_LE(magnitude, 1e-10);
  EXPECT_LE(direction, 1e-2);  // the world's L moves by O((h ω)²) = 5e-3 only
  RecordProperty("energy_rel", std::to_string(energy));
  RecordProperty("L_direction_rel", std::to_string(direction));
}

TEST(Moreau, SpinningBoxBouncesElasticallyWithoutGainingEnergy) {
  StepperRun r(
      tumbling_box("[0, 0, -9.81]", R"({"type": "plane", "friction": 0, "restitution": 1})"));
  // a slower spin, so that it lands on corners and edges, several times in 2 s
  r.u.tail<3>() = Vec3(3, 20, 3);
  const double h = 1e-3;
  tree_kinematics(r.m, r.q, r.u, r.d);
  const double e0 = r.energy();
  int impacts = 0;
  double worst = 0.0;
  for (int k = 0; k < 2000; ++k) {
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok) << r.d.diagnostics.message;
    impacts += r.stepper.stats().impacts;
    worst = std::max(worst, (r.energy() - e0) / e0);
  }
  EXPECT_GE(impacts, 3);
  EXPECT_LE(worst, 1e-9);  // elastic, frictionless: no impact adds energy (solver tolerance)
  RecordProperty("energy_gain_rel", std::to_string(worst));
}

TEST(Moreau, FrictionlessElasticBallBouncesBackToItsHeight) {
  // μ = 0, e = 1: the cone of a frictionless contact is the half-line λ_n ≥ 0.  (It
  // returned a straight fall's negative λ_n as inside the cone: the ball was pulled into
  // the ground, then thrown out at 28 m/s, 9.8 J → 31 J.)
  EXPECT_EQ(project_cone(Eigen::Vector3d(-1, 0, 0), 0.0), Eigen::Vector3d::Zero());
  EXPECT_EQ(project_cone(Eigen::Vector3d(2, 0, 0), 0.0), Eigen::Vector3d(2, 0, 0));
  EXPECT_EQ(project_cone(Eigen::Vector3d(2, 3, 4), 0.0), Eigen::Vector3d(2, 0, 0));
  StepperRun r(R"({"gravity": [0, 0, -9.81],
    "shapes": [{"type": "plane", "friction": 0, "restitution": 1}],
    "bodies": [{"name": "ball", "mass": 1, "inertia": {"sphere": 0.1}, "position": [0, 0, 1],
      "shapes": [{"type": "sphere", "radius": 0.1, "friction": 0, "restitution": 1}]}]})");
  const double h = 1e-3;
  tree_kinematics(r.m, r.q, r.u, r.d);
  const double e0 = r.energy();
  double worst = 0.0, apex = 0.0;
  int impacts = 0;
  for (int k = 0; k < 1100; ++k) {  // one bounce: 0.43 s down, 0.43 s up
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok) << r.d.diagnostics.message;
    impacts += r.stepper.stats().impacts;
    worst = std::max(worst, std::abs(r.energy() - e0) / e0);
    if (k > 500) apex = std::max(apex, r.d.body[0].x.z());
  }
  EXPECT_EQ(impacts, 1);
  EXPECT_LE(worst, 1e-9);
  // back up to its release height, within the step's first-order reach h √(2 g h₀)
  EXPECT_NEAR(apex, 1.0, h * std::sqrt(2 * 9.81 * 0.9));
}

// a ball of radius 5 cm at 300 m/s along x, towards a wall 1 cm thick whose face is at
// x = 0.995 (its centre at 1)
std::string fast_ball(double x0) {
  return R"({"gravity": [0, 0, 0],
    "shapes": [{"name": "wall", "type": "box", "size": [0.01, 2, 2], "position": [1, 0, 0]}],
    "bodies": [{"name": "ball", "mass": 0.1, "inertia": {"sphere": 0.05},
      "position": [)" +
         std::to_string(x0) + R"(, 0, 0], "velocity": [300, 0, 0],
      "shapes": [{"name": "ball", "type": "sphere", "radius": 0.05}]}]})";
}

TEST(Moreau, FastBallStopsAtAThinWall) {
  // from afar, and from so close that the first half-step (1.5 m at h = 10 ms) would
  // carry it past the wall
  for (const double x0 : {-2.0, 0.5, 0.9}) {
    StepperRun r(fast_ball(x0));
    const double h = 0.01, face = 0.995 - 0.05;
    int impacts = 0;
    for (int k = 0; k < 20; ++k) {
      ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok)
          << r.d.diagnostics.message;
      impacts += r.stepper.stats().impacts;
      ASSERT_LE(r.d.body[0].x.x(), face + 1e-9) << x0 << " at step " << k;
    }
    EXPECT_NEAR(r.d.body[0].x.x(), face, 1e-6) << x0;  // it rests against the face
    EXPECT_EQ(impacts, 1) << x0;
  }
}

TEST(Moreau, BodyDeepInsideAnotherStopsTheRun) {
  // a box 1 m wide centred 0.3 m under the top of a 10 cm slab: deeper than half the
  // slab's half-thickness, so the nearest way out is through the slab's far side
  StepperRun r(R"({"gravity": [0, 0, -9.81],
    "shapes": [{"name": "slab", "type": "box", "size": [10, 10, 0.1], "position": [0, 0, -0.05]}],
    "bodies": [{"name": "crate", "mass": 1, "inertia": {"box": [1, 1, 1]}, "position": [0, 0, 0.2],
      "shapes": [{"name": "crate", "type": "box", "size": [1, 1, 1]}]}]})");
  EXPECT_EQ(r.stepper.step(0.0, 1e-3, r.q, r.u, r.d), SolveStatus::Inconsistent);
  EXPECT_TRUE(r.stepper.stats().too_deep);
  const std::string& why = r.d.diagnostics.message;
  EXPECT_NE(why.find("shape 'crate' of body 'crate' and shape 'slab' of world overlap by"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("lower dt or separate them"), std::string::npos) << why;
}

TEST(Moreau, RodTurningTooFastNearAThinWallStopsTheRun) {
  // a 2 m rod turning at 300 rad/s: its tips leave the straight line by ½ r (ω h)² ≈ 4.5 cm
  // in a 1 ms step, more than the 5 mm the wall's half-thickness allows
  const std::string rod = R"({"gravity": [0, 0, 0],
    "shapes": [{"name": "wall", "type": "box", "size": [0.01, 4, 4], "position": [1.1, 0, 0]}],
    "bodies": [{"name": "rod", "mass": 1, "inertia": {"box": [2, 0.02, 0.02]},
      "position": [X, 0, 0], "angular_velocity": [0, 0, 300],
      "shapes": [{"name": "rod", "type": "box", "size": [2, 0.02, 0.02]}]}]})";
  std::string near = rod, far = rod;
  near.replace(near.find('X'), 1, "0");
  far.replace(far.find('X'), 1, "-2");
  StepperRun r(near);
  EXPECT_EQ(r.stepper.step(0.0, 1e-3, r.q, r.u, r.d), SolveStatus::Inconsistent);
  EXPECT_NE(r.d.diagnostics.message.find("body 'rod' turns 0.3 rad in one step"), std::string::npos)
      << r.d.diagnostics.message;
  // far from the wall it spins on
  StepperRun f(far);
  for (int k = 0; k < 10; ++k)
    ASSERT_EQ(f.stepper.step(k * 1e-3, 1e-3, f.q, f.u, f.d), SolveStatus::Ok)
        << f.d.diagnostics.message;
}

TEST(Moreau, CliStopsWithExit3AndKeepsTheSamplesBeforeIt) {
  // the spinning rod flies at the wall at 10 m/s: the run stops where it comes near,
  // with the reason, and keeps the trajectory up to there
  const std::string scene = testing::write_temp("moreau_rod.json", R"({
    "gravity": [0, 0, 0],
    "shapes": [{"name": "wall", "type": "box", "size": [0.01, 4, 4], "position": [1.1, 0, 0]}],
    "bodies": [{"name": "rod", "mass": 1, "inertia": {"box": [2, 0.02, 0.02]},
      "position": [-2, 0, 0], "velocity": [10, 0, 0], "angular_velocity": [0, 0, 300],
      "shapes": [{"name": "rod", "type": "box", "size": [2, 0.02, 0.02]}]}],
    "integrator": {"method": "moreau", "duration": 1, "dt": 0.001}})");
  const std::string traj = testing::write_temp("moreau_rod.csv", "");
  const testing::CliResult r = testing::run_cli("simulate " + scene + " --quiet --out " + traj);
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("contact: body 'rod' turns 0.3 rad in one step"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("lower dt"), std::string::npos) << r.err;
  // it came within a step's reach of the wall after about 0.1 s (2 m at 10 m/s, less the
  // rod's 1 m half-length and the reach): the samples before are kept
  const std::string csv = testing::read_file(traj);
  EXPECT_GT(std::count(csv.begin(), csv.end(), '\n'), 50);
}

TEST(Moreau, SteppingWithoutAnObserverEvaluatesTheSampleOnlyWhenDataIsRead) {
  // the tumbling box dropped on the ground: impacts, then sliding and resting contact
  const Scene scene = load_scene_from_string(
      tumbling_box("[0, 0, -9.81]", R"({"type": "plane", "friction": 0.5})"));
  const Model m = compile(scene);
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.integrator.method = "moreau";
  o.integrator.dt = 1e-3;
  o.integrator.duration = 0.6;
  // A: an observer at every step, which sees the sample's accelerations (a full forward
  // pass at the step's end state)
  std::vector<Eigen::VectorXd> seen_x, seen_udot;
  Simulation a(m, o);
  const Observer observe = [&](const Sample& s) {
    seen_x.push_back(Eigen::Vector3d(s.data.body[0].x));
    seen_udot.push_back(s.data.udot);
  };
  ASSERT_TRUE(a.start(observe));
  while (a.step(observe)) {
  }
  ASSERT_TRUE(a.result().ok()) << a.result().message;
  ASSERT_EQ(static_cast<long>(seen_x.size()), a.result().samples);
  ASSERT_GE(a.result().impacts, 1);
  // B: no observer, data() read after every step: the same sample, bit for bit
  Simulation b(m, o);
  ASSERT_TRUE(b.start());
  for (size_t k = 1; b.step(); ++k) {
    ASSERT_LT(k, seen_x.size());
    ASSERT_EQ(Eigen::Vector3d(b.data().body[0].x), seen_x[k]) << "step " << k;
    ASSERT_EQ(b.data().udot, seen_udot[k]) << "step " << k;
  }
  EXPECT_EQ(b.result().samples, a.result().samples);
  // C: no observer, data() never read: no sample evaluated after t = 0, and the same
  // motion (the steps do not depend on the samples' evaluations)
  Simulation c(m, o);
  ASSERT_TRUE(c.start());
  const long at_start = c.result().output_evaluations;
  while (c.step()) {
  }
  EXPECT_EQ(c.result().output_evaluations, at_start);
  EXPECT_EQ(a.result().output_evaluations - at_start, a.result().steps);
  EXPECT_EQ(c.state(), a.state());
  EXPECT_EQ(c.result().samples, a.result().samples);
  // read at the end, it is the last sample
  EXPECT_EQ(c.data().udot, seen_udot.back());
}

}  // namespace
}  // namespace appell
