// The Data: the per-simulation workspace of one Model.
//
// Every buffer is sized in the constructor.  Each field says which stage writes it and
// its size.  In test builds (APPELL_TESTING) the outputs start as NaN, so that a field
// read before it is written fails a test.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "engine/model.hpp"

namespace appell {

// How an evaluation of the equations of motion ended.  Numerical outcomes are returned,
// not thrown.
enum class SolveStatus {
  Ok,
  Inconsistent,  // no u̇ satisfies A u̇ = b; diagnostics name the constraints
  NotFinite,     // the state or the result is not finite
  Unsupported,   // the formulation cannot run on this model (diagnostics say why)
};

struct Diagnostics {
  SolveStatus status = SolveStatus::Ok;
  int rank = 0;                   // numerical rank of A
  double rank_tolerance = 0.0;    // relative pivot threshold used for it
  double residual = 0.0;          // |A u̇ − b| / (1 + |b|)
  std::vector<int> inconsistent;  // constraints whose rows are violated by the best u̇
  std::string message;            // what went wrong, for people
};

struct Data {
  explicit Data(const Model& m);

  double t = 0.0;     // time                                        (set by caller)
  Eigen::VectorXd q;  // maximal configuration                        (nq)
  Eigen::VectorXd u;  // maximal quasi-velocities                     (nu)

  std::vector<BodyState> body;  // world-frame state; by kinematics()           (nbody)
  std::vector<Mat3> J;          // world inertia Q J0 Qᵀ; by kinematics()        (nbody)
  std::vector<Wrench> applied;  // applied wrenches; by applied_forces()         (nbody)
  Eigen::VectorXd F;            // (f, τ − ω×Jω) per body; by applied_forces()   (nu)

  std::vector<RowTerm> terms;         // ∂π/∂u per row and body; by constraint_rows()  (nterms)
  Eigen::VectorXd b;                  // acceleration right side; by constraint_rows() (nrows)
  Eigen::VectorXd velocity_residual;  // π; by constraint_rows()                   (nrows)
  Eigen::VectorXd position_residual;  // g (0 for nonholonomic rows)               (nrows)
  Eigen::MatrixXd A;                  // dense A; by dense_rows()                      (nrows × nu)

  Eigen::VectorXd udot;          // accelerations; by forward()                   (nu)
  Eigen::VectorXd lambda;        // minimum-norm multipliers; by forward()        (nrows)
  std::vector<Wrench> reaction;  // per constraint, per named body; by forward()  (nslots)
  Diagnostics diagnostics;       // by forward()

  // the state view constraints and forces evaluate on
  StateView view() const { return StateView{body.data(), t}; }
};

// q, u of the model's initial state (t = 0).
void initial_state(const Model& m, Data& d);

}  // namespace appell
