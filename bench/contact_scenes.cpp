// The scenes of the contact benchmarks (bench/contact_bench.cpp), each in both engines' forms:
// appell's scene JSON and MuJoCo's MJCF, with the checks of their motion.
#include "contact_scenes.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace appell::contact_bench {

std::string num(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

// <size> is filled in per model (mujoco_load); the ground's friction is each scene's
std::string mj_header(double mu, const std::string& ground_orientation) {
  return R"(<mujoco><compiler angle="radian"/><size nconmax="@NCON@" njmax="@NJ@"/>)"
         R"(<option timestep="0.001" cone="elliptic" solver="Newton" gravity="0 0 -9.81"/>)"
         R"(<worldbody><geom type="plane" size="0 0 1" friction=")" +
         num(mu) + R"( 0.005 0.0001")" + ground_orientation + "/>";
}
std::string mj_ball(double z, const std::string& solref) {
  return "<body pos=\"0 0 " + num(z) + "\"><freejoint/><geom type=\"sphere\" size=\"" +
         num(kBallRadius) + "\" mass=\"1\" friction=\"0.8 0.005 0.0001\"" + solref + "/></body>";
}

namespace {
// ---- geometry shared by both sides -------------------------------------------------------

// box k of n resting apart on the ground, 25 cm apart on a square grid
void grid(int k, int n, double& x, double& y) {
  int side = 1;
  while (side * side < n) ++side;
  x = 0.25 * (k % side);
  y = 0.25 * (k / side);
}
// box k of a pile of n: five layers of n/5 on a near-square grid 2 mm apart, every other
// layer shifted by a quarter edge in x and y
void pile(int k, int n, double& x, double& y, double& z) {
  const int per_layer = n / 5;
  int cols = 1;
  while (cols * cols < per_layer) ++cols;
  const int layer = k / per_layer, i = k % per_layer;
  const double shift = (layer % 2) * kEdge / 4;
  x = (i % cols) * (kEdge + 0.002) + shift;
  y = (i / cols) * (kEdge + 0.002) + shift;
  z = kEdge / 2 + layer * kEdge;
}
// the torso's height with both knees at kKneeAngle and the feet on the ground
double standing_height() {
  return 0.2 + 0.2 * std::cos(kKneeAngle) + kFootRadius;
}

std::string vec(double a, double b, double c, const char* sep = ", ") {
  return num(a) + sep + num(b) + sep + num(c);
}

// ---- appell scenes ----------------------------------------------------------------------
std::string appell_body(const std::string& name, const std::string& shape_and_inertia, double x,
                        double y, double z, const std::string& extra = "") {
  return R"({"name": ")" + name + R"(", "mass": 1, )" + shape_and_inertia + R"(, "position": [)" +
         vec(x, y, z) + "]" + extra + "}";
}
std::string appell_box(int k, double x, double y, double z, double mu = 0.8,
                       const std::string& extra = "") {
  const std::string e = vec(kEdge, kEdge, kEdge);
  return appell_body("box" + std::to_string(k),
                     R"("inertia": {"box": [)" + e + R"(]}, "shapes": [{"type": "box", "size": [)" +
                         e + R"(], "friction": )" + num(mu) + "}]",
                     x, y, z, extra);
}
std::string appell_ball(double z, double mu, double e, const std::string& extra = "") {
  return appell_body("ball",
                     R"("inertia": {"sphere": )" + num(kBallRadius) +
                         R"(}, "shapes": [{"type": "sphere", "radius": )" + num(kBallRadius) +
                         R"(, "friction": )" + num(mu) + R"(, "restitution": )" + num(e) + "}]",
                     0, 0, z, extra);
}

std::string appell_scene(const std::vector<std::string>& bodies, const std::string& ground) {
  std::string s = R"({"gravity": [0, 0, -9.81], "shapes": [)" + ground + R"(], "bodies": [)";
  for (size_t k = 0; k < bodies.size(); ++k) s += (k ? ", " : "") + bodies[k];
  return s + R"(], "integrator": {"method": "moreau", "duration": 1000, "dt": )" + num(kDt) + "}}";
}
const std::string kGround = R"({"name": "ground", "type": "plane", "friction": 0.8})";

std::string appell_quadruped() {
  std::ostringstream s;
  s << R"({"gravity": [0, 0, -9.81], "shapes": [)" << kGround << R"(], "include": {"urdf": ")"
    << APPELL_SOURCE_DIR << R"(/scenes/examples/robots/quadruped.urdf", "base": "floating", )"
    << R"("q": {"root_joint": {"position": [0, 0, )" << num(standing_height()) << "]}";
  for (const char* leg : {"fl", "fr", "hl", "hr"}) s << ", \"" << leg << "_knee\": " << kKneeAngle;
  s << "}}, \"forces\": [";
  bool first = true;
  for (const char* leg : {"fl", "fr", "hl", "hr"}) {
    for (const char* joint : {"hip", "knee"}) {
      s << (first ? "" : ", ") << R"({"type": "pd", "joint": ")" << leg << "_" << joint
        << R"(", "kp": 200, "kd": 5, "target": ")" << (joint[0] == 'k' ? kKneeAngle : 0.0) << "\"}";
      first = false;
    }
  }
  s << R"(], "integrator": {"method": "moreau", "duration": 1000, "dt": )" << num(kDt) << "}}";
  return s.str();
}

