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
  // the columns of traj.csv, then those of forces.csv after its t
  names_ = rows_.traj_schema().names();
  traj_cols_ = names_.size();
  if (forces_) {
    const std::vector<std::string>& f = rows_.forces_schema().names();
    names_.insert(names_.end(), f.begin() + 1, f.end());
  }
}

void Trajectory::record(const Sample& s) {
  rows_.traj(s, row_);
  values_.insert(values_.end(), row_.begin(), row_.end());
  if (!forces_) return;
  rows_.forces(s, row_);
  values_.insert(values_.end(), row_.begin() + 1, row_.end());  // t is in the traj part
}

SampleRows::SampleRows(const Model& m, JointFrame frame)
    : m_(&m), traj_(appell::traj_schema(m)), forces_(appell::forces_schema(m)), joints_(m, frame) {
  limit_force_.assign(m.constraints().size(), 0.0);
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
  out.clear();
  const bool first = last_joint_q_.empty();
  const auto put = [&](const double* v, int n) { out.insert(out.end(), v, v + n); };
  for (const ColumnGroup& g : traj_.groups()) {
    const auto body = [&]() -> const BodyState& { return s.data.body[g.subject]; };
    switch (g.quantity) {
      case Quantity::Time:
        out.push_back(s.t);
        break;
      case Quantity::Position:
        put(body().x.data(), 3);
        break;
      case Quantity::Orientation:
        put(quaternion(body(), g.subject).data(), 4);
        break;
      case Quantity::Velocity:
        put(body().v.data(), 3);
        break;
      case Quantity::AngularVelocity:
        put(body().w.data(), 3);
        break;
      case Quantity::Energy:
        out.push_back(s.energy);
        break;
      case Quantity::ViolationPosition:
        out.push_back(s.violation_position);
        break;
      case Quantity::ViolationVelocity:
        out.push_back(s.violation_velocity);
        break;
      case Quantity::JointCoordinates: {  // the joint's rates are kept for its JointRates
        double q[8];
        joints_.state(g.subject, s.data, s.state, last_joint_q_, first, q, u_);
        put(q, g.width);
        break;
      }
      case Quantity::JointRates:
        put(u_, g.width);
        break;
      default:
        throw std::logic_error("SampleRows::traj(): a column traj.csv has no value for");
    }
  }
}

void SampleRows::forces(const Sample& s, std::vector<double>& out) {
  const Model& m = *m_;
  out.clear();
  // this sample's limit forces, summed per joint from the contact rows
  if (s.contacts)
    for (const ContactSample& c : *s.contacts)
      if (c.joint >= 0) limit_force_[c.joint] += c.joint_force;
  double tau[6], power = 0.0;
  for (const ColumnGroup& g : forces_.groups()) {
    switch (g.quantity) {
      case Quantity::Time:
        out.push_back(s.t);
        break;
      case Quantity::ConstraintForce:
      case Quantity::ConstraintMoment: {
        const SpatialForce& w = s.data.reaction[m.slot_offset(g.subject) + g.slot];
        const Vec3& v = g.quantity == Quantity::ConstraintForce ? w.force : w.moment;
        out.insert(out.end(), v.data(), v.data() + 3);
        break;
      }
      case Quantity::ActuatorForce:  // its power is kept for its ActuatorPower
        power = joints_.actuator(g.subject, s.data, s.state, tau);
        out.insert(out.end(), tau, tau + g.width);
        break;
      case Quantity::ActuatorPower:
        out.push_back(power);
        break;
      case Quantity::LimitForce:
        out.push_back(limit_force_[g.subject]);
        break;
      default:
        throw std::logic_error("SampleRows::forces(): a column forces.csv has no value for");
    }
  }
  if (s.contacts)
    for (const ContactSample& c : *s.contacts)
      if (c.joint >= 0) limit_force_[c.joint] = 0.0;
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
