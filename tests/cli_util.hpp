// Runs the built `appell` program and captures its exit status, stdout and stderr.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "appell/scene.hpp"

namespace appell::testing {

struct CliResult {
  int status = -1;
  std::string out, err;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// args are passed through the shell: quote them where needed
inline CliResult run_cli(const std::string& args) {
  static int counter = 0;
  const std::string base = ::testing::TempDir() + "appell_cli_" + std::to_string(getpid()) + "_" +
                           std::to_string(counter++);
  const std::string cmd = std::string(APPELL_CLI_PATH) + " " + args + " >" + base + ".out 2>" +
                          base + ".err </dev/null";
  const int raw = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = read_file(base + ".out");
  r.err = read_file(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

// the prefix of write_temp's file names (this process's id), for files that name each other
inline std::string pid_prefix() {
  return std::to_string(getpid()) + "_";
}

// writes text to a fresh temporary file and returns its path
inline std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + pid_prefix() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// the message load_scene(path) throws, "" when it loads
inline std::string load_error(const std::string& path) {
  try {
    load_scene(path);
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

// true when this build embeds the report's JavaScript (npm at configure time)
inline bool built_with_report() {
  const CliResult r = run_cli("simulate " + std::string(APPELL_SOURCE_DIR) +
                              "/scenes/examples/kepler.json --duration 0 --quiet --report " +
                              ::testing::TempDir() + "probe_" + std::to_string(getpid()) + ".html");
  return r.err.find("no report feature") == std::string::npos;
}

}  // namespace appell::testing

#define REQUIRE_REPORT()                       \
  if (!::appell::testing::built_with_report()) \
  GTEST_SKIP() << "this build has no report feature (no npm)"
