// Assembles the HTML report: the page (cli/report/: report.html, report.css and the
// script's parts, *.js), the embedded three.js and uPlot, and the run's data as one JSON
// block.  Everything is inline, so the file works offline and can be mailed around.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "appell/data.hpp"
#include "appell/forward.hpp"
#include "cli/report.hpp"

namespace appell::cli {

std::string report_asset(const std::string& name);  // generated (cmake/embed_assets.cmake)

using nlohmann::json;

bool report_available() {
#ifdef APPELL_HAVE_REPORT
  return true;
#else
  return false;
#endif
}

std::string report_unavailable_message() {
  return "this build of appell has no report feature: three.js and uPlot were not available "
         "from npm when it was configured (install nodejs and npm, then re-run cmake; "
         "-DAPPELL_REPORT=OFF also turns it off)";
}

namespace {

constexpr size_t kMaxInstants = 2000;  // the page stays small and fast

// 6 significant digits are plenty for pictures
double rounded(double v) {
  if (!std::isfinite(v)) return v;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return std::strtod(buf, nullptr);
}

// at most kMaxInstants indices, evenly spread, the first and the last always in
std::vector<size_t> picked(size_t n) {
  std::vector<size_t> idx;
  const size_t stride = (n + kMaxInstants - 1) / kMaxInstants;
  for (size_t i = 0; i < n; i += std::max<size_t>(stride, 1)) idx.push_back(i);
  if (n > 0 && idx.back() != n - 1) idx.push_back(n - 1);
  return idx;
}

json pick(const std::vector<double>& v, const std::vector<size_t>& idx, int width = 1) {
  json out = json::array();
  for (size_t i : idx)
    for (int k = 0; k < width; ++k) out.push_back(rounded(v[i * width + k]));
  return out;
}

json series_json(const ReportSeries& s) {
  const std::vector<size_t> idx = picked(s.t.size());
  json j = {{"t", pick(s.t, idx)},
            {"energy", pick(s.energy, idx)},
            {"violation_position", pick(s.violation_position, idx)},
            {"violation_velocity", pick(s.violation_velocity, idx)},
            {"pose", json::array()},
            {"forces", json::array()}};
  // the drift before rounding: it is often far below the energy's sixth digit
  std::vector<double> drift;
  for (double e : s.energy) drift.push_back(e - s.energy.front());
  j["energy_drift"] = pick(drift, idx);
  for (const auto& p : s.pose) j["pose"].push_back(pick(p, idx, 7));
  if (s.has_forces)
    for (size_t k = 0; k < s.force.size(); ++k)
      j["forces"].push_back({{"name", s.force_names[k]}, {"values", pick(s.force[k], idx)}});
  j["rows"] = s.t.size();
  // the contact layer (cli/report/contacts.js): per picked instant its points and forces
  if (s.has_contacts && s.contacts.size() == s.t.size()) {
    json c = json::array();
    for (size_t i : idx) {
      json row = json::array();
      for (double v : s.contacts[i]) row.push_back(rounded(v));
      c.push_back(row);
    }
    j["contacts"] = c;
  }
  return j;
}

// DoF and rank at t = 0, as `appell check` reports them
json meta_json(const Model& m, const ReportMeta& meta) {
  Data d(m);
  const SolveStatus status = forward(m, d, Formulation::Pinv);
  json j = {{"scene", m.name()},
            {"file", meta.scene_file},
            {"formulation", meta.formulation},
            {"integrator", meta.integrator},
            {"bodies", m.nbody()},
            {"constraints", m.constraints().size()},
            {"coordinates", m.nu()},
            {"rank", d.diagnostics.rank},
            {"dof", m.nu() - d.diagnostics.rank},
            {"status", meta.status}};
  if (status != SolveStatus::Ok) j["rank"] = j["dof"] = nullptr;
  j["wall_seconds"] = meta.wall_seconds ? json(*meta.wall_seconds) : json(nullptr);
  return j;
}

// Asset text that may sit inside a <script> element: "</" never closes it early.  (JSON
// gets the stronger script_json.)
std::string script_safe(std::string s) {
  for (size_t at = 0; (at = s.find("</", at)) != std::string::npos; at += 3)
    s.replace(at, 2, "<\\/");
  return s;
}

// JSON text that may sit inside a <script> element.  In JSON text '<', '>' and '&' occur
// only inside strings, where \u003c, \u003e and \u0026 mean the same characters; with none
// of them left, no "</script", "<!--" or "<script" can appear, so the browser's script
// data states (HTML §13.2.5.4) never leave the element or swallow the ones after it.
// Invalid UTF-8 (a URDF's name) is replaced, not thrown.
std::string script_json(const json& j) {
  const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else if (c == '>')
      out += "\\u003e";
    else if (c == '&')
      out += "\\u0026";
    else
      out += c;
  }
  return out;
}

// The page's own script: its parts (cli/report/*.js) in this order, in one strict-mode
// function, so they share their names without globals and stay one <script> element.
// report.js starts the page: last.
constexpr const char* kScriptParts[] = {"data.js",     "geometry.js", "scene.js",
                                        "contacts.js", "charts.js",   "report.js"};

std::string report_script() {
  std::string s = "(function () {\n'use strict';\n";
  for (const char* name : kScriptParts) s += report_asset(name) + "\n";
  return s + "})();\n";
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string report_page(const Model& m, const ReportMeta& meta, const json& scene_doc,
                        const ReportSeries& series) {
  const json data = {{"meta", meta_json(m, meta)},
                     {"scene", report_scene(m, scene_doc)},
                     {"geometry", report_geometry(m)},
                     {"series", series_json(series)}};
  std::ostringstream out;
  out << "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>" << html_escape(m.name()) << " — appell report</title>\n"
      << "<style>\n"
      << report_asset("uPlot.min.css") << "\n"
      << report_asset("report.css") << "</style>\n</head>\n<body>\n"
      << report_asset("report.html") << "<script type=\"application/json\" id=\"appell-data\">"
      << script_json(data) << "</script>\n"
      << "<script type=\"text/plain\" id=\"three-module\">"
      << script_safe(report_asset("three.module.min.js")) << "</script>\n"
      << "<script>" << script_safe(report_asset("uPlot.iife.min.js")) << "</script>\n"
      << "<script>" << script_safe(report_script()) << "</script>\n"
      << "</body>\n</html>\n";
  return out.str();
}

}  // namespace appell::cli
