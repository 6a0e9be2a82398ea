// The Data: the per-simulation workspace of one Model.
//
// Every buffer is sized in the constructor.  Each field says which stage writes it and
// its size.  In test builds (APPELL_TESTING) the outputs start as NaN, so that a field
// read before it is written fails a test.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "appell/model.hpp"

namespace appell {

// How an evaluation of the equations of motion ended.  Numerical outcomes are returned,
// not thrown.
enum class SolveStatus {
  Ok,
  Inconsistent,  // no u̇ satisfies A u̇ = b; diagnostics name the constraints
  NotFinite,     // the state or the result is not finite
};

struct Diagnostics {
  SolveStatus status = SolveStatus::Ok;
  int rank = 0;                   // numerical rank of A
  double rank_tolerance = 0.0;    // relative pivot threshold used for it
  double residual = 0.0;          // |A u̇ − b| / (1 + |b|)
  std::vector<int> inconsistent;  // constraints whose rows are violated by the best u̇
  std::string message;            // what went wrong, for people
};

struct RecursiveWorkspace;  // engine/formulations/recursive/workspace.hpp

// The recursive formulation's preallocated workspace, built with the Data from the
// Model's tree; copies of a Data copy it.
struct RecursiveCache {
  RecursiveCache();
  ~RecursiveCache();
  RecursiveCache(const RecursiveCache&);
  RecursiveCache& operator=(const RecursiveCache&);
  std::unique_ptr<RecursiveWorkspace> workspace;
};

struct SparseWorkspace;  // engine/formulations/sparse_workspace.hpp

// The sparse formulation's symbolic analysis (pattern, ordering, elimination tree, factor
// pattern) and numeric workspace, built by the first forward(Sparse) on this Data and kept
// for the next ones; copies of a Data copy it.
struct SparseCache {
  SparseCache();
  ~SparseCache();
  SparseCache(const SparseCache&);
  SparseCache& operator=(const SparseCache&);
  std::unique_ptr<SparseWorkspace> workspace;
};

struct Data {
  // Sizes every buffer from m and sets the model's initial state (set_state).
  explicit Data(const Model& m);

  double t = 0.0;     // time                                        (set by caller)
  Eigen::VectorXd q;  // maximal configuration of the composites      (nq)
  Eigen::VectorXd u;  // maximal quasi-velocities of the composites   (nu)
  // The joint-space State q, u were set from, and q, u as it set them; by set_state() and
  // forward(m, d, s).  While q, u still equal them, forward(m, d, f) with `recursive`
  // evaluates `state` itself; once a caller changes q or u, it reads the joint coordinates
  // off them.                                                 (tree nq, nu; nq, nu)
  State state;
  Eigen::VectorXd q_of_state, u_of_state;

  std::vector<BodyState> body;  // world-frame state; by kinematics()           (nbody)
  std::vector<Mat3> J;          // world inertia Q J0 Qᵀ; by kinematics()        (nbody)
  // the composites' states and world inertias (appell/model.hpp "Composites"); by
  // kinematics(); empty when nothing is welded (then they are body and J)
  std::vector<BodyState> composite;   //                                  (ncomposite)
  std::vector<Mat3> Jc;               //                                  (ncomposite)
  std::vector<SpatialForce> applied;  // applied wrenches; by applied_forces()         (nbody)
  Eigen::VectorXd F;  // (f, τ − ω×Jω) per composite; by applied_forces()       (nu)

  // The rows A u̇ = b.  The recursive formulation forms only the rows beyond its tree: a
  // tree joint holds by construction in joint coordinates, so its residuals are 0 and its
  // b is left 0 and its terms unwritten (its λ and reactions are still given).
  std::vector<SpatialForce> terms;    // ∂π/∂u per row and body; by constraint_rows()  (nterms)
  Eigen::VectorXd b;                  // acceleration right side; by constraint_rows() (nrows)
  Eigen::VectorXd velocity_residual;  // π; by constraint_rows()                   (nrows)
  Eigen::VectorXd position_residual;  // g (0 for nonholonomic rows)               (nrows)
  // the terms folded onto the composites (W1 in engine/assembly/stages.hpp), zero on internal rows;
  // by fold_rows(); empty when nothing is welded (then they are `terms`)
  std::vector<SpatialForce> cterms;  //                                                 (nterms)
  Eigen::MatrixXd A;  // dense A; by dense_rows(), sized by its first call (nrows × nu)

  Eigen::VectorXd udot;                // accelerations; by forward()                   (nu)
  Eigen::VectorXd lambda;              // minimum-norm multipliers; by forward()        (nrows)
  std::vector<SpatialForce> reaction;  // per constraint, per named body; by forward()  (nslots)
  std::vector<SpatialForce> subtree;   // workspace of weld_reactions(); empty unwelded  (nbody)
  Diagnostics diagnostics;             // by forward()
  RecursiveCache recursive;            // the recursion's workspace; by forward(Recursive)
  SparseCache sparse;                  // sparse's analysis and workspace; by forward(Sparse)

  // workspace of constraints and forces (expressions); by whoever evaluates them
  mutable std::vector<double> scratch;  //                                 (scratch_size)

  // the sizes this Data was built for (check())
  int nbody = 0, nq = 0, nu = 0, nrows = 0, nterms = 0, ntree_q = 0, ntree_u = 0;

  // the state view constraints and forces evaluate on
  StateView view() const { return StateView{body.data(), t, scratch.data(), scratch.size()}; }
};

// Throws std::invalid_argument, naming `caller` and both sizes, unless d was built for a
// model of m's sizes (Data(m)).  O(1); every entry point of the library calls it.
void check(const Model& m, const Data& d, const char* caller);

// Body b's centre-of-mass and angular accelerations (world frame) from d.udot, which holds
// its composite's (appell/model.hpp "Composites"): a = a_k + α × r + ω × (ω × r) with
// r = x̄_b − x̄_k.  Valid after forward().  O(1).
SpatialMotion body_acceleration(const Model& m, const Data& d, int b);
// the same into two vectors (the older spelling)
inline void body_acceleration(const Model& m, const Data& d, int b, Vec3& linear, Vec3& angular) {
  const SpatialMotion a = body_acceleration(m, d, b);
  linear = a.linear;
  angular = a.angular;
}

// d.t, d.body, d.J and the maximal d.q, d.u of the joint-space State s (tree kinematics),
// and d.state = s.  Throws std::invalid_argument when s does not have the model's sizes.
// O(n).
void set_state(const Model& m, Data& d, const State& s);

}  // namespace appell
