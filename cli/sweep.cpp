// `appell sweep SCENE --set /bodies/0/mass=1:2:11 --set /integrator/duration=1,2 ...`
//
// SCENE is what `appell simulate` takes: a JSON scene, or a URDF or MJCF file, swept as
// the scene {"include": {"urdf"|"mjcf": FILE}} (its pointers: /gravity, /include/q/JOINT...).
// Every --set names a value of the scene by its JSON Pointer and gives its values
// (appell/overrides.hpp: a:b:n, v1,v2,... or one JSON value); the runs are the cartesian
// product of the sets, the last --set varying fastest (at most kMaxSetValues runs).  The
// first run's scene is loaded before any run starts; every other run's scene is loaded
// and compiled by the worker that takes it, so memory does not grow with the number of
// runs.  A bad pointer or value is reported (exit 2, with its pointer) and nothing is
// written: the rows go to a temporary beside --out, renamed onto it when complete (a
// device or a pipe is written in place); --out may be none of the files a run reads (the
// scene, its includes and meshes: cli/outputs.hpp input_clash()).  Every write and the
// close are checked (exit 2 with the reason).  Rows, one per run, in run order:
//
//   run, one column per --set (its pointer; the value as JSON), status, t, steps,
//   rhs_evaluations, energy_initial, energy_final, max_abs_energy_drift,
//   violation_position_max, violation_velocity_max, per body its final x y z vx vy vz.
//
// A run that fails numerically keeps its row (its status and the time reached; the
// figures empty when it stopped before its first sample) and is reported on stderr; the
// exit status is then 3.  A run that completed with figures that are not finite has
// failed too, by the rule of `appell simulate` (appell/trajectory.hpp check_figures()).
// Worker threads that cannot start leave the runs to those that did (a note on stderr).
#include "cli/sweep.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "appell/overrides.hpp"
#include "appell/scene_rules.hpp"
#include "appell/sweep.hpp"
#include "cli/commands.hpp"
#include "cli/outputs.hpp"

namespace appell::cli {

CLI::App* add_sweep_command(CLI::App& app, SweepOptions& o) {
  CLI::App* c = app.add_subcommand(
      "sweep", "many runs of a scene with values replaced by JSON Pointer; a CSV row per run");
  c->add_option("SCENE", o.scene, "scene file (JSON, or a URDF or MJCF robot)")->required();
  c->add_option("--set", o.set,
                "POINTER=VALUES: a:b:n (n values from a to b), v1,v2,... or one JSON value; "
                "repeat for a cartesian product")
      ->required();
  c->add_option("--out", o.out, "summary CSV (default: stdout)");
  c->add_option("--formulation", o.formulation, "auto | recursive | gibbs-appell | pinv | sparse");
  c->add_option("--threads", o.threads,
                "worker threads, 1 to " + std::to_string(kMaxThreads) + " (default: every core)");
  c->add_flag("--quiet", o.quiet, "no progress bar");
  return c;
}

namespace {

struct Axis {
  std::string pointer;
  std::vector<std::string> values;  // JSON texts
};

std::vector<Axis> parse_axes(const std::vector<std::string>& sets) {
  std::vector<Axis> axes;
  for (const std::string& s : sets) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos)
      throw SceneError("--set", s, "expected POINTER=VALUES, e.g. /bodies/0/mass=1:2:11");
    const std::string ptr = s.substr(0, eq);
    axes.push_back({ptr, parse_set_values(ptr, s.substr(eq + 1))});
  }
  return axes;
}

// the number of runs of the cartesian product, at most kMaxSetValues
size_t run_count(const std::vector<Axis>& axes) {
  size_t n = 1;
  for (const Axis& a : axes) {
    n *= a.values.size();  // each factor ≤ kMaxSetValues, n ≤ kMaxSetValues before: no overflow
    if (n > static_cast<size_t>(kMaxSetValues))
      throw SceneError(
          "--set", a.pointer,
          "the sets make more than " + std::to_string(kMaxSetValues) + " runs; split the sweep");
  }
  return n;
}

