// Joint-space outputs (cli/joint_outputs.hpp).
#include "cli/joint_outputs.hpp"

#include <cmath>

#include "appell/joint_forces.hpp"
#include "appell/joint_state.hpp"
#include "appell/prescribed.hpp"

namespace appell::cli {

using ojson = nlohmann::ordered_json;

namespace {

// the scene's joints, in constraint order
std::vector<const Joint*> joints_of(const Model& m) {
  std::vector<const Joint*> out;
  for (const ConstraintPtr& c : m.constraints())
    if (const auto* j = dynamic_cast<const Joint*>(c.get())) out.push_back(j);
  return out;
}

// "<j>.q" for one coordinate, "<j>.q0,<j>.q1,..." for several
std::string columns(const std::string& joint, const char* what, int n) {
  std::string h;
  for (int k = 0; k < n; ++k) h += "," + joint + "." + what + (n == 1 ? "" : std::to_string(k));
  return h;
}

// the actuator's generalized force on joint j (nu entries): its joint forces and the
// multipliers of the prescribed-motion constraints on its coordinates; false if none
bool actuator(const Model& m, const Data& d, const Joint& j, double* tau) {
  const int nu = j.joint_type().nu();
  bool any = false;
  for (int k = 0; k < nu; ++k) tau[k] = 0.0;
  double one[6];
  for (const ForcePtr& f : m.forces())
    if (const auto* jf = dynamic_cast<const JointForce*>(f.get()); jf && &jf->joint() == &j) {
      any = true;
      jf->generalized_force(d.view(), one);
      for (int k = 0; k < nu; ++k) tau[k] += one[k];
    }
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c)
    if (const auto* p = dynamic_cast<const PrescribedJointConstraint*>(m.constraints()[c].get());
        p && &p->joint() == &j) {
      any = true;
      tau[p->coordinate()] += d.lambda(m.row_offset(c));  // prescribed.hpp: λ is the force
    }
  return any;
}

bool actuated(const Model& m, const Joint& j) {
  for (const ForcePtr& f : m.forces())
    if (const auto* jf = dynamic_cast<const JointForce*>(f.get()); jf && &jf->joint() == &j)
      return true;
  for (const ConstraintPtr& c : m.constraints())
    if (const auto* p = dynamic_cast<const PrescribedJointConstraint*>(c.get());
        p && &p->joint() == &j)
      return true;
  return false;
}

ojson vec(const Vec3& v) {
  return ojson::array({v.x(), v.y(), v.z()});
}

ojson array(const double* x, int n) {
  ojson a = ojson::array();
  for (int k = 0; k < n; ++k) a.push_back(x[k]);
  return a;
}

}  // namespace

std::string joint_traj_header(const Model& m) {
  std::string h;
  for (const Joint* j : joints_of(m))
    h += columns(j->name(), "q", j->joint_type().nq()) +
         columns(j->name(), "qd", j->joint_type().nu());
  return h;
}

std::string joint_forces_header(const Model& m) {
  std::string h;
  for (const Joint* j : joints_of(m))
    if (actuated(m, *j))
      h += columns(j->name(), "tau", j->joint_type().nu()) + "," + j->name() + ".power";
  return h;
}

void write_joint_traj_columns(const Model& m, const Sample& s, std::vector<double>& last,
                              Csv& out) {
  const bool first = last.empty();
  size_t at = 0;
  for (const Joint* j : joints_of(m)) {
    const JointType& t = j->joint_type();
    double q[8], u[6];
    joint_coordinates(*j, s.data.view(), q, u);
    const std::vector<char> periodic = periodic_coordinates(t);
    for (int k = 0; k < t.nq(); ++k, ++at) {
      // an angle keeps the whole turns of the previous row: q + 2π round((q_last − q)/2π)
      if (first)
        last.push_back(q[k]);
      else if (periodic[k])
        q[k] += 2.0 * M_PI * std::round((last[at] - q[k]) / (2.0 * M_PI));
      last[at] = q[k];
      out.number(q[k]);
    }
    for (int k = 0; k < t.nu(); ++k) out.number(u[k]);
  }
}

void write_joint_forces_columns(const Model& m, const Sample& s, Csv& out) {
  for (const Joint* j : joints_of(m)) {
    double tau[6], u[6];
    if (!actuator(m, s.data, *j, tau)) continue;
    joint_coordinates(*j, s.data.view(), nullptr, u);
    double power = 0.0;
    for (int k = 0; k < j->joint_type().nu(); ++k) {
      out.number(tau[k]);
      power += tau[k] * u[k];
    }
    out.number(power);
  }
}

ojson joints_json(const Model& m, const Data& d) {
  ojson out = ojson::object();
  const StateView s = d.view();
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const auto* j = dynamic_cast<const Joint*>(m.constraints()[c].get());
    if (!j) continue;
    const JointType& t = j->joint_type();
    double q[8], u[6], udot[6], tau[6];
    joint_coordinates(*j, s, q, u);
    // u̇_k from the bodies' accelerations (joint_state.hpp G2)
    auto acc = [&](int b, const RowTerm& r) {
      if (b == kWorld) return 0.0;
      const Vec3 a = d.udot.segment<3>(m.u_offset(b));
      return r.lin.dot(a) +
             (m.bodies()[b].rigid() ? r.ang.dot(d.udot.segment<3>(m.u_offset(b) + 3)) : 0.0);
    };
    for (int k = 0; k < t.nu(); ++k) {
      const JointRateRow row = joint_rate_row(*j, s, k);
      udot[k] = acc(j->child(), row.child) + acc(j->parent(), row.parent) + row.bias;
    }
    // the joint's reaction on the child, moved to the anchor, in F
    const JointFrameState fs = joint_frame_state(*j, s);
    const bool child = j->child() != kWorld;
    const Wrench& w = d.reaction[m.slot_offset(c) + j->slot(child ? j->child() : j->parent())];
    const double sign = child ? 1.0 : -1.0;  // the world as child: the parent's opposite
    const Vec3 r = child ? fs.r_C : fs.r_P;
    ojson e;
    e["q"] = array(q, t.nq());
    e["qd"] = array(u, t.nu());
    e["qdd"] = array(udot, t.nu());
    ojson force;
    force["reaction"] = {
        {"force", vec(sign * (fs.F.transpose() * w.force))},
        {"moment", vec(sign * (fs.F.transpose() * (w.moment - r.cross(w.force))))}};
    actuator(m, d, *j, tau);
    force["actuator"] = array(tau, t.nu());
    e["force"] = force;
    out[j->name()] = e;
  }
  return out;
}

}  // namespace appell::cli