// ---- MuJoCo scenes ----------------------------------------------------------------------
std::string mj_box(double x, double y, double z, double mu = 0.8,
                   const std::string& orientation = "") {
  return "<body pos=\"" + vec(x, y, z, " ") + "\"" + orientation + "><freejoint/>" +
         "<geom type=\"box\" size=\"" + vec(kEdge / 2, kEdge / 2, kEdge / 2, " ") +
         "\" mass=\"1\" friction=\"" + num(mu) + " 0.005 0.0001\"/></body>";
}

// quadruped.urdf in MJCF: the same masses, inertias, frames, axes and limits, sphere feet
std::string mj_quadruped() {
  std::ostringstream s;
  s.precision(17);
  s << mj_header(0.8) << "<body name=\"torso\" pos=\"0 0 " << standing_height() << "\"><freejoint/>"
    << R"(<inertial pos="0.01 0 0" mass="10" fullinertia="0.05 0.2 0.22 0 0.001 0"/>)"
    << R"(<geom type="box" size="0.3 0.15 0.05" contype="0" conaffinity="1"/>)";
  const struct {
    const char* name;
    double x, y;
  } legs[] = {{"fl", 0.25, 0.12}, {"fr", 0.25, -0.12}, {"hl", -0.25, 0.12}, {"hr", -0.25, -0.12}};
  for (const auto& leg : legs) {
    s << "<body name=\"" << leg.name << "_thigh\" pos=\"" << leg.x << " " << leg.y << " 0\">"
      << "<joint name=\"" << leg.name
      << R"(_hip" type="hinge" axis="1 0 0" limited="true" range="-1 1" damping="5"/>)"
      << R"(<inertial pos="0 0 -0.1" mass="1" diaginertia="0.0035 0.0035 0.0005"/>)"
      << "<body name=\"" << leg.name << "_shin\" pos=\"0 0 -0.2\">"
      << "<joint name=\"" << leg.name
      << R"(_knee" type="hinge" axis="0 1 0" limited="true" range="-2.6 0.1" damping="5"/>)"
      << R"(<inertial pos="0 0 -0.1" mass="0.5" diaginertia="0.0017 0.0017 0.0002"/>)"
      << "<geom type=\"sphere\" size=\"" << kFootRadius
      << R"(" pos="0 0 -0.2" friction="0.8 0.005 0.0001"/></body></body>)";
  }
  s << "</body></worldbody><actuator>";
  for (const auto& leg : legs)
    for (const char* joint : {"hip", "knee"})
      s << "<position joint=\"" << leg.name << "_" << joint << "\" kp=\"200\"/>";
  s << "</actuator></mujoco>";
  return s.str();
}