// the overrides of run i of the cartesian product, the last axis varying fastest
std::vector<Override> overrides_of(const std::vector<Axis>& axes, size_t i) {
  std::vector<Override> set(axes.size());
  for (size_t k = axes.size(); k-- > 0;) {
    const size_t n = axes[k].values.size();
    set[k] = {axes[k].pointer, axes[k].values[i % n]};
    i /= n;
  }
  return set;
}

// --threads: empty (every core) or a whole number 1..kMaxThreads; else prints why
bool threads_or_report(const std::string& text, int& threads) {
  threads = 0;
  if (text.empty()) return true;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (!std::isspace(static_cast<unsigned char>(text[0])) && *end == '\0' && errno == 0 && v >= 1 &&
      v <= kMaxThreads) {
    threads = static_cast<int>(v);
    return true;
  }
  std::cerr << "error: --threads: expected a whole number from 1 to " << kMaxThreads << " (got "
            << text << ")\n";
  return false;
}

// --out must be none of the files the runs read (the scene, its includes and meshes: the
// same device and inode; cli/outputs.hpp input_clash())
bool out_is_no_input(const std::string& out, const std::string& scene,
                     const std::set<std::string>& inputs) {
  const std::string why =
      input_clash(out, scene, std::vector<std::string>(inputs.begin(), inputs.end()));
  if (why.empty()) return true;
  std::cerr << "error: --out: " << why << "\n";
  return false;
}

// the rows: to --out through a temporary (cli/outputs.hpp), or to stdout
class Rows : public OutputFile {
 public:
  explicit Rows(bool to_stdout) : stdout_(to_stdout) {}
  void put(const std::string& s) {
    if (stdout_)
      std::fwrite(s.data(), 1, s.size(), stdout);  // checked by finish_stdout()
    else
      write(s.data(), s.size());
  }

 private:
  bool stdout_;
};

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string header(const std::vector<Axis>& axes, const Model& m) {
  std::string h = "run";
  for (const Axis& a : axes) h += "," + csv_field(a.pointer);
  h += ",status,t,steps,rhs_evaluations,energy_initial,energy_final,"
       "max_abs_energy_drift,violation_position_max,violation_velocity_max";
  for (const Body& b : m.bodies())
    for (const char* c : {"x", "y", "z", "vx", "vy", "vz"}) h += "," + csv_field(b.name + "." + c);
  return h + "\n";
}

// a run stopped before its first sample (refused at t = 0) has empty figures, as has a
// body the run's model does not have
std::string row(size_t i, const std::vector<Override>& set, const SweepOutcome& o, int nbody) {
  std::string r = std::to_string(i);
  for (const Override& v : set) r += "," + csv_field(v.value);
  const SimulationResult& res = o.result;
  const RunSummary& s = o.summary;
  r += std::string(",") + simulation_status_name(res.status) + "," + number(res.t) + "," +
       std::to_string(res.steps) + "," + std::to_string(res.rhs_evaluations);
  const bool sampled = s.samples > 0;
  for (double v : {s.energy_initial, s.energy_final, s.max_abs_energy_drift,
                   s.violation_position_max, s.violation_velocity_max})
    r += sampled ? "," + number(v) : ",";
  for (int b = 0; b < nbody; ++b)
    for (int k = 0; k < 6; ++k) {
      if (!sampled || b >= static_cast<int>(s.final_bodies.size())) {
        r += ",";
        continue;
      }
      const BodyState& x = s.final_bodies[b];
      r += "," + number(k < 3 ? x.x(k) : x.v(k - 3));
    }
  return r + "\n";
}

bool draw_progress(size_t done, size_t total) {
  const int width = 40, fill = static_cast<int>(width * done / std::max<size_t>(total, 1));
  std::fprintf(stderr, "\r[%s%s] %zu/%zu runs", std::string(fill, '=').c_str(),
               std::string(width - fill, ' ').c_str(), done, total);
  std::fflush(stderr);
  return true;
}

