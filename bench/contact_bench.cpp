// Contact, side by side with MuJoCo (built only when MuJoCo is found; `make bench` installs it).
// One time step of each engine on the same scenes, at the same dt (1 ms), one benchmark per
// engine and scene (BM_Appell/<scene>, BM_MuJoCo/<scene>):
//   slide        a box (10 cm, 1 kg) sliding down a 0.3 rad ramp, μ = 0.2 (tan 0.3 = 0.31):
//                it accelerates at g (sin θ − μ cos θ) = 1.02 m/s² all through the window
//   roll         a ball (r 0.1 m, 1 kg) rolling on the ground at 1 m/s (ω = v / r), μ = 0.8
//   bounce       a ball dropped from 2 m, e = 0.8 (appell: Newton's law on the ball's shape;
//                MuJoCo has no restitution: its contact is a damped spring (solref
//                "timeconst dampratio"), and the bench picks the damping ratio whose first
//                bounce returns e² of the drop height, by bisection, printed with the result)
//   stack/n      n = 5, 10, 20 boxes in one column on the ground
//   pile/n       n = 20, 100, 1000 boxes in five layers of n/5 on a near-square grid 2 mm
//                apart, every other layer shifted a quarter edge in x and y: each box rests on
//                up to four below, the pile is one island
//   boxes/n      n = 10, 100, 1000 boxes resting apart on the ground (one island each)
//   quadruped    the example quadruped (scenes/examples/robots/quadruped_standing.json:
//                quadruped.urdf, floating base, sphere feet) standing under PD servos; MuJoCo
//                runs the same model written in MJCF below
//   quadruped_mjcf  scenes/examples/robots/quadruped_shapes.xml (box torso, capsule legs,
//                sphere feet, position servos, keyframe "stand"): the SAME file in both
//   quadruped_drop  the same file dropped from 0.1 m above its stance: the window (1.5 s, no
//                settle before it) holds the fall, the four feet's impacts and the settling
// Ours: appell::Simulation::step() with the scene's `moreau` stepper (exact Coulomb cone,
// residual tolerance of the scene, 1e-10 by default).  MuJoCo: mj_step with elliptic cones
// and its Newton solver (its default tolerance), Euler integration.
// MuJoCo 2.2 keeps contacts and constraint rows in buffers of fixed size (<size nconmax
// njmax>) and drops what does not fit with only a warning (its defaults kept 100 contacts of
// the 4000 of 1000 boxes).  Each generated scene is sized from a first collision pass: the
// contact list 16 a body, the rows 3 a contact for twice the contacts found; a run that
// still raises MuJoCo's "contact list full" or "constraints full" warning while settling is
// run again with twice the rows, and one that raises it in the window is skipped with that
// error.  MuJoCo 2.2's data is one buffer of at most 2 GB (int nbuffer) and its rows'
// arrays grow as njmax × nv and njmax²: a scene too big for it (1000 boxes) is skipped with
// the sizes.  quadruped_mjcf's file has its own <size>.
// Before timing, both run 0.3 s of simulated time (the bounce: its fall to 1.56 m; the drop:
// nothing) so that the contacts have settled; the timed window is a fixed number of steps
// (simulated time) per scene, so both engines time the same motion.  A run that fails, an appell
// step whose contact solver misses its tolerance (the scene's default "on_unconverged": "fail"
// would exit 3), a motion that is not what the scene is about (the box no longer sliding, the ball
// no longer rolling or bouncing, the quadruped fallen) skips the benchmark with the reason, its
// step and time, also printed on stderr.  pile/100 and pile/1000 run only with
// --long (appell takes minutes a step on them today).  --dump_scenes=DIR writes every scene
// (appell JSON, MuJoCo MJCF) to DIR and exits.
// Counters, per benchmark:
//   contacts     contact points the engine kept at the window's last step (appell: the rows
//                of its contact problem, open rows within the 1 mm margin included, from
//                Simulation::contacts(); MuJoCo: d->ncon, contacts at distance < 0)
//   max_contacts the most at one step of the window (the table's "contacts")
//   penetration  the largest penetration (m): appell after each step's projection, over the
//                whole run (SimulationResult::max_penetration); MuJoCo −dist over the window
//                (its soft contacts rest at a penetration)
//   touchdowns   steps of the window where contact began after a step without any
// (counted in the timed loop on both sides: one pass over the step's contacts).  A resting
// scene (stacks, boxes apart, quadrupeds) also checks that each engine kept at least the
// points its faces and feet make at the last step (4 a box, 1 a foot).
//   speed        the first body's speed at the end (m/s)
//   appell: unconverged (0 when timed), impacts in the window; MuJoCo: nefc, njmax
// After the run, one row per scene: µs per step each, the ratio appell / MuJoCo, the
// contacts and penetration each side, and the compile flags of both (bench_ratios.hpp);
// written with the raw times and counters by --ratios_out=FILE.
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "appell/appell.hpp"
#include "appell/tree.hpp"
#include "bench_ratios.hpp"

