// Shared by the command line's joint tests (cli_joint_outputs_test.cpp,
// cli_joint_frame_test.cpp): a floating base with a ball on a spherical joint, the numbers
// of a JSON array, and the check of a usage error.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_util.hpp"

namespace appell::cli_joints {

// a floating base on a free joint, turned and moving, and a ball on a damped spherical
// joint, turned and spinning (joint space: the joints place the bodies)
inline const char kFloating[] = R"j({"gravity": [0, 0, -9.81],
 "bodies": [
  {"name": "base", "mass": 3, "inertia": {"principal": [0.1, 0.2, 0.3]}, "com": [0.05, 0, 0]},
  {"name": "ball", "mass": 1, "inertia": {"principal": [0.01, 0.02, 0.03]}, "com": [0, 0, -0.1]}],
 "constraints": [
  {"name": "root_joint", "type": "free", "bodies": ["world", "base"], "origin": {"xyz": [0, 0, 0]},
   "q": [0.1, 0.2, 1.0, 0.8, 0.2, -0.4, 0.4], "qd": [0.3, -0.2, 0.5, 0.7, -1.1, 0.4]},
  {"name": "hip", "type": "spherical", "bodies": ["base", "ball"], "origin": {"xyz": [0.2, 0, 0]},
   "q": [0.9, -0.3, 0.2, 0.25], "qd": [1.5, 0.4, -0.8]}],
 "forces": [{"type": "joint_damping", "joint": "hip", "damping": 0.3}],
 "integrator": {"method": "rk4", "duration": 0.2, "dt": 0.001}, "output": {"every": 50}})j";

inline std::vector<double> numbers(const nlohmann::json& a) {
  std::vector<double> v;
  for (const nlohmann::json& x : a) v.push_back(x.get<double>());
  return v;
}

inline void expect_usage_error(const testing::CliResult& r, const std::string& message) {
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, message);
  EXPECT_EQ(r.out, "");
}

}  // namespace appell::cli_joints
