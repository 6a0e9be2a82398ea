#include "cli/outputs.hpp"

#include "cli/joint_outputs.hpp"

namespace appell::cli {

Csv::~Csv() {
  if (f_) std::fclose(f_);
}

bool Csv::open(const std::string& path) {
  f_ = std::fopen(path.c_str(), "w");
  return f_ != nullptr;
}

void Csv::text(const std::string& s) {
  std::fputs(s.c_str(), f_);
}
void Csv::first(double v) {
  std::fprintf(f_, "%.17g", v);
}
void Csv::number(double v) {
  std::fprintf(f_, ",%.17g", v);
}
void Csv::end_row() {
  std::fputc('\n', f_);
  std::fflush(f_);
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
  return h + joint_forces_header(m) + "\n";
}

Quaternions::Quaternions(const Model& m) : last_(m.nbody()) {
  for (int i = 0; i < m.nbody(); ++i) {
    const Quat q0 = m.bodies()[i].orientation.normalized();
    last_[i] << q0.w(), q0.x(), q0.y(), q0.z();
  }
}

const Eigen::Vector4d& Quaternions::operator()(const BodyState& b, int i) {
  const Quat q(b.Q);
  Eigen::Vector4d v(q.w(), q.x(), q.y(), q.z());
  v.normalize();
  if (v.dot(last_[i]) < 0) v = -v;
  last_[i] = v;
  return last_[i];
}

void write_traj_row(const Model& m, const Sample& s, Quaternions& quaternions, Csv& out) {
  out.first(s.t);
  for (int i = 0; i < m.nbody(); ++i) {
    const BodyState& b = s.data.body[i];
    const bool rigid = m.bodies()[i].rigid();
    for (int k = 0; k < 3; ++k) out.number(b.x(k));
    if (rigid) {
      const Eigen::Vector4d& q = quaternions(b, i);
      for (int k = 0; k < 4; ++k) out.number(q(k));
    }
    for (int k = 0; k < 3; ++k) out.number(b.v(k));
    if (rigid)
      for (int k = 0; k < 3; ++k) out.number(b.w(k));
  }
  out.number(s.energy);
  out.number(s.violation_position);
  out.number(s.violation_velocity);
  write_joint_traj_columns(m, s, quaternions.joint_coordinates, out);
  out.end_row();
}

void write_forces_row(const Model& m, const Sample& s, Csv& out) {
  out.first(s.t);
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const Constraint& con = *m.constraints()[c];
    for (size_t j = 0; j < con.bodies().size(); ++j) {
      const Wrench& w = s.data.reaction[m.slot_offset(c) + j];
      for (int k = 0; k < 3; ++k) out.number(w.force(k));
      if (m.bodies()[con.bodies()[j]].rigid())
        for (int k = 0; k < 3; ++k) out.number(w.moment(k));
    }
  }
  write_joint_forces_columns(m, s, out);
  out.end_row();
}

}  // namespace appell::cli