namespace appell {
namespace {

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
const std::string kQuadrupedMjcf =
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

std::string num(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
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
// <size> is filled in per model (mujoco_load); the ground's friction is each scene's
std::string mj_header(double mu, const std::string& ground_orientation = "") {
  return R"(<mujoco><compiler angle="radian"/><size nconmax="@NCON@" njmax="@NJ@"/>)"
         R"(<option timestep="0.001" cone="elliptic" solver="Newton" gravity="0 0 -9.81"/>)"
         R"(<worldbody><geom type="plane" size="0 0 1" friction=")" +
         num(mu) + R"( 0.005 0.0001")" + ground_orientation + "/>";
}
const char* kMjFooter = "</worldbody></mujoco>";

std::string mj_box(double x, double y, double z, double mu = 0.8,
                   const std::string& orientation = "") {
  return "<body pos=\"" + vec(x, y, z, " ") + "\"" + orientation + "><freejoint/>" +
         "<geom type=\"box\" size=\"" + vec(kEdge / 2, kEdge / 2, kEdge / 2, " ") +
         "\" mass=\"1\" friction=\"" + num(mu) + " 0.005 0.0001\"/></body>";
}
std::string mj_ball(double z, const std::string& solref = "") {
  return "<body pos=\"0 0 " + num(z) + "\"><freejoint/><geom type=\"sphere\" size=\"" +
         num(kBallRadius) + "\" mass=\"1\" friction=\"0.8 0.005 0.0001\"" + solref + "/></body>";
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

// ---- MuJoCo runs ------------------------------------------------------------------------
// MuJoCo's errors (a stack too small, ...) call mju_user_error, which by default exits
void mujoco_error(const char* msg) {
  throw std::runtime_error(std::string("MuJoCo: ") + msg);
}

struct MuJoCo {
  mjModel* m = nullptr;
  mjData* d = nullptr;
  MuJoCo() = default;
  MuJoCo(const MuJoCo&) = delete;
  MuJoCo& operator=(const MuJoCo&) = delete;
  ~MuJoCo() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
};

// MJCF text (with @NCON@, @NJ@ for <size>) or, when xml is empty, the file kQuadrupedMjcf
void mujoco_load(MuJoCo& mj, const std::string& xml, int nconmax, int njmax) {
  char err[1000] = "";
  if (xml.empty()) {
    mj.m = mj_loadXML(kQuadrupedMjcf.c_str(), nullptr, err, sizeof err);
  } else {
    std::string text = xml;
    text.replace(text.find("@NCON@"), 6, std::to_string(nconmax));
    text.replace(text.find("@NJ@"), 4, std::to_string(njmax));
    auto vfs = std::make_unique<mjVFS>();
    mj_defaultVFS(vfs.get());
    mj_makeEmptyFileVFS(vfs.get(), "scene.xml", static_cast<int>(text.size()));
    std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), "scene.xml")], text.data(), text.size());
    mj.m = mj_loadXML("scene.xml", vfs.get(), err, sizeof err);
    mj_deleteVFS(vfs.get());
  }
  if (!mj.m) throw std::runtime_error(std::string("MuJoCo cannot load the scene: ") + err);
  mj.d = mj_makeData(mj.m);
  if (!mj.d) throw std::runtime_error("MuJoCo cannot allocate its data");
}

void mujoco_reset(MuJoCo& mj) {
  mj_deleteData(mj.d);
  mj_deleteModel(mj.m);
  mj.d = nullptr;
  mj.m = nullptr;
}

// whether MuJoCo dropped contacts or constraint rows since the data was made
bool mujoco_full(const mjData* d) {
  return d->warning[mjWARN_CONTACTFULL].number > 0 || d->warning[mjWARN_CNSTRFULL].number > 0;
}

