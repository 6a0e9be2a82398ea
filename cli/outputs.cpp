#include "cli/outputs.hpp"

#include "appell/trajectory.hpp"
#include "cli/joint_outputs.hpp"

namespace appell::cli {

void Csv::row(const std::vector<double>& values) {
  buffer_.format(values);
  write(buffer_.data(), buffer_.size());
}

std::string traj_header(const Model& m) {
  std::string h = "t";
  for (const Body& b : m.bodies()) {
    for (const char* c : {"x", "y", "z"}) h += "," + b.name + "." + c;
    if (b.rigid())
      for (const char* c : {"qw", "qx", "qy", "qz"}) h += "," + b.name + "." + c;
    for (const char* c : {"vx", "vy", "vz"}) h += "," + b.name + "." + c;
    if (b.rigid())
      for (const char* c : {"wx", "wy", "wz"}) h += "," + b.name + "." + c;
  }
  return h + ",energy,violation_position,violation_velocity" + joint_traj_header(m) + "\n";
}

std::string forces_header(const Model& m) {
  std::string h = "t";
  for (const ConstraintPtr& c : m.constraints())
    for (int b : c->bodies()) {
      const std::string p = "," + c->name() + "." + m.bodies()[b].name + ".";
      for (const char* k : {"fx", "fy", "fz"}) h += p + k;
      if (m.bodies()[b].rigid())
        for (const char* k : {"mx", "my", "mz"}) h += p + k;
    }
  h += joint_forces_header(m);
  for (const std::string& c : joint_limit_columns(m)) h += "," + c;
  return h + "\n";
}

}  // namespace appell::cli