// the text the runs' scenes are built from: a robot file (what simulate takes) is swept as
// the scene that includes it, beside it: the pointers then name that scene's keys
// (/gravity/2, /include/q/JOINT, ...)
std::string swept_scene_text(const std::string& scene) {
  std::string text = read_scene_text(scene);
  const bool mjcf = is_mjcf_text(text);
  if (mjcf || is_urdf_text(text, scene)) {
    const std::string base = scene.substr(scene.find_last_of('/') + 1);
    text = nlohmann::json{{"include", {{mjcf ? "mjcf" : "urdf", base}}}}.dump();
  }
  return text;
}

// the runs, each scene loaded by the worker that takes it; the exit status, 0 when every
// run could start
int run_all(const SweepOptions& o, size_t count, int threads,
            const std::function<SweepRun(size_t)>& make_run, std::vector<SweepOutcome>& outcomes) {
  appell::SweepOptions so;
  so.threads = threads;
  const bool bar = !o.quiet && isatty(fileno(stderr));
  if (bar) so.progress = draw_progress;
  so.fewer_threads = [&](int started, int wanted, const std::string& why) {
    std::fprintf(stderr, "note: %d of %d worker threads could start (%s); the runs go on %s\n",
                 started, wanted, why.c_str(), started > 0 ? "on those" : "on the main thread");
  };
  try {
    outcomes = sweep(count, make_run, so);
  } catch (const SceneError& e) {
    if (bar) std::fprintf(stderr, "\r\033[K");
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    if (bar) std::fprintf(stderr, "\r\033[K");
    std::cerr << "error: " << o.scene << ": " << e.what() << "\n";
    return 2;
  }
  if (bar) std::fprintf(stderr, "\r\033[K");
  return 0;
}

// the rows, then what failed; the exit status
int write_outcomes(const SweepOptions& o, const std::vector<Axis>& axes, const Model& first,
                   const std::vector<SweepOutcome>& outcomes, Rows& out) {
  out.put(header(axes, first));
  for (size_t i = 0; i < outcomes.size(); ++i)
    out.put(row(i, overrides_of(axes, i), outcomes[i], first.nbody()));
  if (!o.out.empty() && !out.commit()) {
    std::cerr << "error: --out: " << out.error() << "\n";
    return 2;
  }
  int failed = 0;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].result.ok()) continue;
    ++failed;
    std::fprintf(stderr, "error: %s: run %zu: at t = %.9g: %s\n", o.scene.c_str(), i,
                 outcomes[i].result.t, outcomes[i].result.message.c_str());
  }
  return failed ? 3 : 0;
}

}  // namespace

int run_sweep(const SweepOptions& o) {
  Formulation f;
  int threads = 0;
  if (!formulation_or_report(o.formulation, f) || !threads_or_report(o.threads, threads)) return 2;
  // the sets and the first run's scene (for the header), before anything runs
  std::vector<Axis> axes;
  size_t count = 0;
  std::string text;
  std::shared_ptr<const Model> first;
  // the files the runs' scenes were built from (a run's overrides may name other includes
  // or meshes): --out may be none of them
  std::mutex inputs_mutex;
  std::set<std::string> inputs;
  const auto make_run = [&](size_t i) {
    const Scene scene = load_scene_with_overrides(text, o.scene, overrides_of(axes, i));
    {
      const std::lock_guard<std::mutex> lock(inputs_mutex);
      inputs.insert(scene.source_files.begin(), scene.source_files.end());
    }
    SimulationOptions so = SimulationOptions::from_settings(scene.settings);
    if (f != Formulation::Auto) so.formulation = f;
    return SweepRun{std::make_shared<const Model>(compile(scene)), std::nullopt, so};
  };
  try {
    axes = parse_axes(o.set);
    count = run_count(axes);
    text = swept_scene_text(o.scene);
    first = make_run(0).model;
  } catch (const SceneError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  if (!out_is_no_input(o.out, o.scene, inputs)) return 2;
  Rows out(o.out.empty());
  if (!o.out.empty() && !out.open(o.out)) {
    std::cerr << "error: --out: " << out.error() << "\n";
    return 2;
  }
  std::vector<SweepOutcome> outcomes;
  if (const int status = run_all(o, count, threads, make_run, outcomes)) return status;
  if (!out_is_no_input(o.out, o.scene, inputs)) return 2;  // what every run read
  return write_outcomes(o, axes, *first, outcomes, out);
}

}  // namespace appell::cli
