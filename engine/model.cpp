#include "engine/model.hpp"

#include <stdexcept>

#include "bodies/inertia.hpp"

namespace appell {

const char* formulation_name(Formulation f) {
  switch (f) {
    case Formulation::Auto:
      return "auto";
    case Formulation::Recursive:
      return "recursive";
    case Formulation::GibbsAppell:
      return "gibbs-appell";
    case Formulation::Pinv:
      return "pinv";
    case Formulation::Sparse:
      return "sparse";
  }
  return "auto";
}

bool parse_formulation(const std::string& name, Formulation& out) {
  for (Formulation f : {Formulation::Auto, Formulation::Recursive, Formulation::GibbsAppell,
                        Formulation::Pinv, Formulation::Sparse}) {
    if (name == formulation_name(f)) {
      out = f;
      return true;
    }
  }
  return false;
}

int Model::add_body(const Body& body) {
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
  const int index = nbody();
  bodies_.push_back(body);
  bodies_.back().orientation.normalize();
  q_offset_.push_back(nq_);
  u_offset_.push_back(nu_);
  nq_ += body.nq();
  nu_ += body.nu();
  return index;
}

void Model::add_constraint(ConstraintPtr c) {
  if (!c) throw std::invalid_argument("Model::add_constraint(): null constraint");
  for (int b : c->bodies())
    if (b < 0 || b >= nbody())
      throw std::invalid_argument("Model::add_constraint(): constraint '" + c->name() +
                                  "' names body " + std::to_string(b) + ", model has " +
                                  std::to_string(nbody()));
  for (const ConstraintPtr& other : constraints_)
    if (other->name() == c->name())
      throw std::invalid_argument("Model::add_constraint(): duplicate constraint name '" +
                                  c->name() + "'");
  row_offset_.push_back(nrows_);
  term_offset_.push_back(nterms_);
  slot_offset_.push_back(nslots_);
  const int nb = static_cast<int>(c->bodies().size());
  nrows_ += c->rows();
  nterms_ += c->rows() * nb;
  nslots_ += nb;
  constraints_.push_back(std::move(c));
}

void Model::add_force(ForcePtr f) {
  if (!f) throw std::invalid_argument("Model::add_force(): null force");
  forces_.push_back(std::move(f));
}

int Model::body_index(const std::string& name) const {
  if (name == "world") return kWorld;
  for (int i = 0; i < nbody(); ++i)
    if (bodies_[i].name == name) return i;
  return -2;
}

BodyState Model::initial_state(int b) const {
  BodyState s;
  if (b == kWorld) return s;
  const Body& body = bodies_[b];
  s.x = body.position;
  s.Q = body.orientation.normalized().toRotationMatrix();
  s.v = body.velocity;
  s.w = body.rigid() ? body.angular_velocity : Vec3::Zero();
  return s;
}

}  // namespace appell
