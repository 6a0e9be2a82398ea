// URDF texts for the import tests (urdf_hardening_test.cpp, urdf_joints_test.cpp): files
// in a fresh folder, links, joints and robots made of them, and the check that the command
// line refuses a file with one located line.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "tests/cli_util.hpp"

namespace appell::urdf_test {

// a file in a fresh folder of the test's temporary folder (includes are relative to it)
inline std::string write(const std::string& name, const std::string& text) {
  static const std::string dir = [] {
    const std::string d = ::testing::TempDir() + "urdf_hardening_" + std::to_string(getpid());
    ::mkdir(d.c_str(), 0700);
    return d + "/";
  }();
  std::ofstream(dir + name, std::ios::binary) << text;
  return dir + name;
}

inline constexpr char kInertial[] =
    R"(<inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>)";

inline std::string link(const std::string& name) {
  return "<link name=\"" + name + "\">" + kInertial + "</link>";
}
inline std::string joint(const std::string& name, const std::string& parent,
                         const std::string& child, const std::string& type = "continuous",
                         const std::string& extra = "") {
  return "<joint name=\"" + name + "\" type=\"" + type + "\"><parent link=\"" + parent +
         "\"/><child link=\"" + child + "\"/><origin xyz=\"0 0 -0.5\"/><axis xyz=\"0 1 0\"/>" +
         extra + "</joint>";
}
inline std::string robot(const std::string& body, const std::string& name = "r") {
  return "<?xml version=\"1.0\"?>\n<robot name=\"" + name + "\"><link name=\"base\"/>" + body +
         "</robot>\n";
}

// `appell check` and `eval` of `path` refuse it with exactly `expected` (after "error: ")
// on one line, status 2, nothing on stdout
inline void expect_cli_refuses(const std::string& path, const std::string& expected) {
  for (const char* command : {"check", "eval"}) {
    const testing::CliResult r = testing::run_cli(std::string(command) + " '" + path + "'");
    EXPECT_EQ(r.status, 2) << command << " " << path;
    EXPECT_EQ(r.err, "error: " + expected + "\n") << command;
    EXPECT_EQ(r.out, "") << command;
  }
}

}  // namespace appell::urdf_test
