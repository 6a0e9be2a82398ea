// The Model: the constant description of a constrained multibody system.
//
// Bodies, constraints and forces are added once; the model then never changes while it
// is simulated, so one Model can drive several Data (one per thread).  The model also
// fixes the layout of the maximal coordinates:
//   q = per body (x̄, [w x y z]) for rigid bodies, x̄ for particles          (nq)
//   u = per body (v̄, ω) for rigid bodies, v̄ for particles                   (nu)
// and of the constraint rows: constraint c owns rows [row_offset(c), +rows) and, for each
// row, one RowTerm per body it names, starting at term_offset(c).
#pragma once

#include <string>
#include <vector>

#include "constraints/constraint.hpp"
#include "engine/forces.hpp"

namespace appell {

enum class Formulation { Auto, Recursive, GibbsAppell, Pinv, Sparse };
const char* formulation_name(Formulation f);
// false when `name` is not one of auto, recursive, gibbs-appell, pinv, sparse
bool parse_formulation(const std::string& name, Formulation& out);

// Constraint stabilization.  Baumgarte replaces the acceleration rows by
//   dπ/dt + 2α π + β² g = 0      (g = 0 for nonholonomic rows),
// i.e. b ← b − 2α π − β² g.  Projection is done by the integrator after each step.
struct Stabilization {
  enum class Type { None, Baumgarte, Projection };
  Type type = Type::None;
  double alpha = 0.0;
  double beta = 0.0;
};

struct SolverOptions {
  Formulation formulation = Formulation::Auto;
  Stabilization stabilization;
};

struct IntegratorOptions {
  std::string method = "rk4";  // rk4 | dopri5 | rkf78
  double duration = 1.0;
  double dt = 1e-3;
  double rtol = 1e-9;
  double atol = 1e-12;
};

struct OutputOptions {
  int every = 1;
};

class Model {
 public:
  std::string name;
  Vec3 gravity = Vec3::Zero();
  SolverOptions solver;
  IntegratorOptions integrator;
  OutputOptions output;

  // Adds a body and returns its index.  Throws std::invalid_argument on a duplicate or
  // reserved name, a non-positive mass or an unphysical inertia.
  int add_body(const Body& body);
  // Adds a constraint; its bodies must already exist.  Throws std::invalid_argument.
  void add_constraint(ConstraintPtr c);
  void add_force(ForcePtr f);

  const std::vector<Body>& bodies() const { return bodies_; }
  const std::vector<ConstraintPtr>& constraints() const { return constraints_; }
  const std::vector<ForcePtr>& forces() const { return forces_; }
  int nbody() const { return static_cast<int>(bodies_.size()); }

  // kWorld for "world", −2 when there is no such body
  int body_index(const std::string& name) const;
  // the t = 0 pose and velocity of body b (the resting world for kWorld)
  BodyState initial_state(int b) const;

  int nq() const { return nq_; }
  int nu() const { return nu_; }
  int nrows() const { return nrows_; }
  int nterms() const { return nterms_; }
  int nslots() const { return nslots_; }  // Σ over constraints of their body counts
  // the largest StateView::scratch any constraint or force needs; Data holds that much
  size_t scratch_size() const { return scratch_size_; }
  int q_offset(int b) const { return q_offset_[b]; }
  int u_offset(int b) const { return u_offset_[b]; }
  int row_offset(int c) const { return row_offset_[c]; }
  int term_offset(int c) const { return term_offset_[c]; }
  int slot_offset(int c) const { return slot_offset_[c]; }

 private:
  std::vector<Body> bodies_;
  std::vector<ConstraintPtr> constraints_;
  std::vector<ForcePtr> forces_;
  std::vector<int> q_offset_, u_offset_, row_offset_, term_offset_, slot_offset_;
  int nq_ = 0, nu_ = 0, nrows_ = 0, nterms_ = 0, nslots_ = 0;
  size_t scratch_size_ = 0;
};

}  // namespace appell