// The bytes MuJoCo 2.2's data takes for its constraint rows: the rows' Jacobian and its
// transpose (values and column indices, njmax × nv each) and A R (njmax², values and indices).
// Its data is one buffer whose size is an int (mjData::nbuffer): 2 GB at most.
double mujoco_row_bytes(double njmax, double nv) {
  return 2 * njmax * nv * (sizeof(mjtNum) + sizeof(int)) +
         njmax * njmax * (sizeof(mjtNum) + sizeof(int));
}

// A scene loaded with buffers that hold its contacts: the contact list 16 per body; the rows
// 3 per contact (elliptic cone, condim 3) for twice the contacts at the start (16 more) or 4
// per body, whichever is more, plus two per limited joint.  `attempt` doubles the rows.
void mujoco_sized(MuJoCo& mj, const BenchScene& s, int attempt) {
  if (s.mujoco.empty()) {  // the shipped file, with its own <size>
    mujoco_load(mj, "", 0, 0);
    if (s.mj_start) s.mj_start(mj.d);
    return;
  }
  mujoco_load(mj, s.mujoco, 16, 16);
  const int nbody = mj.m->nbody;
  int nlimited = 0;
  for (int j = 0; j < mj.m->njnt; ++j) nlimited += mj.m->jnt_limited[j];
  const int nconmax = 16 * nbody + 16;
  mujoco_reset(mj);
  mujoco_load(mj, s.mujoco, nconmax, 16);
  if (s.mj_start) s.mj_start(mj.d);
  mj_kinematics(mj.m, mj.d);
  mj_collision(mj.m, mj.d);
  const int ncon = mj.d->ncon, nv = mj.m->nv;
  mujoco_reset(mj);
  const int njmax = (3 * std::max(2 * ncon + 16, 4 * (nbody - 1)) + 2 * nlimited) << attempt;
  try {
    mujoco_load(mj, s.mujoco, nconmax, njmax);
  } catch (const std::exception& e) {
    char msg[600];
    std::snprintf(msg, sizeof msg,
                  "%s, with njmax = %d rows for %d contacts at the start (nv = %d): MuJoCo "
                  "2.2's data is one buffer of at most 2 GB (int nbuffer), and the rows' fixed "
                  "arrays (njmax x nv Jacobians, njmax^2 A R) take %.1f GB, %.1f GB for the "
                  "%d rows of these contacts alone",
                  e.what(), njmax, ncon, nv, mujoco_row_bytes(njmax, nv) / 1e9,
                  mujoco_row_bytes(3 * ncon, nv) / 1e9, 3 * ncon);
    throw std::runtime_error(msg);
  }
  if (s.mj_start) s.mj_start(mj.d);
}

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

// MuJoCo's restitution with damping B: the height of the ball's first bounce over its drop,
// both above contact, square-rooted
double mujoco_bounce(double damping) {
  MuJoCo mj;
  const std::string solref = " solref=\"" + num(-kMjBounceStiffness) + " " + num(-damping) + "\"";
  mujoco_load(mj, mj_header(0.8) + mj_ball(kDropHeight, solref) + kMjFooter, 16, 64);
  bool touched = false;
  double apex = 0;
  for (int k = 0; k < 5000; ++k) {
    mj_step(mj.m, mj.d);
    touched = touched || mj.d->ncon > 0;
    if (touched && mj.d->ncon == 0 && mj.d->qvel[2] <= 0) {
      apex = mj.d->qpos[2];
      break;
    }
  }
  return std::sqrt(std::max(apex - kBallRadius, 0.0) / (kDropHeight - kBallRadius));
}

// the damping whose first bounce gives kRestitution (bisection; e falls as it grows)
double mujoco_damping(double& e) {
  double lo = 0, hi = 2 * std::sqrt(kMjBounceStiffness);  // critical damping
  if (mujoco_bounce(lo) < kRestitution) {
    e = mujoco_bounce(lo);
    return lo;
  }
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (lo + hi);
    (mujoco_bounce(mid) > kRestitution ? lo : hi) = mid;
  }
  e = mujoco_bounce(lo);
  return lo;
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

