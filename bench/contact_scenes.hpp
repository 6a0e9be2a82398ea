// The scenes of bench/contact_bench.cpp, for both engines (contact_scenes.cpp), and the
// MuJoCo side of its benchmarks (contact_mujoco.cpp).
#pragma once

#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <functional>
#include <string>
#include <vector>

namespace appell::contact_bench {

constexpr double kDt = 1e-3;
constexpr int kSettleSteps = 300;
constexpr double kAppellBudget = 600;  // s of wall time to settle, checked between steps
constexpr double kEdge = 0.1;          // box edge (m)
constexpr double kRamp = 0.3;          // ramp angle (rad)
constexpr double kRampMu = 0.2;
constexpr double kBallRadius = 0.1;
constexpr double kRollSpeed = 1.0;   // m/s
constexpr double kDropHeight = 2.0;  // the bouncing ball's centre at release (m)
constexpr double kRestitution = 0.8;
constexpr double kFootRadius = 0.02;
constexpr double kKneeAngle = -0.8;
inline const std::string kQuadrupedMjcf =
    std::string(APPELL_SOURCE_DIR) + "/scenes/examples/robots/quadruped_shapes.xml";

// What a scene's first free body does, for the checks: its centre and velocity (world)
struct Probe {
  double x[3], v[3], w[3];  // w: appell world frame, MuJoCo body frame (same at the start)
};

// A scene for both engines.  `check` says what is wrong with the motion ("" when right),
// called after the settle and after the window.
struct BenchScene {
  std::string name;
  std::string appell;     // scene JSON
  std::string mujoco;     // MJCF text, or "" for the file kQuadrupedMjcf as it is
  int steps = 1000;       // the timed window
  bool long_run = false;  // run only with --long
  std::string skip;       // why both benchmarks are skipped ("" to run them)
  int contacts = 0;  // the contact points a resting scene has (4 a box face on a face, 1 a foot)
  std::function<void(mjData*)> mj_start;  // MuJoCo's state at t = 0 beyond the MJCF's
  int settle = kSettleSteps;              // steps run before the timed window
  double lift = 0.0;                      // m: the first body starts this much higher (a drop)
  std::function<std::string(const Probe&)> check;
};

// a number as the scenes write it (17 digits)
std::string num(double v);

// ---- the scenes (contact_scenes.cpp) -------------------------------------------------------
// a MuJoCo scene's head (its options and ground), which kMjFooter closes
std::string mj_header(double mu, const std::string& ground_orientation = "");
constexpr const char* kMjFooter = "</worldbody></mujoco>";
// a ball of radius kBallRadius at height z, in MJCF (solref: its contact's, as an attribute)
std::string mj_ball(double z, const std::string& solref = "");
// every scene, in the order of the benchmarks
std::vector<BenchScene> make_scenes();

// ---- MuJoCo (contact_mujoco.cpp) -----------------------------------------------------------
// MuJoCo's contact is a damped spring on the penetration (a soft constraint), with no
// restitution.  Its direct form, solref="-K -B" (MuJoCo 2.2, negative values), sets the
// reference acceleration −B v − K r (r the penetration) at the constraint's full
// impedance: K gives the spring a frequency √K (1e5: 316 rad/s, about 20 steps of 1 ms a
// period, a 6 m/s ball sinking about 2 cm), and B is the damping that the bench picks, by
// bisection, so that the first bounce returns e² of the drop height.  (The default form,
// solref="timeconst dampratio", ties the stiffness to the damping ratio, 1/(timeconst
// dampratio)²: at a damping ratio low enough to bounce the spring is too stiff for 1 ms
// steps and its integration takes the energy (e = 0.26 at the lowest ratio).)
constexpr double kMjBounceStiffness = 1e5;
// the damping of MuJoCo's contact that bounces the ball by kRestitution, e what it gives
double mujoco_damping(double& e);
// one benchmark of MuJoCo's mj_step on scene s
void mujoco_bench(benchmark::State& st, const BenchScene& s);

}  // namespace appell::contact_bench