// ---- the scenes -------------------------------------------------------------------------
std::string check_sliding(const Probe& p) {
  // along the ramp, downhill: (cos θ, 0, −sin θ); its distance from the ramp: n · x − edge/2
  const double v = p.v[0] * std::cos(kRamp) - p.v[2] * std::sin(kRamp);
  const double gap = p.x[0] * std::sin(kRamp) + p.x[2] * std::cos(kRamp) - kEdge / 2;
  if (!(v > 0.1)) return "the box is not sliding (downhill speed " + num(v) + " m/s)";
  if (std::abs(gap) > 5e-3) return "the box left the ramp (" + num(gap) + " m from it)";
  return "";
}
std::string check_rolling(const Probe& p) {
  const double v = std::hypot(p.v[0], p.v[1]);
  if (!(v > 0.5 * kRollSpeed)) return "the ball is not rolling (speed " + num(v) + " m/s)";
  if (std::abs(p.x[2] - kBallRadius) > 5e-3)
    return "the ball left the ground (z " + num(p.x[2]) + ")";
  return "";
}
std::string check_standing(const Probe& p) {
  if (std::abs(p.x[2] - standing_height()) > 0.05)
    return "the quadruped is not standing (torso at z " + num(p.x[2]) + " m)";
  return "";
}

// ---- the scenes, one function each ----------------------------------------------------------
// a box sliding down a ramp: the ramp is the ground turned by kRamp about y
BenchScene slide_scene() {
  BenchScene s;
  s.name = "slide";
  s.steps = 3000;
  const double n[3] = {std::sin(kRamp), 0, std::cos(kRamp)};
  const double c = kEdge / 2;
  const std::string turn = R"(, "orientation": {"axis_angle": [0, 1, 0, )" + num(kRamp) + "]}";
  s.appell =
      appell_scene({appell_box(0, c * n[0], 0, c * n[2], kRampMu, turn)},
                   R"({"name": "ramp", "type": "plane", "friction": )" + num(kRampMu) + turn + "}");
  const std::string mj_turn = " axisangle=\"0 1 0 " + num(kRamp) + "\"";
  s.mujoco =
      mj_header(kRampMu, mj_turn) + mj_box(c * n[0], 0, c * n[2], kRampMu, mj_turn) + kMjFooter;
  s.check = check_sliding;
  return s;
}

// a ball of restitution e (appell) at height z on the ground, with appell's `extra` keys and
// MuJoCo's `solref` attribute
BenchScene ball_scene(const std::string& name, double z, double e, const std::string& extra,
                      const std::string& solref) {
  BenchScene s;
  s.name = name;
  s.steps = 3000;
  s.appell = appell_scene({appell_ball(z, 0.8, e, extra)}, kGround);
  s.mujoco = mj_header(0.8) + mj_ball(z, solref) + kMjFooter;
  return s;
}

// a ball rolling without slipping
BenchScene roll_scene() {
  const std::string v = R"(, "velocity": [)" + num(kRollSpeed) +
                        R"(, 0, 0], "angular_velocity": [0, )" + num(kRollSpeed / kBallRadius) +
                        ", 0]";
  BenchScene s = ball_scene("roll", kBallRadius, 0, v, "");
  s.mj_start = [](mjData* d) {  // free joint: linear velocity in the world, angular in the body
    d->qvel[0] = kRollSpeed;
    d->qvel[4] = kRollSpeed / kBallRadius;
  };
  s.check = check_rolling;
  return s;
}

// a bouncing ball (MuJoCo's damping picked for its restitution, and printed)
BenchScene bounce_scene() {
  double e = 0;
  const double damping = mujoco_damping(e);
  const std::string solref = num(-kMjBounceStiffness) + " " + num(-damping);
  std::printf(
      "bounce: MuJoCo solref=\"%s\" (stiffness, damping; the damping by bisection): "
      "first bounce e = %.4f (appell: e = %.2f, Newton's law)\n",
      solref.c_str(), e, kRestitution);
  return ball_scene("bounce", kDropHeight, kRestitution, "", " solref=\"" + solref + "\"");
}

// s's texts in both engines: boxes k = 0, 1, ... with their centres at `centres`, on the ground
void boxes_on_ground(BenchScene& s, const std::vector<std::array<double, 3>>& centres) {
  std::vector<std::string> bodies;
  s.mujoco = mj_header(0.8);
  for (size_t k = 0; k < centres.size(); ++k) {
    const auto& [x, y, z] = centres[k];
    bodies.push_back(appell_box(static_cast<int>(k), x, y, z));
    s.mujoco += mj_box(x, y, z);
  }
  s.appell = appell_scene(bodies, kGround);
  s.mujoco += kMjFooter;
}

