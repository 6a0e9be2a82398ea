#include "cli/recorder.hpp"

#include <algorithm>
#include <cmath>

#include "appell/integrators.hpp"

namespace appell::cli {

using ojson = nlohmann::ordered_json;

namespace {

ojson json_vec(const Vec3& v) {
  return ojson::array({v.x(), v.y(), v.z()});
}

}  // namespace

Recorder::Recorder(const Model& m, Csv& traj, Csv& forces, bool threaded, JointFrame frame)
    : m_(m),
      traj_(static_cast<bool>(traj)),
      frame_(frame),
      writer_(m, traj, forces, threaded, frame),
      rows_(m, frame),
      columns_(m) {}

void Recorder::observe(const Sample& s) {
  // the running figures
  if (s.index == 0) E0_ = s.energy;
  E_last_ = s.energy;
  max_drift_ = std::max(max_drift_, std::abs(s.energy - E0_));
  T_max_ = std::max(T_max_, s.kinetic_energy);
  pos_max_ = std::max(pos_max_, s.violation_position);
  vel_max_ = std::max(vel_max_, s.violation_velocity);

  // the rows; the quaternions' signs and the joint angles follow every sample, written or not
  writer_.observe(s);
  if (!traj_) rows_.traj(s, row_);
  last_ = s.data.body;
  last_has_state_ = s.state != nullptr;
  if (s.state) last_state_ = *s.state;  // the same sizes every time: no allocation
}

ojson Recorder::summary(const std::string& formulation, const std::string& integrator,
                        const SimulationResult& r) {
  // the final state, from the last sample
  finish();
  SampleRows& rows = traj_ ? writer_.rows() : rows_;
  ojson final_bodies = ojson::object();
  for (int i = 0; i < static_cast<int>(last_.size()); ++i) {
    const BodyState& b = last_[i];
    const bool rigid = m_.bodies()[i].rigid();
    ojson e;
    e["position"] = json_vec(b.x);
    if (rigid) {
      const Eigen::Vector4d& q = rows.quaternion(b, i);
      e["quaternion"] = ojson::array({q(0), q(1), q(2), q(3)});
    }
    e["velocity"] = json_vec(b.v);
    if (rigid) e["angular_velocity"] = json_vec(b.w);
    final_bodies[m_.bodies()[i].name] = e;
  }
  // the joints, as traj.csv's last row has them (angles continuous in time)
  ojson final_joints = ojson::object();
  const std::vector<double>& joint_q = rows.joint_coordinates();
  const State* state = last_has_state_ ? &last_state_ : nullptr;
  size_t at = 0;
  for (int c = 0; c < (last_.empty() ? 0 : static_cast<int>(m_.constraints().size())); ++c) {
    const Joint* j = m_.joint(c);
    if (!j) continue;
    const JointType& t = j->joint_type();
    double q[8], u[6];
    columns_.coordinates(c, StateView{last_.data(), r.t}, state, q, u);
    if (frame_ == JointFrame::Child) joint_vector_to_child(t, q, u);  // joint_columns.hpp (F1)
    if (joint_q.size() >= at + t.nq()) std::copy_n(joint_q.data() + at, t.nq(), q);
    at += t.nq();
    ojson e;
    e["q"] = ojson(std::vector<double>(q, q + t.nq()));
    e["qd"] = ojson(std::vector<double>(u, u + t.nu()));
    if (frame_dependent(t)) e["frame"] = joint_frame_name(frame_);
    final_joints[j->name()] = e;
  }

  const double scale = std::max(std::abs(E0_), T_max_);
  ojson summary;
  summary["formulation"] = formulation;
  summary["integrator"] = integrator;
  summary["duration"] = r.t;
  summary["steps"] = r.steps;
  summary["rhs_evaluations"] = r.rhs_evaluations;
  summary["wall_seconds"] = r.wall_seconds;
  summary["energy"] = {{"initial", E0_},
                       {"final", E_last_},
                       {"max_abs_drift", max_drift_},
                       {"max_rel_drift", scale > 0 ? max_drift_ / scale : 0.0}};
  summary["constraint_violation"] = {{"position_max", pos_max_}, {"velocity_max", vel_max_}};
  summary["initial_velocity_correction"] = r.initial_velocity_correction;
  if (const IntegratorInfo* in = find_integrator(integrator); in && in->unilateral)
    summary["contact"] = {{"impacts", r.impacts},
                          {"max_solver_iterations", r.contact_iterations},
                          {"max_residual", r.contact_residual},
                          {"unconverged_steps", r.contact_unconverged},
                          {"max_penetration", r.max_penetration}};
  summary["final_state"] = {{"bodies", final_bodies}, {"joints", final_joints}};
  return summary;
}

bool finite_numbers(const ojson& j) {
  if (j.is_number_float()) return std::isfinite(j.get<double>());
  if (j.is_structured())
    for (const auto& e : j)
      if (!finite_numbers(e)) return false;
  return true;
}

}  // namespace appell::cli
