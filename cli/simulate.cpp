// `appell simulate` (SPEC §3): runs a scene and writes traj.csv, forces.csv (cli/outputs.hpp)
// and summary.json (cli/recorder.hpp).  A progress bar goes to stderr only when it is a
// terminal (cli/progress.hpp).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "appell/forward.hpp"
#include "appell/simulation.hpp"
#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/progress.hpp"
#include "cli/recorder.hpp"
#include "cli/report.hpp"

namespace appell::cli {

namespace {

std::string format_number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

bool usage_error(const std::string& what) {
  std::cerr << "error: " << what << "\nrun 'appell simulate --help' for usage\n";
  return false;
}

bool apply_overrides(const SimulateOptions& o, SimulationOptions& so) {
  if (!o.integrator.empty()) {
    if (o.integrator != "rk4" && o.integrator != "dopri5" && o.integrator != "rkf78")
      return usage_error("--integrator: unknown method '" + o.integrator +
                         "'; expected rk4, dopri5 or rkf78");
    so.integrator.method = o.integrator;
  }
  if (o.dt) {
    if (!(*o.dt > 0) || !std::isfinite(*o.dt))
      return usage_error("--dt: must be a finite number > 0, got " + format_number(*o.dt));
    so.integrator.dt = *o.dt;
  }
  if (o.duration) {
    if (!(*o.duration >= 0) || !std::isfinite(*o.duration))
      return usage_error("--duration: must be a finite number >= 0, got " +
                         format_number(*o.duration));
    so.integrator.duration = *o.duration;
  }
  return true;
}

}  // namespace

int run_simulate(const SimulateOptions& o) {
  Scene scene;
  Formulation f;
  if (!formulation_or_report(o.formulation, f) || !load_or_report(o.scene, scene)) return 2;
  const Model m = compile(scene);
  SimulationOptions so = SimulationOptions::from_settings(scene.settings);
  if (f != Formulation::Auto) so.formulation = f;
  if (!apply_overrides(o, so)) return 2;
  if (!o.report.empty() && !report_available())
    return usage_error("--report: " + report_unavailable_message()), 2;

  // output files, with their headers
  Csv traj, forces;
  if (!o.out.empty() && !traj.open(o.out))
    return usage_error("--out: cannot write '" + o.out + "'"), 2;
  if (!o.forces.empty() && !forces.open(o.forces))
    return usage_error("--forces: cannot write '" + o.forces + "'"), 2;
  if (traj) traj.text(traj_header(m));
  if (forces) forces.text(forces_header(m));

  // the run, observed by the recorder
  Recorder recorder(m, traj, forces);
  std::optional<ReportCollector> report;
  if (!o.report.empty()) report.emplace(m);
  Progress progress(!o.quiet && isatty(fileno(stderr)), so.integrator.duration);
  so.progress = [&](double t) { progress.update(t); };
  std::unique_ptr<Simulation> sim;
  try {
    sim = std::make_unique<Simulation>(m, so);
  } catch (const std::invalid_argument& e) {
    return usage_error(e.what()), 2;
  }
  const SimulationResult r = sim->run([&](const Sample& s) {
    recorder.observe(s);
    if (report) report->observe(s);
  });
  progress.finish();

  // the summary
  const auto summary =
      recorder.summary(formulation_name(sim->state_space().formulation()), so.integrator.method, r);
  if (!o.summary.empty()) {
    std::FILE* out = std::fopen(o.summary.c_str(), "w");
    if (!out) return usage_error("--summary: cannot write '" + o.summary + "'"), 2;
    std::fprintf(out, "%s\n", summary.dump(2).c_str());
    std::fclose(out);
  } else if (!o.quiet) {
    std::cout << summary.dump(2) << "\n";
  }

  if (report && !write_simulation_report(o.report, o.scene, m, summary, r, report->series()))
    return usage_error("--report: cannot write '" + o.report + "'"), 2;

  if (!r.ok()) {
    std::fprintf(stderr, "error: %s: at t = %.9g: %s\n", o.scene.c_str(), r.t, r.message.c_str());
    return 3;
  }
  return 0;
}

}  // namespace appell::cli
