#include "appell/model.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "appell/inertia.hpp"
#include "appell/joint.hpp"
#include "appell/joint_type.hpp"
#include "engine/model/tree.hpp"

namespace appell {

int ModelBuilder::add_body(const Body& body) {
  if (body.name.empty() || body.name == "world")
    throw std::invalid_argument("Model::add_body(): the name '" + body.name + "' is reserved");
  if (body_index(body.name) != -2)
    throw std::invalid_argument("Model::add_body(): duplicate body name '" + body.name + "'");
  if (!(body.mass >= 0) || !std::isfinite(body.mass))
    throw std::invalid_argument("Model::add_body(): body '" + body.name +
                                "': mass must be finite and >= 0");
  Body added = body;
  added.orientation.normalize();
  if (body.rigid()) {
    // zero or degenerate inertia passes here; compile() checks the composites
    const std::string defect = inertia_semidefinite_defect(body.inertia);
    if (!defect.empty())
      throw std::invalid_argument("Model::add_body(): body '" + body.name + "': " + defect);
  } else {
    if (!(body.mass > 0))
      throw std::invalid_argument("Model::add_body(): particle '" + body.name +
                                  "': mass must be > 0");
    // a particle as every pass reads it: no inertia, no turn.  Its angular parts are then
    // zeros that the passes take whole, instead of asking what the body is.
    added.inertia.setZero();
    added.orientation = Quat::Identity();
    added.angular_velocity.setZero();
  }
  bodies_.push_back(added);
  body_names_.emplace(body.name, nbody() - 1);
  return nbody() - 1;
}

void ModelBuilder::add_constraint(ConstraintPtr c) {
  if (!c) throw std::invalid_argument("Model::add_constraint(): null constraint");
  for (int b : c->bodies())
    if (b < 0 || b >= nbody())
      throw std::invalid_argument("Model::add_constraint(): constraint '" + c->name() +
                                  "' names body " + std::to_string(b) + ", model has " +
                                  std::to_string(nbody()));
  if (!constraint_names_.insert(c->name()).second)
    throw std::invalid_argument("Model::add_constraint(): duplicate constraint name '" + c->name() +
                                "'");
  constraints_.push_back(std::move(c));
}

int ModelBuilder::add_shape(const Shape& s) {
  const std::string what = "Model::add_shape(): shape '" +
                           (s.name.empty() ? "shape" + std::to_string(shapes_.size()) : s.name) +
                           "': ";
  if (s.body < kWorld || s.body >= nbody())
    throw std::invalid_argument(what + "body " + std::to_string(s.body) + ", model has " +
                                std::to_string(nbody()));
  const std::string defect = shape_defect(s);
  if (!defect.empty()) throw std::invalid_argument(what + defect);
  if (!s.name.empty() && !shape_names_.insert(s.name).second)
    throw std::invalid_argument(what + "duplicate shape name");
  std::vector<Shape>& list = s.visual ? visuals_ : shapes_;
  list.push_back(s);
  return static_cast<int>(list.size()) - 1;
}

void ModelBuilder::add_force(ForcePtr f) {
  if (!f) throw std::invalid_argument("Model::add_force(): null force");
  forces_.push_back(std::move(f));
}

namespace {

int index_of(const std::unordered_map<std::string, int>& names, const std::string& name) {
  if (name == "world") return kWorld;
  const auto it = names.find(name);
  return it == names.end() ? -2 : it->second;
}

BodyState state_of(const std::vector<Body>& bodies, int b) {
  BodyState s;
  if (b == kWorld) return s;
  return bodies[b].initial_state();
}

// Each body's welded group: its carrier (top) and its pose in the carrier's frame (R, p),
// from the joints' frames in tree order; true when any two bodies are welded.
struct WeldPoses {
  std::vector<int> top;  // the carrier of each body's group
  std::vector<Mat3> R;   // pose in the carrier's frame
  std::vector<Vec3> p;
};

bool weld_carriers(const Model& m, const TreeModel& tree, WeldPoses& w) {
  const int nb = m.nbody();
  const auto& bodies = m.bodies();
  w.top.resize(nb);
  w.R.assign(nb, Mat3::Identity());
  w.p.assign(nb, Vec3::Zero());
  const BodyState rest{};
  JointMotion jm;
  Vec6 V_J;
  const double zero[7] = {0, 0, 0, 1, 0, 0, 0};
  bool merged = false;
  for (int b = 0; b < nb; ++b) w.top[b] = b;
  for (const TreeJoint& t : tree.joints) {
    const int b = t.body, P = t.parent_body;
    if (t.nu != 0 || t.nq != 0 || P == kWorld || !bodies[b].rigid() || !bodies[P].rigid()) continue;
    // C's pose in P's frame, from P at rest (J1 with R = I, d = 0)
    BodyState C;
    joint_kinematics(t, rest, zero, zero, C, jm, V_J);
    w.top[b] = w.top[P];
    w.R[b] = w.R[P] * C.Q;
    w.p[b] = w.p[P] + w.R[P] * C.x;
    merged = true;
  }
  return merged;
}

// The composites' mass, inertia about their centres (parallel axes) and each body's weld;
// `index`: carrier → composite.  Returns the centres in the carriers' frames.
std::vector<Vec3> composite_mass_properties(const Model& m, const WeldPoses& wp,
                                            const std::vector<int>& index,
                                            std::vector<Body>& composites,
                                            std::vector<Weld>& weld) {
  const int nb = m.nbody();
  const auto& bodies = m.bodies();
  // mass and centre in the carrier's frame, then inertia about the centre (parallel axes)
  std::vector<Vec3> centre(composites.size(), Vec3::Zero());
  for (int b = 0; b < nb; ++b) {
    const int k = index[wp.top[b]];
    composites[k].mass += bodies[b].mass;
    centre[k] += bodies[b].mass * wp.p[b];
  }
  for (size_t k = 0; k < composites.size(); ++k)
    if (composites[k].mass > 0) centre[k] /= composites[k].mass;
  weld.assign(nb, Weld{});
  for (int b = 0; b < nb; ++b) {
    const int k = index[wp.top[b]];
    Weld& w = weld[b];
    w.composite = k;
    w.R = wp.R[b];
    w.p = wp.p[b] - centre[k];
    w.identity = wp.top[b] == b && w.p.isZero(0.0) && composites[k].mass == bodies[b].mass;
    composites[k].inertia +=
        wp.R[b] * bodies[b].inertia * wp.R[b].transpose() +
        bodies[b].mass * (w.p.squaredNorm() * Mat3::Identity() - w.p * w.p.transpose());
  }
  return centre;
}

// internal: a constraint among bodies of one composite (the merged fixed joints, and any
// loop between welded bodies), whose rows vanish in the composites' coordinates
std::vector<char> internal_constraints(const Model& m, const std::vector<Weld>& weld, bool merged) {
  std::vector<char> internal(m.constraints().size(), 0);
  if (merged)
    for (size_t c = 0; c < m.constraints().size(); ++c) {
      const std::vector<int>& named = m.constraints()[c]->bodies();
      bool same = named.size() >= 2;
      for (int b : named) same = same && weld[b].composite == weld[named[0]].composite;
      internal[c] = same;
    }
  return internal;
}

// The welded groups of m's tree (bodies joined by tree joints without motion, both rigid)
// merged into composites: m.composites_, m.weld_, m.carrier_, m.internal_, m.merged_.
// Composites are numbered in the order of their first body, so that without welds
// composite k is body k.  The carrier of a group is its member nearest the tree's root;
// every other member's tree parent is in the group, so its pose in the carrier follows from
// the joints' frames, in tree order.
void merge_welds(Model& m, const TreeModel& tree, std::vector<Body>& composites,
                 std::vector<Weld>& weld, std::vector<int>& carrier, std::vector<char>& internal,
                 bool& merged) {
  const int nb = m.nbody();
  const auto& bodies = m.bodies();
  WeldPoses wp;
  if (weld_carriers(m, tree, wp)) merged = true;
  std::vector<int> index(nb, -1);  // carrier → composite
  for (int b = 0; b < nb; ++b) {
    const int c = wp.top[b];
    if (index[c] < 0) {
      index[c] = static_cast<int>(composites.size());
      Body k = bodies[c];
      k.mass = 0;
      k.inertia.setZero();
      composites.push_back(k);
      carrier.push_back(c);
    }
  }
  const std::vector<Vec3> centre = composite_mass_properties(m, wp, index, composites, weld);
  // the composite's initial state: its centre, moving with the carrier
  for (size_t k = 0; k < composites.size(); ++k) {
    Body& K = composites[k];
    const Body& c = bodies[carrier[k]];
    const Mat3 Q = c.orientation.normalized().toRotationMatrix();
    K.position = c.position + Q * centre[k];
    K.velocity = c.velocity + c.angular_velocity.cross(Q * centre[k]);
    K.root = false;
    for (int b = 0; b < nb; ++b)
      if (index[wp.top[b]] == static_cast<int>(k)) K.root = K.root || bodies[b].root;
  }
  internal = internal_constraints(m, weld, merged);
}

// Why composite k would make the mass matrix singular, naming its bodies; "" when not.
std::string composite_defect(const Model& m, const Body& K, int k) {
  std::string what = K.rigid() ? inertia_defect(K.inertia) : std::string();
  const bool singular = !(K.mass > 0) || (K.rigid() && !(K.inertia.determinant() > 0)) ||
                        what.find("triangle") == std::string::npos;
  if (!(K.mass > 0)) what = "mass is zero";
  if (what.empty()) return what;
  std::string members;
  int n = 0;
  for (int b = 0; b < m.nbody(); ++b)
    if (m.composite(b) == k) {
      members += (n ? ", '" : "'") + m.bodies()[b].name + "'";
      ++n;
    }
  const std::string& name = m.bodies()[m.carrier(k)].name;
  if (!singular) return "body '" + name + "': " + what;  // unphysical, not singular
  if (n == 1)
    return "body '" + name + "': " + what +
           ", and no fixed joint welds it to a body with mass: its joint would move a body "
           "without inertia (a singular mass matrix)";
  return "body '" + name + "': " + what + " for the welded bodies " + members +
         " together (a singular mass matrix)";
}

// The constraints' rows and terms are summed in ints here and by the tree: a sum past
// the largest int is refused before anything is sized by it.
void check_row_count(const std::vector<ConstraintPtr>& constraints) {
  long long rows = 0, terms = 0;
  for (const ConstraintPtr& c : constraints) {
    rows += c->rows();
    terms += static_cast<long long>(c->rows()) * static_cast<long long>(c->bodies().size());
    if (rows > std::numeric_limits<int>::max() || terms > std::numeric_limits<int>::max())
      throw std::invalid_argument("compile(): the constraints have more than " +
                                  std::to_string(std::numeric_limits<int>::max()) +
                                  " rows (or rows × bodies) in all, at constraint '" + c->name() +
                                  "'");
  }
}

}  // namespace

int ModelBuilder::body_index(const std::string& name) const {
  return index_of(body_names_, name);
}
BodyState ModelBuilder::initial_state(int b) const {
  return state_of(bodies_, b);
}
int Model::body_index(const std::string& name) const {
  return index_of(body_names_, name);
}
Model::Model() : tree_(std::make_shared<const TreeModel>()) {}

int Model::state_nq() const {
  return tree_->nq;
}
int Model::state_nu() const {
  return tree_->nu;
}

BodyState Model::initial_body_state(int b) const {
  return state_of(bodies_, b);
}

Model compile(const ModelBuilder& b) {
  Model m;
  m.name_ = b.name;
  m.gravity_ = b.gravity;
  m.friction_rule_ = b.friction_rule;
  m.bodies_ = b.bodies();
  m.shapes_ = b.shapes();
  m.visuals_ = b.visuals();
  for (int i = 0; i < m.nbody(); ++i) m.body_names_.emplace(m.bodies_[i].name, i);
  m.constraints_ = b.constraints();
  m.forces_ = b.forces();
  check_row_count(m.constraints_);
  // the joints, found once here (the tree is built from them) for every later reader
  for (const ConstraintPtr& c : m.constraints_) {
    m.joint_.push_back(dynamic_cast<const Joint*>(c.get()));
    if (m.joint_.back()) m.joints_.push_back(m.joint_.back());
  }
  // the spanning tree, then the composites it welds, which carry the maximal coordinates
  m.tree_ = std::make_shared<const TreeModel>(build_tree(m));
  merge_welds(m, *m.tree_, m.composites_, m.weld_, m.carrier_, m.internal_, m.merged_);
  // a massless frame (zero mass and inertia) between joints is moved with the mass beyond
  // it: the joint-space mass matrix stays regular while that of the maximal coordinates has
  // a zero block, so it is left to the recursion (an MJCF body with several joints)
  const TreeModel& tree = *m.tree_;
  std::vector<double> beyond(tree.joints.size(), 0.0);  // mass of each tree body's subtree
  for (int i = static_cast<int>(tree.joints.size()) - 1; i >= 0; --i) {
    beyond[i] += m.bodies_[tree.joints[i].body].mass;
    if (tree.joints[i].parent >= 0) beyond[tree.joints[i].parent] += beyond[i];
  }
  for (int k = 0; k < m.ncomposite(); ++k) {
    const Body& K = m.composites_[k];
    const int c = m.carrier_[k];
    if (K.mass == 0 && K.inertia.isZero(0.0) && beyond[tree.tree_index[c]] > 0) {
      if (m.joint_space_only_.empty())
        m.joint_space_only_ =
            "body '" + m.bodies_[c].name +
            "' is a massless frame moved by a joint (only its children have mass)";
      continue;
    }
    const std::string defect = composite_defect(m, K, k);
    if (!defect.empty()) throw std::invalid_argument("compile(): " + defect);
  }
  for (const TreeJoint& t : tree.joints)
    if (t.armature != 0 && m.joint_space_only_.empty())
      m.joint_space_only_ =
          "joint '" + m.constraints_[t.constraint]->name() + "' has an armature (rotor inertia)";
  // maximal coordinates, composite after composite
  for (const Body& body : m.composites_) {
    m.q_offset_.push_back(m.nq_);
    m.u_offset_.push_back(m.nu_);
    m.nq_ += body.nq();
    m.nu_ += body.nu();
  }
  // rows, terms and reaction slots, constraint after constraint
  for (const ConstraintPtr& c : m.constraints_) {
    const int nb = static_cast<int>(c->bodies().size());
    m.row_offset_.push_back(m.nrows_);
    m.term_offset_.push_back(m.nterms_);
    m.slot_offset_.push_back(m.nslots_);
    m.nrows_ += c->rows();
    m.nterms_ += c->rows() * nb;
    m.nslots_ += nb;
    m.scratch_size_ = std::max(m.scratch_size_, c->scratch_size());
  }
  for (const ForcePtr& f : m.forces_)
    m.scratch_size_ = std::max(m.scratch_size_, f->scratch_size());
  // the described state in the tree's coordinates: the joints' stated values, else the
  // bodies' described poses
  m.initial_ = initial_tree_state(m);
  return m;
}

State state_from_bodies(const Model& m, const std::vector<BodyState>& bodies) {
  if (static_cast<int>(bodies.size()) != m.nbody())
    throw std::invalid_argument("state_from_bodies(): bodies has " + std::to_string(bodies.size()) +
                                " entries, expected nbody = " + std::to_string(m.nbody()));
  State s;
  s.q.resize(m.tree().nq);
  s.u.resize(m.tree().nu);
  tree_from_bodies(m.tree(), bodies, s.q, s.u);
  return s;
}

}  // namespace appell
