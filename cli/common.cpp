#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "appell/scene.hpp"
#include "cli/commands.hpp"

namespace appell::cli {

bool load_or_report(const std::string& scene, Scene& out) {
  if (!loaded_or_reported(scene, out, [](const std::string& p) { return load_scene(p); }))
    return false;
  for (const std::string& w : out.warnings) std::cerr << "warning: " << w << "\n";
  return true;
}

bool formulation_or_report(const std::string& name, Formulation& out) {
  if (name.empty()) {
    out = Formulation::Auto;  // the scene's choice (its "solver", else by structure)
    return true;
  }
  if (parse_formulation(name, out)) return true;
  std::cerr << "error: --formulation: unknown formulation '" << name << "'; expected "
            << formulation_names() << "\n";
  return false;
}

bool gibbs_appell_allowed(const std::string& formulation) {
  Formulation f = Formulation::Auto;
  return formulation.empty() || (parse_formulation(formulation, f) &&
                                 (f == Formulation::Auto || f == Formulation::GibbsAppell));
}

bool joint_frame_or_report(const std::string& name, JointFrame& out) {
  if (name.empty()) {
    out = JointFrame::Parent;
    return true;
  }
  if (parse_joint_frame(name, out)) return true;
  std::cerr << "error: --joint-frame: unknown frame '" << name
            << "'; expected parent (the parent joint frame: the world for a floating base) or "
               "child (the child's joint frame: the body frame for a floating base)\n";
  return false;
}

bool options_and_scene_or_report(const std::string& formulation, const std::string& joint_frame,
                                 const std::string& path, Formulation& f, JointFrame& frame,
                                 Scene& scene) {
  return formulation_or_report(formulation, f) && joint_frame_or_report(joint_frame, frame) &&
         load_or_report(path, scene);
}

namespace {

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

}  // namespace

bool list_or_report(const std::string& option, const std::string& text,
                    std::vector<ListItem>& out) {
  out.clear();
  size_t from = 0;
  for (int position = 1;; ++position) {
    const size_t comma = text.find(',', from);
    const std::string item =
        trimmed(text.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (item.empty()) {
      std::cerr << "error: " << option << ": item " << position << " is empty (in '" << text
                << "')\n";
      return false;
    }
    out.push_back({item, position});
    if (comma == std::string::npos) return true;
    from = comma + 1;
  }
}

bool parse_number(const std::string& text, double& out) {
  // [+-] digits [. digits] [e [+-] digits], at least one digit before the exponent
  size_t k = 0, digits = 0;
  const auto run = [&] {
    size_t n = 0;
    while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) ++k, ++n;
    return n;
  };
  if (k < text.size() && (text[k] == '+' || text[k] == '-')) ++k;
  digits += run();
  if (k < text.size() && text[k] == '.') ++k, digits += run();
  if (digits == 0) return false;
  if (k < text.size() && (text[k] == 'e' || text[k] == 'E')) {
    ++k;
    if (k < text.size() && (text[k] == '+' || text[k] == '-')) ++k;
    if (run() == 0) return false;
  }
  if (k != text.size()) return false;
  out = std::strtod(text.c_str(), nullptr);
  return std::isfinite(out);
}

bool number_or_report(const std::string& option, const std::string& where, const std::string& text,
                      double& out) {
  if (parse_number(text, out)) return true;
  std::cerr << "error: " << option << ": " << (where.empty() ? "" : where + ": ")
            << "expected a finite number (got " << (text.empty() ? "nothing" : text) << ")\n";
  return false;
}

int finish_stdout(int status) {
  errno = 0;
  std::cout.flush();
  if (std::cout && std::fflush(stdout) == 0 && !std::ferror(stdout)) return status;
  const int err = errno ? errno : EIO;
  std::cerr << "error: standard output: cannot write: " << std::strerror(err) << "\n";
  return status == 0 ? 2 : status;
}

}  // namespace appell::cli
