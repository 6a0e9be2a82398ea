// The Lagrangian tests' helpers (lagrangian_test.cpp, lagrangian_examples_test.cpp,
// lagrangian_nonlinear_test.cpp): an example scene's path, the message a scene text is
// refused with, and the numbers of a CSV file.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "appell/lagrangian_scene.hpp"
#include "appell/scene.hpp"
#include "cli_util.hpp"

namespace appell::lagrangian_test {

inline std::string example(const std::string& name) {
  return std::string(APPELL_SOURCE_DIR) + "/scenes/examples/lagrangian/" + name;
}

inline std::string load_error(const std::string& text) {
  try {
    load_lagrangian_scene_from_string(text, "s.json");
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

// the numbers of a CSV file, its header skipped
inline std::vector<std::vector<double>> csv_rows(const std::string& path) {
  std::istringstream in(testing::read_file(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::vector<double>> out;
  while (std::getline(in, line)) {
    std::vector<double> v;
    std::istringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ',')) v.push_back(std::stod(cell));
    out.push_back(v);
  }
  return out;
}

}  // namespace appell::lagrangian_test