std::vector<BenchScene> make_scenes() {
  std::vector<BenchScene> scenes;
  {  // a box sliding down a ramp: the ramp is the ground turned by kRamp about y
    BenchScene s;
    s.name = "slide";
    s.steps = 3000;
    const double n[3] = {std::sin(kRamp), 0, std::cos(kRamp)};
    const double c = kEdge / 2;
    const std::string turn = R"(, "orientation": {"axis_angle": [0, 1, 0, )" + num(kRamp) + "]}";
    s.appell = appell_scene(
        {appell_box(0, c * n[0], 0, c * n[2], kRampMu, turn)},
        R"({"name": "ramp", "type": "plane", "friction": )" + num(kRampMu) + turn + "}");
    const std::string mj_turn = " axisangle=\"0 1 0 " + num(kRamp) + "\"";
    s.mujoco =
        mj_header(kRampMu, mj_turn) + mj_box(c * n[0], 0, c * n[2], kRampMu, mj_turn) + kMjFooter;
    s.check = check_sliding;
    scenes.push_back(s);
  }
  {  // a ball rolling without slipping
    BenchScene s;
    s.name = "roll";
    s.steps = 3000;
    const std::string v = R"(, "velocity": [)" + num(kRollSpeed) +
                          R"(, 0, 0], "angular_velocity": [0, )" + num(kRollSpeed / kBallRadius) +
                          ", 0]";
    s.appell = appell_scene({appell_ball(kBallRadius, 0.8, 0, v)}, kGround);
    s.mujoco = mj_header(0.8) + mj_ball(kBallRadius) + kMjFooter;
    s.mj_start = [](mjData* d) {  // free joint: linear velocity in the world, angular in the body
      d->qvel[0] = kRollSpeed;
      d->qvel[4] = kRollSpeed / kBallRadius;
    };
    s.check = check_rolling;
    scenes.push_back(s);
  }
  {  // a bouncing ball
    BenchScene s;
    s.name = "bounce";
    s.steps = 3000;
    s.appell = appell_scene({appell_ball(kDropHeight, 0.8, kRestitution)}, kGround);
    double e = 0;
    const double damping = mujoco_damping(e);
    const std::string solref = num(-kMjBounceStiffness) + " " + num(-damping);
    std::printf(
        "bounce: MuJoCo solref=\"%s\" (stiffness, damping; the damping by bisection): "
        "first bounce e = %.4f (appell: e = %.2f, Newton's law)\n",
        solref.c_str(), e, kRestitution);
    s.mujoco = mj_header(0.8) + mj_ball(kDropHeight, " solref=\"" + solref + "\"") + kMjFooter;
    scenes.push_back(s);
  }
  for (int n : {5, 10, 20}) {  // a column of n boxes
    BenchScene s;
    s.name = "stack/" + std::to_string(n);
    s.contacts = 4 * n;
    s.steps = n <= 10 ? 2000 : 1000;
    std::vector<std::string> bodies;
    s.mujoco = mj_header(0.8);
    for (int k = 0; k < n; ++k) {
      bodies.push_back(appell_box(k, 0, 0, kEdge / 2 + k * kEdge));
      s.mujoco += mj_box(0, 0, kEdge / 2 + k * kEdge);
    }
    s.appell = appell_scene(bodies, kGround);
    s.mujoco += kMjFooter;
    scenes.push_back(s);
  }
  for (int n : {20, 100, 1000}) {  // a pile of n boxes
    BenchScene s;
    s.name = "pile/" + std::to_string(n);
    s.steps = n <= 20 ? 500 : n <= 100 ? 100 : 10;
    s.long_run = n > 20;
    std::vector<std::string> bodies;
    s.mujoco = mj_header(0.8);
    for (int k = 0; k < n; ++k) {
      double x, y, z;
      pile(k, n, x, y, z);
      bodies.push_back(appell_box(k, x, y, z));
      s.mujoco += mj_box(x, y, z);
    }
    s.appell = appell_scene(bodies, kGround);
    s.mujoco += kMjFooter;
    scenes.push_back(s);
  }
  for (int n : {10, 100, 1000}) {  // n boxes resting apart
    BenchScene s;
    s.name = "boxes/" + std::to_string(n);
    s.contacts = 4 * n;
    s.steps = n <= 10 ? 2000 : n <= 100 ? 500 : 50;
    std::vector<std::string> bodies;
    s.mujoco = mj_header(0.8);
    for (int k = 0; k < n; ++k) {
      double x, y;
      grid(k, n, x, y);
      bodies.push_back(appell_box(k, x, y, kEdge / 2));
      s.mujoco += mj_box(x, y, kEdge / 2);
    }
    s.appell = appell_scene(bodies, kGround);
    s.mujoco += kMjFooter;
    scenes.push_back(s);
  }
  {  // the URDF quadruped (MuJoCo: the same model in MJCF)
    BenchScene s;
    s.name = "quadruped";
    s.contacts = 4;
    s.steps = 3000;
    s.appell = appell_quadruped();
    s.mujoco = mj_quadruped();
    s.mj_start = [](mjData* d) {  // qpos: the free joint (7), then hip, knee per leg
      for (int leg = 0; leg < 4; ++leg) {
        d->qpos[7 + 2 * leg + 1] = kKneeAngle;
        d->ctrl[2 * leg + 1] = kKneeAngle;
      }
    };
    s.check = check_standing;
    scenes.push_back(s);
  }
  {  // the MJCF quadruped, one file for both
    BenchScene s;
    s.name = "quadruped_mjcf";
    s.contacts = 4;
    s.steps = 3000;
    s.appell =
        R"({"include": {"mjcf": ")" + kQuadrupedMjcf +
        R"(", "keyframe": "stand"}, "integrator": {"method": "moreau", "duration": 1000, "dt": )" +
        num(kDt) + "}}";
    s.mj_start = [](mjData*) {};  // the keyframe, in mujoco_bench
    s.check = check_standing;
    scenes.push_back(s);
    // the same robot dropped from 0.1 m above its stance: it lands on its feet and comes
    // to rest under its servos within the window, which times the fall, the impacts and
    // the settling (no settle before it)
    s.name = "quadruped_drop";
    s.settle = 0;
    s.lift = 0.1;
    s.steps = 1500;
    scenes.push_back(s);
  }
  return scenes;
}

