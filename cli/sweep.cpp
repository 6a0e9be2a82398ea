// `appell sweep SCENE --set /bodies/0/mass=1:2:11 --set /integrator/duration=1,2 ...`
//
// Every --set names a value of the scene by its JSON Pointer and gives its values
// (appell/overrides.hpp: a:b:n, v1,v2,... or one JSON value); the runs are the cartesian
// product of the sets, the last --set varying fastest.  Every scene is loaded before any
// run starts, so a bad pointer or value is reported (exit 2, with its pointer) before any
// output.  Rows, one per run, in run order:
//
//   run, one column per --set (its pointer; the value as JSON), status, t, steps,
//   rhs_evaluations, energy_initial, energy_final, max_abs_energy_drift,
//   violation_position_max, violation_velocity_max, per body its final x y z vx vy vz.
//
// A run that fails numerically keeps its row (its status and the time reached; the
// figures empty when it stopped before its first sample) and is reported on stderr; the
// exit status is then 3.
#include "cli/sweep.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "appell/overrides.hpp"
#include "appell/sweep.hpp"
#include "cli/commands.hpp"

namespace appell::cli {

CLI::App* add_sweep_command(CLI::App& app, SweepOptions& o) {
  CLI::App* c = app.add_subcommand(
      "sweep", "many runs of a scene with values replaced by JSON Pointer; a CSV row per run");
  c->add_option("SCENE", o.scene, "scene file (JSON)")->required();
  c->add_option("--set", o.set,
                "POINTER=VALUES: a:b:n (n values from a to b), v1,v2,... or one JSON value; "
                "repeat for a cartesian product")
      ->required();
  c->add_option("--out", o.out, "summary CSV (default: stdout)");
  c->add_option("--formulation", o.formulation, "auto | recursive | gibbs-appell | pinv | sparse");
  c->add_option("--threads", o.threads, "worker threads (default: every core)")
      ->check(CLI::NonNegativeNumber);
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

// the cartesian product, the last axis varying fastest
std::vector<std::vector<Override>> product(const std::vector<Axis>& axes) {
  std::vector<std::vector<Override>> runs{{}};
  for (const Axis& a : axes) {
    std::vector<std::vector<Override>> next;
    for (const auto& r : runs)
      for (const std::string& v : a.values) {
        next.push_back(r);
        next.back().push_back({a.pointer, v});
      }
    runs = std::move(next);
  }
  return runs;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

void write_header(std::FILE* f, const std::vector<Axis>& axes, const Model& m) {
  std::fprintf(f, "run");
  for (const Axis& a : axes) std::fprintf(f, ",%s", csv_field(a.pointer).c_str());
  std::fprintf(f,
               ",status,t,steps,rhs_evaluations,energy_initial,energy_final,"
               "max_abs_energy_drift,violation_position_max,violation_velocity_max");
  for (const Body& b : m.bodies())
    for (const char* c : {"x", "y", "z", "vx", "vy", "vz"})
      std::fprintf(f, ",%s", csv_field(b.name + "." + c).c_str());
  std::fprintf(f, "\n");
}

// a run stopped before its first sample (refused at t = 0) has empty figures
void write_row(std::FILE* f, size_t i, const std::vector<Override>& set, const SweepOutcome& o,
               int nbody) {
  std::fprintf(f, "%zu", i);
  for (const Override& v : set) std::fprintf(f, ",%s", csv_field(v.value).c_str());
  const SimulationResult& r = o.result;
  const RunSummary& s = o.summary;
  std::fprintf(f, ",%s,%.17g,%ld,%ld", simulation_status_name(r.status), r.t, r.steps,
               r.rhs_evaluations);
  const bool sampled = s.samples > 0;
  for (double v : {s.energy_initial, s.energy_final, s.max_abs_energy_drift,
                   s.violation_position_max, s.violation_velocity_max})
    sampled ? std::fprintf(f, ",%.17g", v) : std::fprintf(f, ",");
  for (int b = 0; b < nbody; ++b)
    for (int k = 0; k < 6; ++k) {
      if (!sampled) {
        std::fprintf(f, ",");
        continue;
      }
      const BodyState& x = s.final_bodies[b];
      std::fprintf(f, ",%.17g", k < 3 ? x.x(k) : x.v(k - 3));
    }
  std::fprintf(f, "\n");
}

bool draw_progress(size_t done, size_t total) {
  const int width = 40, fill = static_cast<int>(width * done / std::max<size_t>(total, 1));
  std::fprintf(stderr, "\r[%s%s] %zu/%zu runs", std::string(fill, '=').c_str(),
               std::string(width - fill, ' ').c_str(), done, total);
  std::fflush(stderr);
  return true;
}

}  // namespace

int run_sweep(const SweepOptions& o) {
  Formulation f;
  if (!formulation_or_report(o.formulation, f)) return 2;
  // every scene of the product, loaded before anything runs
  std::vector<std::vector<Override>> sets;
  std::vector<SweepRun> runs;
  try {
    sets = product(parse_axes(o.set));
    const std::string text = read_scene_text(o.scene);
    for (const auto& set : sets) {
      const Scene scene = load_scene_with_overrides(text, o.scene, set);
      SimulationOptions so = SimulationOptions::from_settings(scene.settings);
      if (f != Formulation::Auto) so.formulation = f;
      runs.push_back({std::make_shared<const Model>(compile(scene)), std::nullopt, so});
    }
  } catch (const SceneError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }

  std::FILE* out = o.out.empty() ? stdout : std::fopen(o.out.c_str(), "w");
  if (!out) {
    std::cerr << "error: --out: cannot write '" << o.out << "'\n";
    return 2;
  }
  appell::SweepOptions so;
  so.threads = o.threads;
  const bool bar = !o.quiet && isatty(fileno(stderr));
  if (bar) so.progress = draw_progress;
  std::vector<SweepOutcome> outcomes;
  try {
    outcomes = sweep(runs, so);
  } catch (const std::invalid_argument& e) {
    if (out != stdout) std::fclose(out);
    std::cerr << "error: " << o.scene << ": " << e.what() << "\n";
    return 2;
  }
  if (bar) std::fprintf(stderr, "\r\033[K");

  // the rows, then what failed
  write_header(out, parse_axes(o.set), *runs[0].model);
  int failed = 0;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    write_row(out, i, sets[i], outcomes[i], runs[i].model->nbody());
    if (outcomes[i].result.ok()) continue;
    ++failed;
    std::fprintf(stderr, "error: %s: run %zu: at t = %.9g: %s\n", o.scene.c_str(), i,
                 outcomes[i].result.t, outcomes[i].result.message.c_str());
  }
  if (out != stdout) std::fclose(out);
  return failed ? 3 : 0;
}

}  // namespace appell::cli
