// Contact, side by side with MuJoCo (built only when MuJoCo is found; `make bench` installs it).
// One time step of each engine on the same scenes, at the same dt (1 ms):
//   BM_AppellBoxes/n, BM_MuJoCoBoxes/n   n boxes (10 cm cubes, 1 kg) resting apart on a
//                                        ground plane: 4 corner contacts each, one island each
//   BM_AppellPile/20, BM_MuJoCoPile/20   a pile of 20 boxes, five layers of 2 × 2, each box on
//                                        the one below (80 box–box and box–ground points)
//   BM_AppellQuadruped/1, BM_MuJoCoQuadruped/1  the example quadruped
//                                        (scenes/examples/robots/quadruped_standing.json:
//                                        quadruped.urdf, floating base, sphere feet) standing on
//                                        the ground under PD servos
// Ours: appell::Simulation::step() with the scene's `moreau` stepper (exact Coulomb cone,
// residual tolerance of the scene).  MuJoCo: mj_step with elliptic cones and its Newton
// solver (its default tolerance), Euler integration.  Before timing, both run 0.3 s of
// simulated time so that the contacts have settled; each benchmark then reports, as
// counters, the number of contact points and the largest penetration (m) at the end.
// After the run the ratios appell / MuJoCo per n are printed (bench/bench_ratios.hpp) and
// written with the raw times by --ratios_out=FILE.
#include <mujoco/mujoco.h>

#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "appell/appell.hpp"
#include "bench_ratios.hpp"

namespace appell {
namespace {

constexpr double kDt = 1e-3;
constexpr int kSettleSteps = 300;
constexpr double kEdge = 0.1;  // box edge (m)
constexpr double kFootRadius = 0.02;
constexpr double kKneeAngle = -0.8;
const std::vector<int> kBoxCounts = {10, 100, 1000};

// box k of n in a square grid, 25 cm apart
void grid(int k, int n, double& x, double& y) {
  int side = 1;
  while (side * side < n) ++side;
  x = 0.25 * (k % side);
  y = 0.25 * (k / side);
}
// box k of the pile: layer k / 4, position k % 4 in a 2 × 2 layer 2 mm apart
void pile(int k, double& x, double& y, double& z) {
  x = (k % 2) * (kEdge + 0.002);
  y = ((k / 2) % 2) * (kEdge + 0.002);
  z = kEdge / 2 + (k / 4) * kEdge;
}

// ---- appell scenes ----------------------------------------------------------------------
std::string appell_box(const std::string& name, double x, double y, double z) {
  std::ostringstream s;
  s.precision(17);
  s << R"({"name": ")" << name << R"(", "mass": 1, "inertia": {"box": [)" << kEdge << ", " << kEdge
    << ", " << kEdge << "]}, \"position\": [" << x << ", " << y << ", " << z
    << R"(], "shapes": [{"type": "box", "size": [)" << kEdge << ", " << kEdge << ", " << kEdge
    << R"(], "friction": 0.8}]})";
  return s.str();
}

std::string appell_scene(const std::vector<std::string>& bodies) {
  std::ostringstream s;
  s << R"({"gravity": [0, 0, -9.81], "shapes": [{"name": "ground", "type": "plane", "friction": 0.8}],)"
    << R"( "bodies": [)";
  for (size_t k = 0; k < bodies.size(); ++k) s << (k ? ", " : "") << bodies[k];
  s << R"(], "integrator": {"method": "moreau", "duration": 100, "dt": )" << kDt << "}}";
  return s.str();
}

std::string appell_boxes(int n) {
  std::vector<std::string> bodies;
  for (int k = 0; k < n; ++k) {
    double x, y;
    grid(k, n, x, y);
    bodies.push_back(appell_box("box" + std::to_string(k), x, y, kEdge / 2));
  }
  return appell_scene(bodies);
}

std::string appell_pile() {
  std::vector<std::string> bodies;
  for (int k = 0; k < 20; ++k) {
    double x, y, z;
    pile(k, x, y, z);
    bodies.push_back(appell_box("box" + std::to_string(k), x, y, z));
  }
  return appell_scene(bodies);
}

// the torso's height with both knees at kKneeAngle and the feet on the ground
double standing_height() {
  return 0.2 + 0.2 * std::cos(kKneeAngle) + kFootRadius;
}

std::string appell_quadruped() {
  std::ostringstream s;
  s.precision(17);
  s << R"({"gravity": [0, 0, -9.81], "shapes": [{"name": "ground", "type": "plane", "friction": 0.8}],)"
    << R"( "include": {"urdf": ")" << APPELL_SOURCE_DIR
    << R"(/scenes/examples/robots/quadruped.urdf", "base": "floating", "q": {)"
    << R"("root_joint": {"position": [0, 0, )" << standing_height() << "]}";
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
  s << R"(], "integrator": {"method": "moreau", "duration": 100, "dt": )" << kDt << "}}";
  return s.str();
}

struct AppellRun {
  Model model;
  std::unique_ptr<Simulation> sim;
  explicit AppellRun(const std::string& text)
      : model(compile(load_scene_from_string(text, "contact_bench.json"))) {
    const Scene scene = load_scene_from_string(text, "contact_bench.json");
    SimulationOptions o = SimulationOptions::from_settings(scene.settings);
    o.every = 1 << 20;
    sim = std::make_unique<Simulation>(model, o);
  }
};

void appell_bench(benchmark::State& st, const std::string& text) {
  std::unique_ptr<AppellRun> run;
  try {
    run = std::make_unique<AppellRun>(text);
  } catch (const std::exception& e) {
    st.SkipWithError(e.what());
    return;
  }
  Simulation& sim = *run->sim;
  bool ok = sim.start();
  for (int k = 0; ok && k < kSettleSteps; ++k) ok = sim.step();
  if (!ok) {
    st.SkipWithError(sim.result().message.c_str());
    return;
  }
  for (auto _ : st)
    if (!sim.step()) {
      st.SkipWithError(sim.result().message.c_str());
      break;
    }
}

void BM_AppellBoxes(benchmark::State& st) {
  appell_bench(st, appell_boxes(static_cast<int>(st.range(0))));
}
void BM_AppellPile(benchmark::State& st) {
  appell_bench(st, appell_pile());
}
void BM_AppellQuadruped(benchmark::State& st) {
  appell_bench(st, appell_quadruped());
}

// ---- MuJoCo -----------------------------------------------------------------------------
const char* kMjHeader =
    R"(<mujoco><option timestep="0.001" cone="elliptic" solver="Newton" gravity="0 0 -9.81"/>)"
    R"(<worldbody><geom type="plane" size="0 0 1" friction="0.8 0.005 0.0001"/>)";

std::string mj_box(double x, double y, double z) {
  std::ostringstream s;
  s.precision(17);
  s << "<body pos=\"" << x << " " << y << " " << z << "\"><freejoint/>"
    << "<geom type=\"box\" size=\"" << kEdge / 2 << " " << kEdge / 2 << " " << kEdge / 2
    << "\" mass=\"1\" friction=\"0.8 0.005 0.0001\"/></body>";
  return s.str();
}

std::string mj_boxes(int n) {
  std::string x = kMjHeader;
  for (int k = 0; k < n; ++k) {
    double bx, by;
    grid(k, n, bx, by);
    x += mj_box(bx, by, kEdge / 2);
  }
  return x + "</worldbody></mujoco>";
}

std::string mj_pile() {
  std::string x = kMjHeader;
  for (int k = 0; k < 20; ++k) {
    double bx, by, bz;
    pile(k, bx, by, bz);
    x += mj_box(bx, by, bz);
  }
  return x + "</worldbody></mujoco>";
}

// quadruped.urdf in MJCF: the same masses, inertias, frames, axes and limits, sphere feet
std::string mj_quadruped() {
  std::ostringstream s;
  s.precision(17);
  s << kMjHeader << "<body name=\"torso\" pos=\"0 0 " << standing_height() << "\"><freejoint/>"
    << R"(<inertial pos="0.01 0 0" mass="10" fullinertia="0.05 0.2 0.22 0 0.001 0"/>)";
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

struct MuJoCo {
  mjModel* m = nullptr;
  mjData* d = nullptr;
  std::string error;
  explicit MuJoCo(const std::string& xml) {
    auto vfs = std::make_unique<mjVFS>();
    mj_defaultVFS(vfs.get());
    mj_makeEmptyFileVFS(vfs.get(), "scene.xml", static_cast<int>(xml.size()));
    std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), "scene.xml")], xml.data(), xml.size());
    char err[1000] = "";
    m = mj_loadXML("scene.xml", vfs.get(), err, sizeof err);
    mj_deleteVFS(vfs.get());
    if (!m) {
      error = err;
      return;
    }
    d = mj_makeData(m);
  }
  ~MuJoCo() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
};