// ---- the benchmarks ---------------------------------------------------------------------
struct AppellRun {
  Model model;
  SimulationOptions options;
  std::unique_ptr<Simulation> sim;
  explicit AppellRun(const std::string& text) {
    const Scene scene = load_scene_from_string(text, APPELL_SOURCE_DIR "/contact_bench.json");
    model = compile(scene);
    options = SimulationOptions::from_settings(scene.settings);
    options.every = 1 << 20;
    sim = std::make_unique<Simulation>(model, options);
  }
};

int appell_contacts(const Simulation& sim) {
  int n = 0;
  for (const ContactSample& c : sim.contacts()) n += c.joint < 0;
  return n;
}
Probe appell_probe(const Simulation& sim) {
  Probe p;
  const BodyState& b = sim.data().body[0];
  for (int i = 0; i < 3; ++i) p.x[i] = b.x(i), p.v[i] = b.v(i), p.w[i] = b.w(i);
  return p;
}

// Why a run cannot be timed ("" when it can): it stopped, or a step's contact solver missed
// its tolerance (the scene's "on_unconverged": "fail", the default, would exit 3 at its end)
std::string appell_failure(const AppellRun& run, bool stepped) {
  const SimulationResult& r = run.sim->result();
  if (!stepped) return r.message;
  if (r.contact_unconverged > 0) return contact_unconverged_message(r, run.options.contact);
  return "";
}

void appell_skip(benchmark::State& st, const BenchScene& s, const Simulation& sim,
                 const std::string& why, double seconds) {
  const SimulationResult& r = sim.result();
  char head[200];
  std::snprintf(head, sizeof head,
                "appell, %s, step %ld (t = %g s; %.3g s per step so far): ", s.name.c_str(),
                r.steps + (r.ok() ? 0 : 1), sim.time(), seconds / std::max<long>(r.steps, 1));
  const std::string msg = head + why;
  std::fprintf(stderr, "%s\n", msg.c_str());
  st.SkipWithError(msg.c_str());
}

