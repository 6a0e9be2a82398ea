// The columns of traj.csv and forces.csv (appell/output_schema.hpp).
#include "appell/output_schema.hpp"

#include <algorithm>
#include <unordered_set>

#include "appell/joint.hpp"
#include "appell/joint_forces.hpp"
#include "appell/prescribed.hpp"
#include "appell/tree.hpp"

namespace appell {

namespace {

// "q" for one coordinate, "q0", "q1", ... for several
std::vector<std::string> numbered(const char* what, int n) {
  std::vector<std::string> out;
  for (int k = 0; k < n; ++k) out.push_back(what + (n == 1 ? std::string() : std::to_string(k)));
  return out;
}

// the joints that have a force or a prescribed motion, in one pass over the model (a pass
// per joint made a 10,000-link chain's columns cost 10⁸ casts)
std::unordered_set<const Joint*> actuated_joints(const Model& m) {
  std::unordered_set<const Joint*> out;
  for (const ForcePtr& f : m.forces())
    if (const auto* jf = dynamic_cast<const JointForce*>(f.get())) out.insert(&jf->joint());
  for (const ConstraintPtr& c : m.constraints())
    if (const auto* p = dynamic_cast<const PrescribedJointConstraint*>(c.get()))
      out.insert(&p->joint());
  return out;
}

// per constraint: a joint whose limits MoreauStepper enforces (engine/contact/moreau.cpp), a
// limited revolute or prismatic joint of the spanning tree
std::vector<char> limited_joints(const Model& m) {
  std::vector<char> limited(m.constraints().size(), 0);
  for (const TreeJoint& t : m.tree().joints) {
    if (t.constraint < 0 || t.nq != 1 || t.nu != 1) continue;
    const Joint* j = m.joint(t.constraint);
    limited[t.constraint] = j && j->properties().limited;
  }
  return limited;
}

}  // namespace

std::string OutputSchema::header() const {
  std::string h;
  for (const std::string& n : names_) h += (h.empty() ? "" : ",") + n;
  return h + "\n";
}

int OutputSchema::find(const std::string& name) const {
  const auto it = std::find(names_.begin(), names_.end(), name);
  return it == names_.end() ? -1 : static_cast<int>(it - names_.begin());
}

const ColumnGroup* OutputSchema::find(Quantity q, int subject, int slot) const {
  for (const ColumnGroup& g : groups_)
    if (g.quantity == q && g.subject == subject && g.slot == slot) return &g;
  return nullptr;
}

void OutputSchema::add(Quantity q, int subject, int slot, const std::string& prefix,
                       const std::vector<std::string>& suffixes) {
  if (suffixes.empty()) return;
  groups_.push_back(ColumnGroup{q, subject, slot, static_cast<int>(names_.size()),
                                static_cast<int>(suffixes.size())});
  for (const std::string& s : suffixes) names_.push_back(prefix + s);
}

OutputSchema traj_schema(const Model& m) {
  OutputSchema s;
  s.add(Quantity::Time, -1, -1, "", {"t"});
  // per body: x [q] v [w] (a particle has no orientation)
  for (int i = 0; i < m.nbody(); ++i) {
    const Body& b = m.bodies()[i];
    const std::string p = b.name + ".";
    s.add(Quantity::Position, i, -1, p, {"x", "y", "z"});
    if (b.rigid()) s.add(Quantity::Orientation, i, -1, p, {"qw", "qx", "qy", "qz"});
    s.add(Quantity::Velocity, i, -1, p, {"vx", "vy", "vz"});
    if (b.rigid()) s.add(Quantity::AngularVelocity, i, -1, p, {"wx", "wy", "wz"});
  }
  s.add(Quantity::Energy, -1, -1, "", {"energy"});
  s.add(Quantity::ViolationPosition, -1, -1, "", {"violation_position"});
  s.add(Quantity::ViolationVelocity, -1, -1, "", {"violation_velocity"});
  // per joint, in constraint order: q, then qd
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c)
    if (const Joint* j = m.joint(c)) {
      s.add(Quantity::JointCoordinates, c, -1, j->name() + ".",
            numbered("q", j->joint_type().nq()));
      s.add(Quantity::JointRates, c, -1, j->name() + ".", numbered("qd", j->joint_type().nu()));
    }
  return s;
}

OutputSchema forces_schema(const Model& m) {
  OutputSchema s;
  s.add(Quantity::Time, -1, -1, "", {"t"});
  // per constraint, per body it names: f [m] (a particle takes no moment)
  const int nc = static_cast<int>(m.constraints().size());
  for (int c = 0; c < nc; ++c) {
    const Constraint& con = *m.constraints()[c];
    for (int k = 0; k < static_cast<int>(con.bodies().size()); ++k) {
      const Body& b = m.bodies()[con.bodies()[k]];
      const std::string p = con.name() + "." + b.name + ".";
      s.add(Quantity::ConstraintForce, c, k, p, {"fx", "fy", "fz"});
      if (b.rigid()) s.add(Quantity::ConstraintMoment, c, k, p, {"mx", "my", "mz"});
    }
  }
  // per actuated joint: τ, then its power
  const std::unordered_set<const Joint*> actuated = actuated_joints(m);
  for (int c = 0; c < nc; ++c)
    if (const Joint* j = m.joint(c); j && actuated.count(j)) {
      s.add(Quantity::ActuatorForce, c, -1, j->name() + ".", numbered("tau", j->joint_type().nu()));
      s.add(Quantity::ActuatorPower, c, -1, j->name() + ".", {"power"});
    }
  // per limited joint: the limits' force
  const std::vector<char> limited = limited_joints(m);
  for (int c = 0; c < nc; ++c)
    if (limited[c])
      s.add(Quantity::LimitForce, c, -1, m.constraints()[c]->name() + ".", {"limit_force"});
  return s;
}

OutputSchema nu_traj_schema(const std::vector<std::string>& coordinates,
                            const std::vector<std::string>& rates,
                            const std::vector<std::string>& nu) {
  OutputSchema s;
  s.add(Quantity::Time, -1, -1, "", {"t"});
  s.add(Quantity::Coordinates, -1, -1, "q.", coordinates);
  s.add(Quantity::Rates, -1, -1, "qd.", rates);
  s.add(Quantity::QuasiVelocities, -1, -1, "nu.", nu);
  s.add(Quantity::Energy, -1, -1, "", {"energy"});
  s.add(Quantity::ViolationPosition, -1, -1, "", {"violation_position"});
  s.add(Quantity::ViolationVelocity, -1, -1, "", {"violation_velocity"});
  return s;
}

}  // namespace appell
