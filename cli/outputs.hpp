// The files `appell simulate` writes, row by row (SPEC §3):
//
//   traj.csv     t, per body x y z [qw qx qy qz] vx vy vz [wx wy wz] (brackets: rigid
//                bodies only), energy, violation_position, violation_velocity, then the
//                joint columns (cli/joint_outputs.hpp); one row per output instant, %.17g
//                (round-trips every double).
//   forces.csv   t, per constraint, per body it names: <constraint>.<body>.fx fy fz
//                [mx my mz] — the resultant constraint force on the body and its moment
//                about the body's centre of mass, world frame (SPEC §1); then the
//                actuated joints' columns (cli/joint_outputs.hpp).
//
// Rows are flushed as they are written, so a run that fails (exit 3) keeps every row
// computed before the failure.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "appell/model.hpp"
#include "appell/simulation.hpp"

namespace appell::cli {

// a CSV file written row by row; closes itself
class Csv {
 public:
  Csv() = default;
  Csv(const Csv&) = delete;
  Csv& operator=(const Csv&) = delete;
  ~Csv();
  bool open(const std::string& path);
  explicit operator bool() const { return f_ != nullptr; }
  void text(const std::string& s);
  void first(double v);
  void number(double v);
  void end_row();

 private:
  std::FILE* f_ = nullptr;
};

std::string traj_header(const Model& m);
std::string forces_header(const Model& m);

// Unit quaternions [w x y z] of the rotation tensors, with the sign chosen continuous in
// time (q and −q are the same rotation).  Built from Q rather than read from d.q, so that
// it holds for every state space (joint coordinates have no quaternions).
class Quaternions {
 public:
  explicit Quaternions(const Model& m);
  const Eigen::Vector4d& operator()(const BodyState& b, int i);
  // the joint coordinates of the last traj.csv row, for continuous angles (joint_outputs.hpp)
  std::vector<double> joint_coordinates;

 private:
  std::vector<Eigen::Vector4d> last_;
};

// one traj.csv row of a sample
void write_traj_row(const Model& m, const Sample& s, Quaternions& quaternions, Csv& out);
// one forces.csv row of a sample
void write_forces_row(const Model& m, const Sample& s, Csv& out);

}  // namespace appell::cli
