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
// --long (MuJoCo takes tens of ms a step settling 100 boxes).  --dump_scenes=DIR writes every scene
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
// The scenes are written in contact_scenes.cpp, MuJoCo's side is contact_mujoco.cpp; this
// file holds appell's side and main().
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "appell/appell.hpp"
#include "appell/tree.hpp"
#include "bench_ratios.hpp"
#include "contact_scenes.hpp"

namespace appell::contact_bench {
namespace {

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
  // the solver's largest iterations and natural residual of a step, over the whole run
  st.counters["iterations"] = r.contact_iterations;
  st.counters["residual"] = r.contact_residual;
}

}  // namespace
}  // namespace appell::contact_bench

int main(int argc, char** argv) {
  using namespace appell;
  using namespace appell::contact_bench;
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
          "left out of the default run (its settling takes MuJoCo tens of ms a step at 100 "
          "boxes, and more at 1,000): run with --long";
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
