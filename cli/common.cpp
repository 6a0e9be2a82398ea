#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "appell/scene.hpp"
#include "cli/commands.hpp"

namespace appell::cli {

bool load_or_report(const std::string& scene, Scene& out) {
  try {
    out = load_scene(scene);
    return true;
  } catch (const SceneError& e) {
    std::cerr << "error: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << scene << ": " << e.what() << "\n";
  }
  return false;
}

bool formulation_or_report(const std::string& name, Formulation& out) {
  if (name.empty()) {
    out = Formulation::Auto;  // the scene's choice (its "solver", else by structure)
    return true;
  }
  if (parse_formulation(name, out)) return true;
  std::cerr << "error: --formulation: unknown formulation '" << name
            << "'; expected auto, recursive, gibbs-appell, pinv or sparse\n";
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
