// The HTML report (`appell simulate --report`, `appell report`): one self-contained file
// with a three.js animation of the bodies and uPlot charts of the run.
//
//   ReportSeries   what the charts and the animation show, per output instant: body poses,
//                  energy, constraint violations, the magnitude of each constraint force on
//                  each of its bodies.  Filled by a ReportCollector observing a simulation, or
//                  read back from traj.csv / forces.csv (read_series).
//   ReportMeta     the header: scene, formulation, integrator, DoF, rank, run time.
//   write_report   the scene's geometry (report_scene.cpp) + the series + the embedded
//                  JavaScript (cmake/report_assets.cmake) → one HTML file.
//
// A build without the JavaScript (no npm at configure time) has no report feature:
// report_available() is false and the commands say so (exit 2).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "appell/model.hpp"
#include "appell/simulation.hpp"
#include "appell/trajectory.hpp"
#include "cli/outputs.hpp"

namespace appell::cli {

struct ReportSeries {
  std::vector<double> t;
  std::vector<std::vector<double>> pose;  // per body: x y z qw qx qy qz per instant
  std::vector<double> energy, violation_position, violation_velocity;
  std::vector<std::string> force_names;    // "<constraint> on <body>", forces.csv order
  std::vector<std::vector<double>> force;  // per force name: |f| per instant
  bool has_forces = false;
};

// Observes a simulation and keeps what the report shows (every sample).
class ReportCollector {
 public:
  explicit ReportCollector(const Model& m);
  void observe(const Sample& s);
  const ReportSeries& series() const { return series_; }

 private:
  const Model& m_;
  SampleRows quaternions_;  // its quaternion(): signs continuous in time
  ReportSeries series_;
};

// The series of traj.csv and (when forces is non-empty) forces.csv written for model m.
// Throws std::runtime_error naming the file, and the line, when a file does not match the
// model's columns or holds a non-number.
ReportSeries read_series(const Model& m, const std::string& traj, const std::string& forces);

struct ReportMeta {
  std::string scene_file;
  std::string formulation, integrator;
  std::optional<double> wall_seconds;  // unknown when the report is made from files
  std::string status;                  // empty: completed; else why the run stopped
};

// true when this build embeds the report's JavaScript
bool report_available();
// the message a build without the report feature prints
std::string report_unavailable_message();

// The geometry the animation draws, as JSON: bodies' shapes (from the scene's `visual`
// or `inertia` shape, else the box of equal inertia), joints' anchors, springs, the up
// direction (report_scene.cpp).
nlohmann::json report_scene(const Model& m, const std::string& scene_file);

// Writes the report; false (and errno set) when the file cannot be written.
bool write_report(const std::string& path, const Model& m, const ReportMeta& meta,
                  const ReportSeries& series);

// The report of a finished `appell simulate` run: its summary gives the formulation, the
// integrator and the run time; a failed run's report says why it stopped.
bool write_simulation_report(const std::string& path, const std::string& scene_file, const Model& m,
                             const nlohmann::ordered_json& summary, const SimulationResult& r,
                             const ReportSeries& series);

// `appell report SCENE traj.csv [forces.csv] -o report.html [--summary summary.json]`
struct ReportOptions {
  std::string scene, traj, forces, out, summary;
};
int run_report(const ReportOptions& options);

}  // namespace appell::cli