// a column of n boxes
BenchScene stack_scene(int n) {
  BenchScene s;
  s.name = "stack/" + std::to_string(n);
  s.contacts = 4 * n;
  s.steps = n <= 10 ? 2000 : 1000;
  std::vector<std::array<double, 3>> centres;
  for (int k = 0; k < n; ++k) centres.push_back({0, 0, kEdge / 2 + k * kEdge});
  boxes_on_ground(s, centres);
  return s;
}

// a pile of n boxes
BenchScene pile_scene(int n) {
  BenchScene s;
  s.name = "pile/" + std::to_string(n);
  s.steps = n <= 20 ? 500 : n <= 100 ? 100 : 10;
  s.long_run = n > 20;
  std::vector<std::array<double, 3>> centres(n);
  for (int k = 0; k < n; ++k) pile(k, n, centres[k][0], centres[k][1], centres[k][2]);
  boxes_on_ground(s, centres);
  return s;
}

// n boxes resting apart
BenchScene boxes_scene(int n) {
  BenchScene s;
  s.name = "boxes/" + std::to_string(n);
  s.contacts = 4 * n;
  s.steps = n <= 10 ? 2000 : n <= 100 ? 500 : 50;
  std::vector<std::array<double, 3>> centres(n);
  for (int k = 0; k < n; ++k) {
    grid(k, n, centres[k][0], centres[k][1]);
    centres[k][2] = kEdge / 2;
  }
  boxes_on_ground(s, centres);
  return s;
}

// a quadruped standing on its four feet, `appell` its scene
BenchScene standing_quadruped(const std::string& name, const std::string& appell) {
  BenchScene s;
  s.name = name;
  s.contacts = 4;
  s.steps = 3000;
  s.appell = appell;
  s.check = check_standing;
  return s;
}

// the URDF quadruped (MuJoCo: the same model in MJCF)
BenchScene quadruped_scene() {
  BenchScene s = standing_quadruped("quadruped", appell_quadruped());
  s.mujoco = mj_quadruped();
  s.mj_start = [](mjData* d) {  // qpos: the free joint (7), then hip, knee per leg
    for (int leg = 0; leg < 4; ++leg) {
      d->qpos[7 + 2 * leg + 1] = kKneeAngle;
      d->ctrl[2 * leg + 1] = kKneeAngle;
    }
  };
  return s;
}

// the MJCF quadruped, one file for both
BenchScene quadruped_mjcf_scene() {
  BenchScene s = standing_quadruped(
      "quadruped_mjcf",
      R"({"include": {"mjcf": ")" + kQuadrupedMjcf +
          R"(", "keyframe": "stand"}, "integrator": {"method": "moreau", "duration": 1000, "dt": )" +
          num(kDt) + "}}");
  s.mj_start = [](mjData*) {};  // the keyframe, in mujoco_bench
  return s;
}

// the same robot dropped from 0.1 m above its stance: it lands on its feet and comes
// to rest under its servos within the window, which times the fall, the impacts and
// the settling (no settle before it)
BenchScene quadruped_drop_scene() {
  BenchScene s = quadruped_mjcf_scene();
  s.name = "quadruped_drop";
  s.settle = 0;
  s.lift = 0.1;
  s.steps = 1500;
  return s;
}

}  // namespace

std::vector<BenchScene> make_scenes() {
  std::vector<BenchScene> scenes = {slide_scene(), roll_scene(), bounce_scene()};
  for (int n : {5, 10, 20}) scenes.push_back(stack_scene(n));
  for (int n : {20, 100, 1000}) scenes.push_back(pile_scene(n));
  for (int n : {10, 100, 1000}) scenes.push_back(boxes_scene(n));
  scenes.push_back(quadruped_scene());
  scenes.push_back(quadruped_mjcf_scene());
  scenes.push_back(quadruped_drop_scene());
  return scenes;
}

}  // namespace appell::contact_bench
