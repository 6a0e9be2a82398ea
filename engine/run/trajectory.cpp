// Trajectory and RunSummary (appell/trajectory.hpp): the samples of a run in memory.
#include "appell/trajectory.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "appell/joint.hpp"
#include "appell/joint_columns.hpp"
#include "appell/tree.hpp"

namespace appell {

Trajectory::Trajectory(const Model& m, bool forces) : forces_(forces), rows_(m) {
  // the columns of traj.csv
  names_.push_back("t");
  for (const Body& b : m.bodies()) {
    for (const char* c : {"x", "y", "z"}) names_.push_back(b.name + "." + c);
    if (b.rigid())
      for (const char* c : {"qw", "qx", "qy", "qz"}) names_.push_back(b.name + "." + c);
    for (const char* c : {"vx", "vy", "vz"}) names_.push_back(b.name + "." + c);
    if (b.rigid())
      for (const char* c : {"wx", "wy", "wz"}) names_.push_back(b.name + "." + c);
  }
  for (const char* c : {"energy", "violation_position", "violation_velocity"}) names_.push_back(c);
  const std::vector<std::string> joints = joint_state_columns(m);
  names_.insert(names_.end(), joints.begin(), joints.end());
  traj_cols_ = names_.size();
  // then those of forces.csv
  if (forces_) {
    for (const ConstraintPtr& c : m.constraints())
      for (int b : c->bodies()) {
        const std::string p = c->name() + "." + m.bodies()[b].name + ".";
        for (const char* k : {"fx", "fy", "fz"}) names_.push_back(p + k);
        if (m.bodies()[b].rigid())
          for (const char* k : {"mx", "my", "mz"}) names_.push_back(p + k);
      }
    const std::vector<std::string> actuators = joint_actuator_columns(m);
    names_.insert(names_.end(), actuators.begin(), actuators.end());
    const std::vector<std::string> limits = joint_limit_columns(m);
    names_.insert(names_.end(), limits.begin(), limits.end());
  }
}

void Trajectory::record(const Sample& s) {
  rows_.traj(s, row_);
  values_.insert(values_.end(), row_.begin(), row_.end());
  if (!forces_) return;
  rows_.forces(s, row_);
  values_.insert(values_.end(), row_.begin() + 1, row_.end());  // t is in the traj part
}

std::vector<std::string> joint_limit_columns(const Model& m, std::vector<int>* constraints) {
  // the joints MoreauStepper enforces (engine/contact/moreau.cpp)
  std::vector<std::string> names;
  std::vector<char> limited(m.constraints().size(), 0);
  for (const TreeJoint& t : m.tree().joints) {
    if (t.constraint < 0 || t.nq != 1 || t.nu != 1) continue;
    const auto* j = dynamic_cast<const Joint*>(m.constraints()[t.constraint].get());
    limited[t.constraint] = j && j->properties().limited;
  }
  if (constraints) constraints->clear();
  for (size_t c = 0; c < limited.size(); ++c) {
    if (!limited[c]) continue;
    names.push_back(m.constraints()[c]->name() + ".limit_force");
    if (constraints) constraints->push_back(static_cast<int>(c));
  }
  return names;
}

SampleRows::SampleRows(const Model& m, JointFrame frame) : m_(&m), joints_(m, frame) {
  std::vector<int> limited;
  joint_limit_columns(m, &limited);
  limit_column_.assign(m.constraints().size(), -1);
  for (int& c : limited) limit_column_[c] = limit_columns_++;
  // the reference sign of each quaternion: the body's initial orientation
  for (const Body& b : m.bodies()) {
    const Quat q0 = b.orientation.normalized();
    last_q_.emplace_back(q0.w(), q0.x(), q0.y(), q0.z());
  }
}

const Eigen::Vector4d& SampleRows::quaternion(const BodyState& b, int i) {
  // q and −q are the same rotation: keep the one nearer the previous sample's
  const Quat q(b.Q);
  Eigen::Vector4d v(q.w(), q.x(), q.y(), q.z());
  v.normalize();
  if (v.dot(last_q_[i]) < 0) v = -v;
  last_q_[i] = v;
  return last_q_[i];
}

void SampleRows::traj(const Sample& s, std::vector<double>& out) {
  const Model& m = *m_;
  out.clear();
  out.push_back(s.t);
  for (int i = 0; i < m.nbody(); ++i) {
    const BodyState& b = s.data.body[i];
    const bool rigid = m.bodies()[i].rigid();
    out.insert(out.end(), b.x.data(), b.x.data() + 3);
    if (rigid) {
      const Eigen::Vector4d& q = quaternion(b, i);
      out.insert(out.end(), q.data(), q.data() + 4);
    }
    out.insert(out.end(), b.v.data(), b.v.data() + 3);
    if (rigid) out.insert(out.end(), b.w.data(), b.w.data() + 3);
  }
  out.push_back(s.energy);
  out.push_back(s.violation_position);
  out.push_back(s.violation_velocity);
  joints_.append_states(s.data, s.state, last_joint_q_, out);
}

void SampleRows::forces(const Sample& s, std::vector<double>& out) const {
  const Model& m = *m_;
  out.clear();
  out.push_back(s.t);
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const Constraint& con = *m.constraints()[c];
    for (size_t j = 0; j < con.bodies().size(); ++j) {
      const Wrench& w = s.data.reaction[m.slot_offset(c) + j];
      out.insert(out.end(), w.force.data(), w.force.data() + 3);
      if (m.bodies()[con.bodies()[j]].rigid())
        out.insert(out.end(), w.moment.data(), w.moment.data() + 3);
    }
  }
  joints_.append_actuators(s.data, s.state, out);
  const size_t at = out.size();
  out.resize(at + limit_columns_, 0.0);
  if (s.contacts)
    for (const ContactSample& c : *s.contacts)
      if (c.joint >= 0 && limit_column_[c.joint] >= 0)
        out[at + limit_column_[c.joint]] += c.joint_force;
}

int Trajectory::find(const std::string& name) const {
  const auto it = std::find(names_.begin(), names_.end(), name);
  return it == names_.end() ? -1 : static_cast<int>(it - names_.begin());
}

std::vector<double> Trajectory::column(const std::string& name) const {
  const int c = find(name);
  if (c < 0) throw std::invalid_argument("Trajectory::column(): no column '" + name + "'");
  std::vector<double> out(rows());
  for (size_t r = 0; r < out.size(); ++r) out[r] = values_[r * cols() + c];
  return out;
}

void RunSummary::record(const Sample& s) {
  if (samples == 0) energy_initial = s.energy;
  energy_final = s.energy;
  max_abs_energy_drift = std::max(max_abs_energy_drift, std::abs(s.energy - energy_initial));
  violation_position_max = std::max(violation_position_max, s.violation_position);
  violation_velocity_max = std::max(violation_velocity_max, s.violation_velocity);
  final_bodies = s.data.body;
  ++samples;
}

bool RunSummary::finite() const {
  for (double v : {energy_initial, energy_final, max_abs_energy_drift, violation_position_max,
                   violation_velocity_max})
    if (!std::isfinite(v)) return false;
  for (const BodyState& b : final_bodies)
    if (!b.x.allFinite() || !b.v.allFinite() || !b.w.allFinite() || !b.Q.allFinite()) return false;
  return true;
}

void check_figures(const RunSummary& s, SimulationResult& r) {
  if (!r.ok() || s.finite()) return;
  r.status = SimulationStatus::NotFinite;
  r.message = "the summary's figures are not finite";
}

}  // namespace appell
