// The observer of `appell simulate`: writes traj.csv and forces.csv rows and keeps the
// running figures of summary.json (README, Command line):
//
//   formulation, integrator, duration (the time reached), steps (accepted),
//   rhs_evaluations (right-hand sides evaluated by the integrator; the extra evaluations
//   that fill dense-output rows are not counted), wall_seconds, energy {initial, final,
//   max_abs_drift, max_rel_drift (relative to max(|initial|, the largest kinetic energy
//   reached): the potential's zero is arbitrary, so |initial| alone can be 0)},
//   constraint_violation {position_max, velocity_max} over the rows,
//   initial_velocity_correction (‖Δu‖_M, see appell/simulation.hpp),
//   final_state {bodies: {name: {position, quaternion, velocity, angular_velocity}}
//   (particles: the quaternion and angular velocity omitted), joints: {name: {q, qd}} (as
//   traj.csv's joint columns, appell/joint_columns.hpp; free and spherical joints also
//   say their "frame")} at the last row.
//
// The rows go through a SampleWriter (cli/sample_writer.hpp), on a writer thread when asked;
// the final state is copied per sample and turned into JSON once, at the end; a sample
// allocates nothing once the buffers have grown.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "appell/joint_columns.hpp"
#include "appell/simulation.hpp"
#include "appell/trajectory.hpp"
#include "cli/outputs.hpp"
#include "cli/sample_writer.hpp"

namespace appell::cli {

class Recorder {
 public:
  // traj and forces may be closed (not written); `threaded`: rows written on a thread
  // frame: that of free and spherical joints' rates (appell/joint_columns.hpp)
  Recorder(const Model& m, Csv& traj, Csv& forces, bool threaded,
           JointFrame frame = JointFrame::Parent);
  void observe(const Sample& s);
  // a row could not be written: the run may stop
  bool write_failed() const { return writer_.failed(); }
  // every row observed written (the files may be committed); summary() calls it
  void finish() { writer_.finish(); }
  nlohmann::ordered_json summary(const std::string& formulation, const std::string& integrator,
                                 const SimulationResult& r);

 private:
  const Model& m_;
  const bool traj_;
  const JointFrame frame_;
  SampleWriter writer_;
  // the quaternion signs and joint angles when traj.csv is not written (else the writer's)
  SampleRows rows_;
  std::vector<double> row_;  // rows_'s scratch
  double E0_ = 0, E_last_ = 0, max_drift_ = 0, T_max_ = 0, pos_max_ = 0, vel_max_ = 0;
  std::vector<BodyState> last_;  // the body states of the last sample
  State last_state_;             // and its joint-space State (Sample::state), when it has one
  bool last_has_state_ = false;
  JointColumns columns_;  // the final joints' q, u from last_state_ where they own them
};

// every number of a JSON document is finite (nlohmann would write NaN and ∞ as null)
bool finite_numbers(const nlohmann::ordered_json& j);

}  // namespace appell::cli
