// `appell report` and the report of `appell simulate --report`: the inputs are checked
// (bounded, located errors), the output is never one of the inputs, and the page is
// written to a temporary renamed onto its path only when complete.
#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>

#include "appell/forward.hpp"
#include "appell/scene_document.hpp"
#include "cli/commands.hpp"
#include "cli/report.hpp"

namespace appell::cli {

using nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what);
}

// the whole of a small file, at most `limit` bytes
std::string read_small_file(const std::string& path, size_t limit) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail(path + ": is a directory");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!f) fail(path + ": cannot open the file: " + std::strerror(errno));
  std::string text;
  char buf[1 << 16];
  while (text.size() <= limit) {
    const size_t n = std::fread(buf, 1, sizeof buf, f.get());
    text.append(buf, n);
    if (n < sizeof buf) break;
  }
  if (std::ferror(f.get())) fail(path + ": cannot read the file");
  if (text.size() > limit)
    fail(path + ": larger than the limit of " + std::to_string(limit >> 10) +
         " KiB for a summary.json");
  return text;
}

// --summary: what the header shows of the run (formulation, integrator, run time), each
// optional, each checked
void read_summary(const std::string& path, ReportMeta& meta) {
  json s;
  try {
    s = parse_scene_document(read_small_file(path, ReportLimits::kMaxSummaryBytes), path);
  } catch (const SceneError& e) {
    fail(e.what());
  }
  if (!s.is_object()) fail(path + ": expected a JSON object (the summary.json of appell simulate)");
  for (const char* key : {"formulation", "integrator"})
    if (s.contains(key)) {
      if (!s[key].is_string()) fail(path + ": /" + key + ": expected a string");
      (key[0] == 'f' ? meta.formulation : meta.integrator) = s[key].get<std::string>();
    }
  if (s.contains("wall_seconds")) {
    const json& w = s["wall_seconds"];
    if (!w.is_number()) fail(path + ": /wall_seconds: expected a number");
    const double v = w.get<double>();
    if (!(v >= 0) || !std::isfinite(v))
      fail(path + ": /wall_seconds: must be a finite number >= 0, got " + w.dump());
    meta.wall_seconds = v;
  }
}

// the same file (device and inode), whatever the spelling of the paths; false when
// either does not exist
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return !a.empty() && !b.empty() && ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 &&
         sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// writes the page into `file` (already open) and commits it; false with `error`
bool write_page(ReportFile& file, const std::string& html, std::string& error) {
  file.page(html);
  if (file.commit()) return true;
  error = file.error();
  return false;
}

}  // namespace

bool write_simulation_report(ReportFile& file, const std::string& scene_file, const Model& m,
                             const nlohmann::ordered_json& summary, const SimulationResult& r,
                             const ReportSeries& series) {
  std::string html, error;
  try {
    ReportMeta meta;
    meta.scene_file = scene_file;
    meta.formulation = summary.value("formulation", "");
    meta.integrator = summary.value("integrator", "");
    const auto wall = summary.find("wall_seconds");
    if (wall != summary.end() && wall->is_number()) meta.wall_seconds = wall->get<double>();
    if (!r.ok()) meta.status = "stopped at t = " + std::to_string(r.t) + ": " + r.message;
    html = report_page(m, meta, report_scene_document(scene_file), series);
  } catch (const std::exception& e) {
    std::cerr << "error: --report: cannot make the report of " << scene_file << ": " << e.what()
              << "\n";
    file.discard();
    return false;
  }
  if (write_page(file, html, error)) return true;
  std::cerr << "error: --report: " << error << "\n";
  return false;
}

int run_report(const ReportOptions& o) {
  if (!report_available()) {
    std::cerr << "error: " << report_unavailable_message() << "\n";
    return 2;
  }
  // the output is none of the inputs (the same file under any spelling of its path)
  for (const auto& [what, input] :
       {std::pair<const char*, const std::string&>{"the scene", o.scene},
        {"the trajectory", o.traj},
        {"the forces", o.forces},
        {"the summary", o.summary}})
    if (same_file(o.out, input)) {
      std::cerr << "error: -o: '" << o.out << "' is " << what << " file '" << input
                << "'; it is not overwritten\n";
      return 2;
    }
  struct stat st;
  if (::stat(o.out.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::cerr << "error: -o: '" << o.out << "' is a directory\n";
    return 2;
  }
  Scene scene;
  if (!load_or_report(o.scene, scene)) return 2;
  // nor any file the scene was built from (an included URDF or MJCF, a mesh)
  const std::string why = input_clash(o.out, o.scene, scene.source_files);
  if (!why.empty()) {
    std::cerr << "error: -o: " << why << "\n";
    return 2;
  }
  const Model m = compile(scene);
  ReportMeta meta;
  meta.scene_file = o.scene;
  meta.formulation = formulation_name(resolve_formulation(m, scene.settings.solver.formulation));
  meta.integrator = scene.settings.integrator.method;
  std::string html;
  try {
    if (!o.summary.empty()) read_summary(o.summary, meta);
    const ReportSeries series = read_series(m, o.traj, o.forces);
    html = report_page(m, meta, report_scene_document(o.scene), series);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  ReportFile out;
  std::string error;
  if (!out.open(o.out) || !write_page(out, html, error)) {
    std::cerr << "error: -o: " << (error.empty() ? out.error() : error) << "\n";
    return 2;
  }
  return 0;
}

}  // namespace appell::cli
