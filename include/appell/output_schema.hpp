// The columns of traj.csv and forces.csv, described once per model (README, Command line).
// The writers (appell::SampleRows for `appell simulate`, appell::Trajectory for the Python
// module, the CLI's run of a system in its quasi-velocities), the files' headers and the
// report's reader (cli/report_series.cpp) all walk or search this description; none of
// them counts columns of its own.
//
// A schema is a list of groups, each one quantity of one subject (a body, a constraint, a
// joint) in `width` consecutive columns:
//
//   traj.csv of a model          t; per body <b>.x y z [qw qx qy qz] vx vy vz [wx wy wz]
//     (traj_schema)              (brackets: rigid bodies only); energy, violation_position,
//                                violation_velocity; per joint <j>.q and <j>.qd (one column
//                                a coordinate; several: .q0 .q1 ..., appell/joint_columns.hpp)
//   forces.csv of a model        t; per constraint, per body it names <c>.<b>.fx fy fz
//     (forces_schema)            [mx my mz]; per actuated joint <j>.tau (.tau0 ...) and
//                                <j>.power; per joint whose limits moreau enforces
//                                <j>.limit_force (appell/trajectory.hpp)
//   traj.csv of a system in its  t, q.<c> per coordinate, qd.<rate> per rate, nu.<ν> per
//   quasi-velocities             quasi-velocity, energy, violation_position,
//     (nu_traj_schema)           violation_velocity (docs/lagrangian.md)
//
// Cost: building a model's schemas is O(bodies + constraint slots + joints + forces) and
// allocates the names; finding a group or a name is a linear search (a reader looks up its
// columns once, before the rows).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "appell/model.hpp"

namespace appell {

// What a group of columns holds.
enum class Quantity {
  Time,               // t
  Position,           // body: its centre of mass, world frame (x y z)
  Orientation,        // rigid body: unit quaternion (qw qx qy qz), sign continuous in time
  Velocity,           // body: centre-of-mass velocity (vx vy vz)
  AngularVelocity,    // rigid body: angular velocity, world frame (wx wy wz)
  Energy,             // kinetic + potential
  ViolationPosition,  // the largest position-row residual
  ViolationVelocity,  // the largest velocity-row residual
  JointCoordinates,   // joint: its q (nq columns), angles continuous in time
  JointRates,         // joint: its u (nu columns)
  ConstraintForce,    // (constraint, body): resultant force on the body, world frame
  ConstraintMoment,   // (constraint, rigid body): its moment about the centre of mass
  ActuatorForce,      // actuated joint: the actuator's generalized force (nu columns)
  ActuatorPower,      // actuated joint: τ·u
  LimitForce,         // limited joint: the limits' generalized force on its coordinate
  Coordinates,        // system in quasi-velocities: q (one column a coordinate)
  Rates,              // its rates q̇ (or the tree's u)
  QuasiVelocities,    // its ν
};

// `width` columns from `first` holding `quantity` of `subject`
struct ColumnGroup {
  Quantity quantity = Quantity::Time;
  int subject = -1;  // the body (Position to AngularVelocity) or the model's constraint
                     // (joints, constraint forces, limits); −1: the run's own figures
  int slot = -1;     // ConstraintForce, ConstraintMoment: the body's place in the
                     // constraint's bodies(); −1 otherwise
  int first = 0;     // the group's first column (0 is t)
  int width = 1;
};

class OutputSchema {
 public:
  // of a temporary schema (`traj_schema(m).groups()` in a range-for) by value: a reference
  // into it would outlive it
  const std::vector<std::string>& names() const& { return names_; }
  std::vector<std::string> names() && { return std::move(names_); }
  const std::vector<ColumnGroup>& groups() const& { return groups_; }
  std::vector<ColumnGroup> groups() && { return std::move(groups_); }
  size_t size() const { return names_.size(); }
  // the CSV header line: the names joined by commas, then '\n'
  std::string header() const;
  // the index of a column by name, −1 when there is none
  int find(const std::string& name) const;
  // the group of a quantity of a subject (and slot), null when there is none
  const ColumnGroup* find(Quantity q, int subject = -1, int slot = -1) const;

  // appends a group of columns named prefix + suffix for each suffix
  void add(Quantity q, int subject, int slot, const std::string& prefix,
           const std::vector<std::string>& suffixes);

 private:
  std::vector<std::string> names_;
  std::vector<ColumnGroup> groups_;
};

// traj.csv's columns for model m (above)
OutputSchema traj_schema(const Model& m);
// forces.csv's columns for model m, t first (above)
OutputSchema forces_schema(const Model& m);
// traj.csv's columns for a system in its quasi-velocities: the names of its coordinates,
// rates and quasi-velocities (above)
OutputSchema nu_traj_schema(const std::vector<std::string>& coordinates,
                            const std::vector<std::string>& rates,
                            const std::vector<std::string>& nu);

}  // namespace appell
