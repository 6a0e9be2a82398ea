// `appell simulate` (README, Command line): runs a scene and writes traj.csv, forces.csv
// (cli/outputs.hpp) and summary.json (cli/recorder.hpp).  A progress bar goes to stderr only when
// it is a terminal (cli/progress.hpp).
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "appell/forward.hpp"
#include "appell/integrators.hpp"
#include "appell/output_schema.hpp"
#include "appell/scene_document.hpp"
#include "appell/simulation.hpp"
#include "appell/state_space.hpp"
#include "cli/commands.hpp"
#include "cli/contact_outputs.hpp"
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
  std::cerr << "error: " << what << " (usage: appell simulate --help)\n";
  return false;
}

bool apply_overrides(const SimulateOptions& o, SimulationOptions& so) {
  if (!o.integrator.empty()) {
    if (!find_integrator(o.integrator))
      return usage_error("--integrator: unknown method '" + o.integrator + "'; expected " +
                         integrator_names());
    so.integrator.method = o.integrator;
    so.integrator.method_given = true;
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

// The run size guard of docs/scene-format.md ("Limits") for --dt and --duration, which
// the scene loader never saw.
bool run_size_ok(const SimulationOptions& so) {
  const double steps = so.integrator.duration / so.integrator.dt;
  if (steps <= SceneLimits::kMaxSteps && steps / so.every <= SceneLimits::kMaxOutputRows)
    return true;
  return usage_error("--dt, --duration: duration / dt = " + format_number(steps) +
                     " steps; the limits are 1e9 steps and 1e7 output rows");
}

// Commits every open output; on a failed write prints its path and reason.
bool commit_all(std::initializer_list<OutputFile*> files) {
  bool ok = true;
  for (OutputFile* f : files) {
    if (ok && !f->commit()) {
      std::cerr << "error: " << f->error() << "\n";
      ok = false;
    }
    f->discard();
  }
  return ok;
}

}  // namespace

int run_simulate(const SimulateOptions& o) {
  if (is_lagrangian_scene(o.scene)) return run_lagrangian_simulate(o);
  if (is_rigid_nu_scene(o.scene)) return run_rigid_nu_simulate(o);
  Scene scene;
  Formulation f;
  JointFrame frame;
  if (!formulation_or_report(o.formulation, f) || !joint_frame_or_report(o.joint_frame, frame) ||
      !load_or_report(o.scene, scene))
    return 2;
  const Model m = compile(scene);
  SimulationOptions so = SimulationOptions::from_settings(scene.settings);
  if (f != Formulation::Auto) so.formulation = f;
  if (!apply_overrides(o, so) || !run_size_ok(so)) return 2;
  if (!o.report.empty() && !report_available())
    return usage_error("--report: " + report_unavailable_message()), 2;
  Progress progress(!o.quiet && isatty(fileno(stderr)), so.integrator.duration);
  so.progress = [&](double t) { progress.update(t); };
  std::unique_ptr<Simulation> sim;
  try {
    sim = std::make_unique<Simulation>(m, so);
  } catch (const std::invalid_argument& e) {
    return usage_error(e.what()), 2;
  }

  // every output path is checked and opened (as a temporary) before anything is written
  if (!check_output_paths(o.scene, scene.source_files,
                          {{"--out", o.out},
                           {"--forces", o.forces},
                           {"--contacts", o.contacts},
                           {"--summary", o.summary},
                           {"--report", o.report}}))
    return 2;
  Csv traj, forces, contacts;
  OutputFile summary_file;
  ReportFile report_file;
  const auto open = [](OutputFile& file, const char* option, const std::string& path) {
    return path.empty() || file.open(path) || usage_error(option + (": " + file.error()));
  };
  if (!open(traj, "--out", o.out) || !open(forces, "--forces", o.forces) ||
      !open(summary_file, "--summary", o.summary) || !open(report_file, "--report", o.report) ||
      !open(contacts, "--contacts", o.contacts))
    return 2;
  if (traj) traj.text(traj_schema(m).header());
  if (forces) forces.text(forces_schema(m).header());
  if (contacts) contacts.text(contacts_header());

  // the run, observed by the recorder; rows are written on a thread of their own when a
  // second core can take them (cli/sample_writer.hpp); the run stops early when an output
  // cannot be written
  Recorder recorder(m, traj, forces, std::thread::hardware_concurrency() > 1, frame);
  std::optional<ReportCollector> report;
  if (!o.report.empty()) report.emplace(m);
  const ContactRows contact_rows(m);
  std::string contact_text;
  const Observer observe = [&](const Sample& s) {
    recorder.observe(s);
    if (contacts && s.contacts && !s.contacts->empty()) {
      contact_text.clear();
      contact_rows.append(s.t, *s.contacts, contact_text);
      contacts.text(contact_text);
    }
    if (report) report->observe(s);
  };
  if (sim->start(observe))
    while (!recorder.write_failed() && !contacts.failed() && sim->step(observe)) {
    }
  recorder.finish();
  progress.finish();
  const SimulationResult& r = sim->result();

  // the summary and the report
  const auto summary =
      recorder.summary(formulation_name(sim->state_space().formulation()), sim->method(), r);
  // (finite samples can still give an infinite drift, 1e308 − (−1e308): then no summary)
  const bool finite = finite_numbers(summary);
  if (!finite)
    summary_file.discard();
  else if (summary_file)
    summary_file.text(summary.dump(2) + "\n");
  else if (!o.quiet)
    std::cout << summary.dump(2) << "\n";
  if (!commit_all({&traj, &forces, &contacts, &summary_file})) return 2;
  // the report last: when it fails, the run's other outputs are kept
  if (report && !write_simulation_report(report_file, o.scene, m, summary, r, report->series()))
    return 2;

  if (!r.ok() || !finite) {
    std::fprintf(stderr, "error: %s: at t = %.9g: %s\n", o.scene.c_str(), r.t,
                 r.ok() ? "the summary's figures are not finite" : r.message.c_str());
    return 3;
  }
  if (r.contact_unconverged > 0)  // allowed by the scene: said, not failed
    std::fprintf(stderr, "warning: %s: %s\n", o.scene.c_str(),
                 contact_unconverged_message(r, so.contact).c_str());
  return 0;
}

}  // namespace appell::cli
