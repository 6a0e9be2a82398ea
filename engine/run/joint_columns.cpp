// Joint-space output columns (appell/joint_columns.hpp).
#include "appell/joint_columns.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "appell/joint_forces.hpp"
#include "appell/joint_state.hpp"
#include "appell/prescribed.hpp"
#include "appell/tree.hpp"

namespace appell {

namespace {

// R(q) of a frame-dependent type
Mat3 rotation(const JointType& t, const double* q) {
  const double zero[6] = {0, 0, 0, 0, 0, 0};
  JointMotion jm;
  t.motion(q, zero, jm);
  return jm.R;
}

// v ← diag(M, M) v (free: linear, then angular part) or M v (spherical)
void rotate(const JointType& t, const Mat3& M, double* v) {
  if (t.nu() == 6) {
    Eigen::Map<Vec3> lin(v);
    lin = M * Vec3(lin);
  }
  Eigen::Map<Vec3> ang(v + t.nu() - 3);
  ang = M * Vec3(ang);
}

}  // namespace

const char* joint_frame_name(JointFrame f) {
  return f == JointFrame::Child ? "child" : "parent";
}

bool parse_joint_frame(const std::string& name, JointFrame& out) {
  if (name == "parent")
    out = JointFrame::Parent;
  else if (name == "child")
    out = JointFrame::Child;
  else
    return false;
  return true;
}

bool frame_dependent(const JointType& t) {
  // the quaternion joints (free, spherical): u is (ḋ; ω) or ω in the parent joint frame
  return t.quaternion() >= 0;
}

void joint_vector_to_child(const JointType& t, const double* q, double* v) {
  if (frame_dependent(t)) rotate(t, rotation(t, q).transpose(), v);
}

void joint_vector_to_parent(const JointType& t, const double* q, double* v) {
  if (frame_dependent(t)) rotate(t, rotation(t, q), v);
}

void joint_acceleration_to_child(const JointType& t, const double* q, const double* u,
                                 double* udot) {
  if (!frame_dependent(t)) return;
  const Mat3 Rt = rotation(t, q).transpose();
  rotate(t, Rt, udot);  // (Rᵀ d̈; Rᵀ ω̇)
  if (t.nu() != 6) return;
  const Vec3 v_G = Rt * Vec3(u[0], u[1], u[2]), w_G = Rt * Vec3(u[3], u[4], u[5]);
  Eigen::Map<Vec3>(udot) -= w_G.cross(v_G);  // (F2)
}

void joint_acceleration_to_parent(const JointType& t, const double* q, const double* u_G,
                                  double* udot_G) {
  if (!frame_dependent(t)) return;
  if (t.nu() == 6)
    Eigen::Map<Vec3>(udot_G) +=
        Vec3(u_G[3], u_G[4], u_G[5]).cross(Vec3(u_G[0], u_G[1], u_G[2]));  // (F2) inverted
  rotate(t, rotation(t, q), udot_G);
}

JointColumns::JointColumns(const Model& m, JointFrame frame) {
  std::unordered_map<const Joint*, size_t> entry;
  entry_.assign(m.constraints().size(), -1);
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const Joint* j = m.joint(c);
    if (!j) continue;
    entry_[c] = static_cast<int>(joints_.size());
    entry[j] = joints_.size();
    const bool rotate = frame == JointFrame::Child && frame_dependent(j->joint_type());
    joints_.push_back(Entry{j, rotate, nq_, -1, -1, periodic_coordinates(j->joint_type()), {}, {}});
    nq_ += j->joint_type().nq();
  }
  // the tree joints run in their own direction own their q, u in a State
  for (const TreeJoint& t : m.tree().joints)
    if (t.constraint >= 0 && !t.reversed)
      if (const Joint* j = m.joint(t.constraint))
        if (const auto it = entry.find(j); it != entry.end()) {
          joints_[it->second].tree_q = t.q_offset;
          joints_[it->second].tree_u = t.u_offset;
        }
  // the forces and prescribed rows of each joint, in model order, in one pass
  for (const ForcePtr& f : m.forces())
    if (const auto* jf = dynamic_cast<const JointForce*>(f.get()))
      if (const auto it = entry.find(&jf->joint()); it != entry.end())
        joints_[it->second].forces.push_back(jf);
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c)
    if (const auto* p = dynamic_cast<const PrescribedJointConstraint*>(m.constraints()[c].get()))
      if (const auto it = entry.find(&p->joint()); it != entry.end())
        joints_[it->second].prescribed.emplace_back(m.row_offset(c), p->coordinate());
}

