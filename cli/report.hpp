// The HTML report (`appell simulate --report`, `appell report`): one self-contained file
// with a three.js animation of the bodies and uPlot charts of the run.
//
//   ReportSeries   what the charts and the animation show, per output instant: body poses,
//                  energy, constraint violations, the magnitude of each constraint force on
//                  each of its bodies.  Filled by a ReportCollector observing a simulation, or
//                  read back from traj.csv / forces.csv (read_series).
//   ReportMeta     the header: scene, formulation, integrator, DoF, rank, run time.
//   report_scene   what the animation draws, from the compiled Model (report_scene.cpp); the
//                  scene file adds only optional extras (a body's `visual`), by name.
//   report_page    the geometry + the series + the embedded JavaScript
//                  (cmake/report_assets.cmake) → one HTML page (report_html.cpp).
//
// A build without the JavaScript (no npm at configure time) has no report feature:
// report_available() is false and the commands say so (exit 2).
#pragma once

#include <iosfwd>
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
  // moreau runs observed live: per instant, the contact points of the step that produced it,
  // x y z fx fy fz each (the force on the body that is not the world: on body_b, or on
  // body_a when b is the world; impulse / h), for the animation's contact layer
  std::vector<std::vector<double>> contacts;
  bool has_contacts = false;
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

// What read_series reads at most: a line of a CSV file is at most kMaxFieldBytes per
// column of the scene's header (%.17g needs 24), a file at most kMaxCsvBytes.
struct ReportLimits {
  static constexpr size_t kMaxFieldBytes = 64;
  static constexpr size_t kMaxCsvBytes = size_t{512} << 20;
  static constexpr size_t kMaxSummaryBytes = size_t{1} << 20;
  // the triangles of all the meshes a page draws (about 4 MB of base64 at most): larger
  // meshes are decimated, and the page says so (report_geometry)
  static constexpr size_t kMaxTriangles = 200000;
};

// The series of traj.csv and (when forces is non-null) forces.csv written for model m;
// the names locate errors.  Throws std::runtime_error "<name>: line L: ..." or
// "<name>:L:C: ..." (column C, 1-based) when a file does not match the model's columns,
// a line or the file is longer than ReportLimits allow, or a field is not a finite
// decimal number (nan, inf and hexadecimal are refused).
ReportSeries read_series(const Model& m, std::istream& traj, const std::string& traj_name,
                         std::istream* forces, const std::string& forces_name);
// The same from files (forces empty: none); also throws when a file cannot be opened.
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

// The parsed document of a JSON scene file, for report_scene's extras; null for a URDF
// file or a file that cannot be read or parsed (the extras are optional).
nlohmann::json report_scene_document(const std::string& scene_file);

// The geometry the animation draws, as JSON, from the Model: one shape per body (the
// `visual` or `inertia` shape that `doc`'s body of the same name gives, else the box of
// equal inertia), every joint (its anchor on both bodies, its axis), the points of
// distance constraints, markers, springs, and the up direction.  Points are given in
// their body's frame ("local") and in the world at t = 0 ("p").  `doc` may be anything:
// what does not have the expected form is ignored.
nlohmann::json report_scene(const Model& m, const nlohmann::json& doc);

// The shapes the animation draws on the bodies (report_geometry.cpp): every shape of
// Model::shapes() and Model::visuals() with its kind, sizes, pose on its body ("p", "q":
// w x y z) and bounding radius "r"; the meshes' triangles once per distinct mesh
// ("positions": float32 x y z, "indices": uint32, little-endian, base64), at most
// ReportLimits::kMaxTriangles in all, with a note per decimated mesh.
nlohmann::json report_geometry(const Model& m);

// The page.  Every JSON embedded in it has '<', '>' and '&' written as \u003c, \u003e,
// \u0026, so no text of the scene (a body named "<!--<script>") can end or change its
// <script> element.  Throws std::runtime_error only on an internal failure.
std::string report_page(const Model& m, const ReportMeta& meta, const nlohmann::json& scene_doc,
                        const ReportSeries& series);

// The report's output file: a temporary beside the path, renamed onto it when complete
// (cli/outputs.hpp), so a failed write leaves an older report as it was.
class ReportFile : public OutputFile {
 public:
  void page(const std::string& html) { write(html.data(), html.size()); }
};

// The report of a finished `appell simulate` run, written into `file` and committed: its
// summary gives the formulation, the integrator and the run time; a failed run's report
// says why it stopped.  On failure prints one "error: --report: ..." line and returns
// false; the run's other outputs are not touched.
bool write_simulation_report(ReportFile& file, const std::string& scene_file, const Model& m,
                             const nlohmann::ordered_json& summary, const SimulationResult& r,
                             const ReportSeries& series);

// `appell report SCENE traj.csv [forces.csv] -o report.html [--summary summary.json]`
struct ReportOptions {
  std::string scene, traj, forces, out, summary;
};
int run_report(const ReportOptions& options);

}  // namespace appell::cli
