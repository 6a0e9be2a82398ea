// A simulation's samples kept in memory, column by column: what `appell simulate` writes
// to traj.csv and forces.csv (README, Command line), for embedders and the Python module.
//
//   appell::Trajectory tr(model);
//   appell::simulate(model, opts, [&](const appell::Sample& s) { tr.record(s); });
//   tr.column("bob.x");                  // one value per sample
//
// Columns: those of traj.csv, traj_schema(m) (appell/output_schema.hpp: t; per body x y z
// [qw qx qy qz] vx vy vz [wx wy wz], the quaternion's sign continuous in time; energy,
// violation_position, violation_velocity; per joint <j>.q and <j>.qd, angles continuous in
// time: appell/joint_columns.hpp) — the traj_columns() first columns; then, when forces are
// kept, forces.csv's after its t, forces_schema(m): per constraint and per body it names
// <constraint>.<body>.fx fy fz [mx my mz] (the resultant constraint force on the body and
// its moment about the centre of mass, world frame), per actuated joint <j>.tau and
// <j>.power, then per joint whose limits the moreau stepper enforces (a limited revolute
// or prismatic joint of the spanning tree) <j>.limit_force: the limits' generalized force
// on the joint's coordinate (N·m or N; + pushes it up: the lower limit's force, minus the
// upper one's), the impulse / h of the step that ended at the sample, 0 when the limit is
// open or the run does not enforce limits.
//
// SampleRows gives the same values one row at a time, for writers that keep no samples
// (`appell simulate` formats each row into traj.csv and forces.csv, appell/number_format.hpp).
//
// Next to it, RunSummary keeps the figures of summary.json for one run without keeping
// the samples: energy drift, largest violations, the final body states.
#pragma once

#include <string>
#include <vector>

#include "appell/joint_columns.hpp"
#include "appell/output_schema.hpp"
#include "appell/simulation.hpp"

namespace appell {

// The values of one traj.csv row and one forces.csv row of a sample (t first in each), in
// the columns of traj_schema(m) and forces_schema(m) (appell/output_schema.hpp), with the
// quaternions' signs and the joint angles continued from the previous sample given to
// traj().  Built once per run; a row costs O(bodies + constraint slots + joints) and
// allocates nothing once the output vector has grown.
class SampleRows {
 public:
  // frame: that of free and spherical joints' rates and forces (appell/joint_columns.hpp)
  explicit SampleRows(const Model& m, JointFrame frame = JointFrame::Parent);
  // traj.csv's values of s, replacing out's contents
  void traj(const Sample& s, std::vector<double>& out);
  // forces.csv's values of s, replacing out's contents
  void forces(const Sample& s, std::vector<double>& out);
  // the unit quaternion [w x y z] of rigid body i in state b, its sign the one nearer the
  // previous call's for that body (traj() calls it for every rigid body)
  const Eigen::Vector4d& quaternion(const BodyState& b, int i);
  // the joint coordinates of the last traj() row (the joints' q columns, joint after joint
  // in constraint order), empty before it
  const std::vector<double>& joint_coordinates() const { return last_joint_q_; }
  const OutputSchema& traj_schema() const { return traj_; }
  const OutputSchema& forces_schema() const { return forces_; }

 private:
  const Model* m_;
  OutputSchema traj_, forces_;
  JointColumns joints_;
  std::vector<Eigen::Vector4d> last_q_;  // the last quaternion per body, for its sign
  std::vector<double> last_joint_q_;     // the last joint coordinates, for angle continuity
  std::vector<double> limit_force_;      // per constraint: its limit_force of this sample
  double u_[6];                          // the rates of the joint written last
};

class Trajectory {
 public:
  explicit Trajectory(const Model& m, bool forces = true);
  // appends one row (O(nbody + constraint slots)); s must come from a run of this model
  void record(const Sample& s);

  const std::vector<std::string>& columns() const { return names_; }
  size_t rows() const { return names_.empty() ? 0 : values_.size() / names_.size(); }
  size_t cols() const { return names_.size(); }
  // how many leading columns are traj.csv's (t to the joint states); the rest are forces.csv's
  size_t traj_columns() const { return traj_cols_; }
  // rows() × cols(), row-major
  const std::vector<double>& values() const { return values_; }
  // index of a column by name, −1 when there is none
  int find(const std::string& name) const;
  // one column; throws std::invalid_argument naming the column when there is none
  std::vector<double> column(const std::string& name) const;

 private:
  bool forces_;
  std::vector<std::string> names_;
  std::vector<double> values_;
  size_t traj_cols_ = 0;
  SampleRows rows_;
  std::vector<double> row_;  // one row's values, reused
};

// The figures of one run that summary.json reports, updated sample by sample.
struct RunSummary {
  double energy_initial = 0.0;
  double energy_final = 0.0;
  double max_abs_energy_drift = 0.0;  // max |E(t) − E(0)| over the samples
  double violation_position_max = 0.0;
  double violation_velocity_max = 0.0;
  std::vector<BodyState> final_bodies;  // the body states of the last sample
  long samples = 0;

  void record(const Sample& s);
  // every figure and final body state is finite (finite samples can still give an
  // infinite drift: 1e308 − (−1e308))
  bool finite() const;
};

// The rule of `appell simulate`, `appell sweep` and the Python module: a run that
// completed but whose summary is not finite failed.  Sets r to NotFinite, with the
// message "the summary's figures are not finite", when r completed and s is not finite.
void check_figures(const RunSummary& s, SimulationResult& r);

}  // namespace appell