void JointColumns::coordinates(const Entry& e, const StateView& view, const State* s, double* q,
                               double* u) const {
  const JointType& t = e.joint->joint_type();
  if (!s || e.tree_q < 0) {
    joint_coordinates(*e.joint, view, q, u);
    return;
  }
  for (int k = 0; k < t.nq(); ++k) q[k] = s->q(e.tree_q + k);
  for (int k = 0; k < t.nu(); ++k) u[k] = s->u(e.tree_u + k);
  // q and −q are one rotation: the columns keep the sign they have always had, that of the
  // quaternion of the rotation matrix (Eigen's: w > 0 where tr R = 4w² − 1 > 0, else the
  // largest of x, y, z positive)
  if (const int o = t.quaternion(); o >= 0) {
    double* r = q + o;
    int i = 1;
    for (int k = 2; k < 4; ++k)
      if (std::abs(r[k]) > std::abs(r[i])) i = k;
    if ((4.0 * r[0] * r[0] - 1.0 > 0.0 ? r[0] : r[i]) < 0.0)
      for (int k = 0; k < 4; ++k) r[k] = -r[k];
  }
}

void JointColumns::coordinates(int c, const StateView& view, const State* s, double* q,
                               double* u) const {
  coordinates(entry(c), view, s, q, u);
}

const JointColumns::Entry& JointColumns::entry(int c) const {
  if (c < 0 || c >= static_cast<int>(entry_.size()) || entry_[c] < 0)
    throw std::invalid_argument("JointColumns: constraint " + std::to_string(c) +
                                " is not a joint of the model");
  return joints_[entry_[c]];
}

void JointColumns::state(int c, const Data& d, const State* s, std::vector<double>& last,
                         bool first, double* q, double* u) const {
  const Entry& e = entry(c);
  const JointType& t = e.joint->joint_type();
  coordinates(e, d.view(), s, q, u);
  if (e.rotate) joint_vector_to_child(t, q, u);  // (F1)
  if (last.size() < static_cast<size_t>(nq_)) last.resize(nq_);
  double* previous = last.data() + e.last_at;
  for (int k = 0; k < t.nq(); ++k) {
    // an angle keeps the whole turns of the previous sample: q + 2π round((q_last − q)/2π)
    if (!first && e.periodic[k])
      q[k] += 2.0 * M_PI * std::round((previous[k] - q[k]) / (2.0 * M_PI));
    previous[k] = q[k];
  }
}

double JointColumns::actuator(int c, const Data& d, const State* s, double* tau) const {
  const Entry& e = entry(c);
  const StateView view = d.view();
  const int nu = e.joint->joint_type().nu();
  double one[6], u[6], q[8];
  coordinates(e, view, s, q, u);  // the State's, where the joint owns coordinates there
  for (int k = 0; k < nu; ++k) tau[k] = 0.0;
  for (const JointForce* f : e.forces) {
    f->generalized_force(view, q, u, one);
    for (int k = 0; k < nu; ++k) tau[k] += one[k];
  }
  for (const auto& [row, k] : e.prescribed) tau[k] += d.lambda(row);  // prescribed.hpp
  if (e.rotate) {  // (F1): the power is the same in either frame
    joint_vector_to_child(e.joint->joint_type(), q, tau);
    joint_vector_to_child(e.joint->joint_type(), q, u);
  }
  double power = 0.0;  // τ·u (joint_state.hpp G1)
  for (int k = 0; k < nu; ++k) power += tau[k] * u[k];
  return power;
}

bool joint_actuator_force(const Model& m, const Data& d, const Joint& j, double* tau) {
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

}  // namespace appell