void appell_bench(benchmark::State& st, const BenchScene& s) {
  if (!s.skip.empty()) {
    st.SkipWithError(s.skip.c_str());
    return;
  }
  std::unique_ptr<AppellRun> run;
  try {
    run = std::make_unique<AppellRun>(s.appell);
  } catch (const std::exception& e) {
    st.SkipWithError(("appell, " + s.name + ": " + e.what()).c_str());
    return;
  }
  Simulation& sim = *run->sim;
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  State start = run->model.initial_state();
  start.q(run->model.tree().joints[0].q_offset + 2) += s.lift;  // the first body's z
  std::string why = appell_failure(*run, sim.start(start));
  for (int k = 0; why.empty() && k < s.settle; ++k) {
    why = appell_failure(*run, sim.step());
    if (why.empty() && seconds() > kAppellBudget)
      why = "over the bench's budget of " + num(kAppellBudget) + " s";
  }
  if (why.empty() && s.check && s.settle > 0) why = s.check(appell_probe(sim));
  if (!why.empty()) {
    appell_skip(st, s, sim, "settling: " + why, seconds());
    return;
  }
  const long impacts = sim.result().impacts;
  int contacts = 0, max_contacts = 0, touchdowns = 0;
  for (auto _ : st) {
    const bool stepped = sim.step();
    if (!stepped || sim.result().contact_unconverged > 0) {
      appell_skip(st, s, sim, appell_failure(*run, stepped), seconds());
      break;
    }
    const int now = appell_contacts(sim);
    touchdowns += now > 0 && contacts == 0;
    max_contacts = std::max(max_contacts, now);
    contacts = now;
  }
  if (st.error_occurred()) return;
  if (s.check) why = s.check(appell_probe(sim));
  if (why.empty() && s.name == "bounce" && touchdowns < 2)
    why = "the ball no longer bounces (" + std::to_string(touchdowns) + " touchdowns)";
  if (why.empty() && contacts < s.contacts)
    why = "kept " + std::to_string(contacts) + " contact points at the last step, " +
          std::to_string(s.contacts) + " expected";
  const SimulationResult& r = sim.result();
  if (!why.empty()) {
    appell_skip(st, s, sim, why, seconds());
    return;
  }
  const Probe p = appell_probe(sim);
  st.counters["contacts"] = contacts;
  st.counters["max_contacts"] = max_contacts;
  st.counters["penetration"] = r.max_penetration;
  st.counters["touchdowns"] = touchdowns;
  st.counters["speed"] = std::sqrt(p.v[0] * p.v[0] + p.v[1] * p.v[1] + p.v[2] * p.v[2]);
  st.counters["unconverged"] = static_cast<double>(r.contact_unconverged);
  st.counters["impacts"] = static_cast<double>(r.impacts - impacts);
}

Probe mujoco_probe(const mjData* d) {
  Probe p;
  for (int i = 0; i < 3; ++i) p.x[i] = d->qpos[i], p.v[i] = d->qvel[i], p.w[i] = d->qvel[3 + i];
  return p;
}

void mujoco_bench(benchmark::State& st, const BenchScene& s) {
  if (!s.skip.empty()) {
    st.SkipWithError(s.skip.c_str());
    return;
  }
  mju_user_error = mujoco_error;
  MuJoCo mj;
  std::string why;
  try {
    // settle; when MuJoCo says its buffers were full, again with twice the rows
    for (int attempt = 0; attempt < 3; ++attempt) {
      if (mj.m) mujoco_reset(mj);
      mujoco_sized(mj, s, attempt);
      if (s.mujoco.empty()) mj_resetDataKeyframe(mj.m, mj.d, mj_name2id(mj.m, mjOBJ_KEY, "stand"));
      mj.d->qpos[2] += s.lift;  // the free joint's z
      for (int k = 0; k < s.settle; ++k) mj_step(mj.m, mj.d);
      if (!mujoco_full(mj.d)) break;
    }
    if (mujoco_full(mj.d))
      why = "MuJoCo's contact list or constraint rows were full (nconmax " +
            std::to_string(mj.m->nconmax) + ", njmax " + std::to_string(mj.m->njmax) + ")";
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (why.empty() && s.check && s.settle > 0) why = s.check(mujoco_probe(mj.d));
  if (!why.empty()) {
    why = "MuJoCo, " + s.name + ", settling: " + why;
    std::fprintf(stderr, "%s\n", why.c_str());
    st.SkipWithError(why.c_str());
    return;
  }
  int contacts = 0, max_contacts = 0, touchdowns = 0;
  double depth = 0;
  for (auto _ : st) {
    mj_step(mj.m, mj.d);
    const int now = mj.d->ncon;
    for (int c = 0; c < now; ++c) depth = std::max(depth, -mj.d->contact[c].dist);
    touchdowns += now > 0 && contacts == 0;
    max_contacts = std::max(max_contacts, now);
    contacts = now;
  }
  if (mujoco_full(mj.d))
    why = "MuJoCo's contact list or constraint rows were full (nconmax " +
          std::to_string(mj.m->nconmax) + ", njmax " + std::to_string(mj.m->njmax) + ")";
  if (why.empty() && s.check) why = s.check(mujoco_probe(mj.d));
  if (why.empty() && s.name == "bounce" && touchdowns < 2)
    why = "the ball no longer bounces (" + std::to_string(touchdowns) + " touchdowns)";
  if (why.empty() && contacts < s.contacts)
    why = "kept " + std::to_string(contacts) + " contacts (d->ncon) at the last step, " +
          std::to_string(s.contacts) + " expected";
  if (!why.empty()) {
    why = "MuJoCo, " + s.name + ": " + why;
    std::fprintf(stderr, "%s\n", why.c_str());
    st.SkipWithError(why.c_str());
    return;
  }
  const Probe p = mujoco_probe(mj.d);
  st.counters["contacts"] = contacts;
  st.counters["max_contacts"] = max_contacts;
  st.counters["penetration"] = depth;
  st.counters["touchdowns"] = touchdowns;
  st.counters["speed"] = std::sqrt(p.v[0] * p.v[0] + p.v[1] * p.v[1] + p.v[2] * p.v[2]);
  st.counters["nefc"] = mj.d->nefc;
  st.counters["njmax"] = mj.m->njmax;
}

}  // namespace
}  // namespace appell