void mujoco_bench(benchmark::State& st, const std::string& xml, bool knees) {
  MuJoCo mj(xml);
  if (!mj.m) {
    st.SkipWithError(mj.error.c_str());
    return;
  }
  if (knees)  // qpos: the free joint (7), then hip, knee per leg; ctrl: hip, knee per leg
    for (int leg = 0; leg < 4; ++leg) {
      mj.d->qpos[7 + 2 * leg + 1] = kKneeAngle;
      mj.d->ctrl[2 * leg + 1] = kKneeAngle;
    }
  for (int k = 0; k < kSettleSteps; ++k) mj_step(mj.m, mj.d);
  for (auto _ : st) {
    mj_step(mj.m, mj.d);
    benchmark::ClobberMemory();
  }
  double depth = 0;
  for (int c = 0; c < mj.d->ncon; ++c) depth = std::max(depth, -mj.d->contact[c].dist);
  st.counters["contacts"] = mj.d->ncon;
  st.counters["penetration"] = depth;
}

void BM_MuJoCoBoxes(benchmark::State& st) {
  mujoco_bench(st, mj_boxes(static_cast<int>(st.range(0))), false);
}
void BM_MuJoCoPile(benchmark::State& st) {
  mujoco_bench(st, mj_pile(), false);
}
void BM_MuJoCoQuadruped(benchmark::State& st) {
  mujoco_bench(st, mj_quadruped(), true);
}

BENCHMARK(BM_AppellBoxes)->Arg(10)->Arg(100)->Arg(1000);
BENCHMARK(BM_MuJoCoBoxes)->Arg(10)->Arg(100)->Arg(1000);
BENCHMARK(BM_AppellPile)->Arg(20);
BENCHMARK(BM_MuJoCoPile)->Arg(20);
BENCHMARK(BM_AppellQuadruped)->Arg(1);
BENCHMARK(BM_MuJoCoQuadruped)->Arg(1);

}  // namespace
}  // namespace appell

int main(int argc, char** argv) {
  using appell::bench::Ratio;
  const std::vector<Ratio> ratios = {
      {"boxes/mujoco_step", "BM_AppellBoxes", "BM_MuJoCoBoxes", 1.0},
      {"pile/mujoco_step", "BM_AppellPile", "BM_MuJoCoPile", 1.0},
      {"quadruped/mujoco_step", "BM_AppellQuadruped", "BM_MuJoCoQuadruped", 1.0}};
  return appell::bench::run_with_ratios(argc, argv, ratios, {1, 10, 20, 100, 1000});
}
