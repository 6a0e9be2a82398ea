// `appell simulate` (SPEC §3): runs a scene and writes
//
//   traj.csv     t, per body x y z [qw qx qy qz] vx vy vz [wx wy wz] (brackets: rigid
//                bodies only), energy, violation_position, violation_velocity; one row per
//                output instant, %.17g (round-trips every double).
//   forces.csv   t, per constraint, per body it names: <constraint>.<body>.fx fy fz
//                [mx my mz] — the resultant constraint force on the body and its moment
//                about the body's centre of mass, world frame (SPEC §1).
//   summary.json formulation, integrator, duration (the time reached), steps (accepted),
//                rhs_evaluations (right-hand sides evaluated by the integrator; the extra
//                evaluations that fill dense-output rows are not counted), wall_seconds,
//                energy {initial, final, max_abs_drift, max_rel_drift (relative to
//                max(|initial|, the largest kinetic energy reached): the potential's zero
//                is arbitrary, so |initial| alone can be 0)}, constraint_violation {position_max,
//                velocity_max} over the rows, initial_velocity_correction (‖Δu‖_M, see
//                appell/simulation.hpp), final_state {bodies: {name: {position, quaternion,
//                velocity, angular_velocity}}} at the last row (particles: the last two
//                omitted).
//
// Rows are flushed as they are written, so a run that fails (exit 3) keeps every row
// computed before the failure.  A progress bar goes to stderr only when it is a terminal.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "appell/forward.hpp"
#include "appell/simulation.hpp"
#include "cli/commands.hpp"

namespace appell::cli {

using ojson = nlohmann::ordered_json;

namespace {

ojson json_vec(const Vec3& v) {
  return ojson::array({v.x(), v.y(), v.z()});
}

// a CSV file written row by row; closes itself
class Csv {
 public:
  bool open(const std::string& path) {
    f_ = std::fopen(path.c_str(), "w");
    return f_ != nullptr;
  }
  ~Csv() {
    if (f_) std::fclose(f_);
  }
  explicit operator bool() const { return f_ != nullptr; }
  void text(const std::string& s) { std::fputs(s.c_str(), f_); }
  void number(double v) { std::fprintf(f_, ",%.17g", v); }
  void first(double v) { std::fprintf(f_, "%.17g", v); }
  void end_row() {
    std::fputc('\n', f_);
    std::fflush(f_);
  }

 private:
  std::FILE* f_ = nullptr;
};

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
  return h + ",energy,violation_position,violation_velocity\n";
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
  return h + "\n";
}

// Unit quaternions [w x y z] of the rotation tensors, with the sign chosen continuous in
// time (q and −q are the same rotation).  Built from Q rather than read from d.q, so that
// it holds for every state space (joint coordinates have no quaternions).
class Quaternions {
 public:
  explicit Quaternions(const Model& m) : last_(m.nbody()) {
    for (int i = 0; i < m.nbody(); ++i) {
      const Quat q0 = m.bodies()[i].orientation.normalized();
      last_[i] << q0.w(), q0.x(), q0.y(), q0.z();
    }
  }
  const Eigen::Vector4d& operator()(const BodyState& b, int i) {
    const Quat q(b.Q);
    Eigen::Vector4d v(q.w(), q.x(), q.y(), q.z());
    v.normalize();
    if (v.dot(last_[i]) < 0) v = -v;
    last_[i] = v;
    return last_[i];
  }