int main(int argc, char** argv) {
  using namespace appell;
  std::vector<BenchScene> scenes = make_scenes();
  // --dump_scenes=DIR: each scene's appell JSON and MuJoCo MJCF as files (to run them with
  // `appell simulate`), then exit
  const std::string dump = "--dump_scenes=";
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]).rfind(dump, 0) == 0) {
      const std::string dir = std::string(argv[i]).substr(dump.size());
      for (const BenchScene& s : scenes) {
        std::string name = s.name;
        std::replace(name.begin(), name.end(), '/', '_');
        std::ofstream(dir + "/" + name + ".json") << s.appell << "\n";
        if (!s.mujoco.empty()) {
          std::string xml = s.mujoco;
          xml.replace(xml.find("@NCON@"), 6, "1000");
          xml.replace(xml.find("@NJ@"), 4, "3000");
          std::ofstream(dir + "/" + name + ".xml") << xml << "\n";
        }
      }
      std::printf("scenes written to %s\n", dir.c_str());
      return 0;
    }
  std::vector<bench::PairRow> rows;
  bool long_runs = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i)
    if (std::string(argv[i]) == "--long")
      long_runs = true;
    else
      args.push_back(argv[i]);
  for (BenchScene& s : scenes)
    if (s.long_run && !long_runs) {
      s.skip =
          "left out of the default run (a step of this scene takes appell minutes, MuJoCo "
          "tens of ms): run with --long";
    }
  for (const BenchScene& s : scenes) {
    benchmark::RegisterBenchmark(("BM_Appell/" + s.name).c_str(), appell_bench, s)
        ->Iterations(s.steps)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_MuJoCo/" + s.name).c_str(), mujoco_bench, s)
        ->Iterations(s.steps)
        ->Unit(benchmark::kMicrosecond);
    rows.push_back({s.name, "BM_Appell/" + s.name, "BM_MuJoCo/" + s.name});
  }
  const std::string flags =
      std::string("appell: ") + APPELL_BENCH_COMPILER + ", " + APPELL_BENCH_FLAGS +
      "\nMuJoCo: " + mj_versionString() +
      " (Debian's libmujoco2.2.2 2.2.2-3): the library is stripped (no .comment), so its compiler\n"
      "  and -O level are not recorded.  Seen in the binary: baseline x86-64 code only (no AVX,\n"
      "  FMA or SSE4 instruction: upstream's MUJOCO_ENABLE_AVX was off), glibc's fortified calls\n"
      "  (_FORTIFY_SOURCE) and __stack_chk_fail (-fstack-protector-strong): Debian's hardening\n"
      "  flags; no -ffast-math (sqrt keeps its errno call); linked by gold 1.16.  Assumed:\n"
      "  Debian's default CXXFLAGS -g -O2 (debhelper's CMAKE_BUILD_TYPE=None), GCC 12.";
  return bench::run_with_pairs(static_cast<int>(args.size()), args.data(), rows, flags);
}
