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

// the simulate command's output files
struct SimulateOutputs {
  Csv traj, forces, contacts;
  OutputFile summary;
  ReportFile report;
};

// every output path checked and opened (as a temporary) before anything is written, the
// csv headers written; false (reported) when one cannot be
bool open_outputs(const SimulateOptions& o, const Scene& scene, const Model& m,
                  SimulateOutputs& out) {
  if (!check_output_paths(o.scene, scene.source_files,
                          {{"--out", o.out},
                           {"--forces", o.forces},
                           {"--contacts", o.contacts},
                           {"--summary", o.summary},
                           {"--report", o.report}}))
    return false;
  const auto open = [](OutputFile& file, const char* option, const std::string& path) {
    return path.empty() || file.open(path) || usage_error(option + (": " + file.error()));
  };
  if (!open(out.traj, "--out", o.out) || !open(out.forces, "--forces", o.forces) ||
      !open(out.summary, "--summary", o.summary) || !open(out.report, "--report", o.report) ||
      !open(out.contacts, "--contacts", o.contacts))
    return false;
  if (out.traj) out.traj.text(traj_schema(m).header());
  if (out.forces) out.forces.text(forces_schema(m).header());
  if (out.contacts) out.contacts.text(contacts_header());
  return true;
}

// the run, observed by the recorder (and the report's collector); the run stops early when
// an output cannot be written
void run_observed(const Model& m, Simulation& sim, Recorder& recorder,
                  std::optional<ReportCollector>& report, Csv& contacts) {
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
  if (sim.start(observe))
    while (!recorder.write_failed() && !contacts.failed() && sim.step(observe)) {
    }
  recorder.finish();
}

// the summary and the report written, the outputs committed; the exit status
int finish_outputs(const SimulateOptions& o, const Model& m, const SimulationOptions& so,
                   const Simulation& sim, Recorder& recorder,
                   const std::optional<ReportCollector>& report, SimulateOutputs& out) {
  const SimulationResult& r = sim.result();
  const auto summary =
      recorder.summary(formulation_name(sim.state_space().formulation()), sim.method(), r);
  // (finite samples can still give an infinite drift, 1e308 − (−1e308): then no summary)
  const bool finite = finite_numbers(summary);
  if (!finite)
    out.summary.discard();
  else if (out.summary)
    out.summary.text(summary.dump(2) + "\n");
  else if (!o.quiet)
    std::cout << summary.dump(2) << "\n";
  if (!commit_all({&out.traj, &out.forces, &out.contacts, &out.summary})) return 2;
  // the report last: when it fails, the run's other outputs are kept
  if (report && !write_simulation_report(out.report, o.scene, m, summary, r, report->series()))
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

}  // namespace

int run_simulate(const SimulateOptions& o) {
  if (is_lagrangian_scene(o.scene)) return run_lagrangian_simulate(o);
  if (is_rigid_nu_scene(o.scene)) return run_rigid_nu_simulate(o);
  Scene scene;
  Formulation f;
  JointFrame frame;
  if (!options_and_scene_or_report(o.formulation, o.joint_frame, o.scene, f, frame, scene))
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
  SimulateOutputs out;
  if (!open_outputs(o, scene, m, out)) return 2;

  // rows are written on a thread of their own when a second core can take them
  // (cli/sample_writer.hpp)
  Recorder recorder(m, out.traj, out.forces, std::thread::hardware_concurrency() > 1, frame);
  std::optional<ReportCollector> report;
  if (!o.report.empty()) report.emplace(m);
  run_observed(m, *sim, recorder, report, out.contacts);
  progress.finish();
  return finish_outputs(o, m, so, *sim, recorder, report, out);
}

}  // namespace appell::cli