 private:
  std::vector<Eigen::Vector4d> last_;
};

// A progress bar on a terminal's stderr, redrawn at most 10 times a second.
class Progress {
 public:
  Progress(bool enabled, double duration) : on_(enabled), T_(duration) {}
  void update(double t) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    drawn_ = true;
    const double f = T_ > 0 ? std::min(1.0, t / T_) : 1.0;
    const int width = 40, fill = static_cast<int>(f * width);
    std::fprintf(stderr, "\r[%s%s] %3d%%  t = %.4g s", std::string(fill, '=').c_str(),
                 std::string(width - fill, ' ').c_str(), static_cast<int>(100 * f), t);
    std::fflush(stderr);
  }
  void finish() {
    if (on_ && drawn_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool on_;
  double T_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

std::string format_number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

bool usage_error(const std::string& what) {
  std::cerr << "error: " << what << "\nrun 'appell simulate --help' for usage\n";
  return false;
}

bool apply_overrides(const SimulateOptions& o, SimulationOptions& so) {
  if (!o.integrator.empty()) {
    if (o.integrator != "rk4" && o.integrator != "dopri5" && o.integrator != "rkf78")
      return usage_error("--integrator: unknown method '" + o.integrator +
                         "'; expected rk4, dopri5 or rkf78");
    so.integrator.method = o.integrator;
  }
  if (o.dt) {
    if (!(*o.dt > 0) || !std::isfinite(*o.dt))
      return usage_error("--dt: must be a finite number > 0, got " + format_number(*o.dt));
    so.integrator.dt = *o.dt;
  }
  if (o.duration) {
    if (!(*o.duration >= 0) || !std::isfinite(*o.duration))
      return usage_error("--duration: must be a finite number >= 0, got " +
                         format_number(*o.duration));
    so.integrator.duration = *o.duration;
  }
  return true;
}

}  // namespace

int run_simulate(const SimulateOptions& o) {
  Scene scene;
  Formulation f;
  if (!formulation_or_report(o.formulation, f) || !load_or_report(o.scene, scene)) return 2;
  const Model m = compile(scene);
  SimulationOptions so = SimulationOptions::from_settings(scene.settings);
  if (f != Formulation::Auto) so.formulation = f;
  f = so.formulation;
  if (!apply_overrides(o, so)) return 2;

  // output files, with their headers
  Csv traj, forces;
  if (!o.out.empty() && !traj.open(o.out))
    return usage_error("--out: cannot write '" + o.out + "'"), 2;
  if (!o.forces.empty() && !forces.open(o.forces))
    return usage_error("--forces: cannot write '" + o.forces + "'"), 2;
  if (traj) traj.text(traj_header(m));
  if (forces) forces.text(forces_header(m));

  // the observer: rows, and the running figures of the summary
  double E0 = 0, E_last = 0, max_drift = 0, T_max = 0, pos_max = 0, vel_max = 0;
  ojson final_bodies = ojson::object();
  Quaternions quaternions(m);
  const auto observe = [&](const Sample& s) {
    const Data& d = s.data;
    if (s.index == 0) E0 = s.energy;
    E_last = s.energy;
    max_drift = std::max(max_drift, std::abs(s.energy - E0));
    T_max = std::max(T_max, s.kinetic_energy);
    pos_max = std::max(pos_max, s.violation_position);
    vel_max = std::max(vel_max, s.violation_velocity);
    if (traj) {
      traj.first(s.t);
      for (int i = 0; i < m.nbody(); ++i) {
        const BodyState& b = d.body[i];
        for (int k = 0; k < 3; ++k) traj.number(b.x(k));
        if (m.bodies()[i].rigid()) {
          const Eigen::Vector4d& q = quaternions(b, i);
          for (int k = 0; k < 4; ++k) traj.number(q(k));
        }
        for (int k = 0; k < 3; ++k) traj.number(b.v(k));
        if (m.bodies()[i].rigid())
          for (int k = 0; k < 3; ++k) traj.number(b.w(k));
      }
      traj.number(s.energy);
      traj.number(s.violation_position);
      traj.number(s.violation_velocity);
      traj.end_row();
    }
    if (forces) {
      forces.first(s.t);
      for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
        const Constraint& con = *m.constraints()[c];
        for (size_t j = 0; j < con.bodies().size(); ++j) {
          const Wrench& w = d.reaction[m.slot_offset(c) + j];
          for (int k = 0; k < 3; ++k) forces.number(w.force(k));
          if (m.bodies()[con.bodies()[j]].rigid())
            for (int k = 0; k < 3; ++k) forces.number(w.moment(k));
        }
      }
      forces.end_row();
    }
    final_bodies = ojson::object();
    for (int i = 0; i < m.nbody(); ++i) {
      const BodyState& b = d.body[i];
      ojson e;
      e["position"] = json_vec(b.x);
      if (m.bodies()[i].rigid()) {
        const Eigen::Vector4d& q = quaternions(b, i);
        e["quaternion"] = ojson::array({q(0), q(1), q(2), q(3)});
      }
      e["velocity"] = json_vec(b.v);
      if (m.bodies()[i].rigid()) e["angular_velocity"] = json_vec(b.w);
      final_bodies[m.bodies()[i].name] = e;
    }
  };

  Progress progress(!o.quiet && isatty(fileno(stderr)), so.integrator.duration);
  so.progress = [&](double t) { progress.update(t); };
  std::unique_ptr<Simulation> sim;
  try {
    sim = std::make_unique<Simulation>(m, so);
  } catch (const std::invalid_argument& e) {
    return usage_error(e.what()), 2;
  }
  const SimulationResult r = sim->run(observe);
  progress.finish();

  const double scale = std::max(std::abs(E0), T_max);
  ojson summary;
  summary["formulation"] = formulation_name(sim->state_space().formulation());
  summary["integrator"] = so.integrator.method;
  summary["duration"] = r.t;
  summary["steps"] = r.steps;
  summary["rhs_evaluations"] = r.rhs_evaluations;
  summary["wall_seconds"] = r.wall_seconds;
  summary["energy"] = {{"initial", E0},
                       {"final", E_last},
                       {"max_abs_drift", max_drift},
                       {"max_rel_drift", scale > 0 ? max_drift / scale : 0.0}};
  summary["constraint_violation"] = {{"position_max", pos_max}, {"velocity_max", vel_max}};
  summary["initial_velocity_correction"] = r.initial_velocity_correction;
  summary["final_state"] = {{"bodies", final_bodies}};
  if (!o.summary.empty()) {
    std::FILE* f = std::fopen(o.summary.c_str(), "w");
    if (!f) return usage_error("--summary: cannot write '" + o.summary + "'"), 2;
    std::fprintf(f, "%s\n", summary.dump(2).c_str());
    std::fclose(f);
  } else if (!o.quiet) {
    std::cout << summary.dump(2) << "\n";
  }

  if (!r.ok()) {
    std::fprintf(stderr, "error: %s: at t = %.9g: %s\n", o.scene.c_str(), r.t, r.message.c_str());
    return 3;
  }
  return 0;
}

}  // namespace appell::cli
