#include "appell/model.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "appell/inertia.hpp"
#include "engine/model/tree.hpp"

namespace appell {

int ModelBuilder::add_body(const Body& body) {
  if (body.name.empty() || body.name == "world")
    throw std::invalid_argument("Model::add_body(): the name '" + body.name + "' is reserved");
  if (body_index(body.name) != -2)
    throw std::invalid_argument("Model::add_body(): duplicate body name '" + body.name + "'");
  if (!(body.mass > 0) || !std::isfinite(body.mass))
    throw std::invalid_argument("Model::add_body(): body '" + body.name + "': mass must be > 0");
  if (body.rigid()) {
    const std::string defect = inertia_defect(body.inertia);
    if (!defect.empty())
      throw std::invalid_argument("Model::add_body(): body '" + body.name + "': " + defect);
  }
  bodies_.push_back(body);
  bodies_.back().orientation.normalize();
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
  const Body& body = bodies[b];
  s.x = body.position;
  s.Q = body.orientation.normalized().toRotationMatrix();
  s.v = body.velocity;
  s.w = body.rigid() ? body.angular_velocity : Vec3::Zero();
  return s;
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
  m.bodies_ = b.bodies();
  for (int i = 0; i < m.nbody(); ++i) m.body_names_.emplace(m.bodies_[i].name, i);
  m.constraints_ = b.constraints();
  m.forces_ = b.forces();
  // maximal coordinates, body after body
  for (const Body& body : m.bodies_) {
    m.q_offset_.push_back(m.nq_);
    m.u_offset_.push_back(m.nu_);
    m.nq_ += body.nq();
    m.nu_ += body.nu();
  }
  // rows, terms and reaction slots, constraint after constraint; their sums are ints
  long long rows = 0, terms = 0;
  for (const ConstraintPtr& c : m.constraints_) {
    rows += c->rows();
    terms += static_cast<long long>(c->rows()) * static_cast<long long>(c->bodies().size());
    if (rows > std::numeric_limits<int>::max() || terms > std::numeric_limits<int>::max())
      throw std::invalid_argument("compile(): the constraints have more than " +
                                  std::to_string(std::numeric_limits<int>::max()) +
                                  " rows (or rows × bodies) in all, at constraint '" + c->name() +
                                  "'");
  }
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
  // the spanning tree, and the described state in its coordinates
  m.tree_ = std::make_shared<const TreeModel>(build_tree(m));
  std::vector<BodyState> states(m.nbody());
  for (int i = 0; i < m.nbody(); ++i) states[i] = state_of(m.bodies_, i);
  m.initial_ = state_from_bodies(m, states);
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
