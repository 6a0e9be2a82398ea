// The first-order system in (q, ν) that a Lagrangian system and a rigid-body scene in the
// user's quasi-velocities share (appell/lagrangian_run.hpp, appell/rigid_quasi_velocities.hpp):
// one integrator loop (engine/run/lagrangian_run.cpp, the floor of the integrators) and one
// linearization (here), each system supplying its own right side.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <functional>
#include <string>

#include "appell/lagrangian_run.hpp"

namespace appell {

struct RigidNuSystem;  // appell/rigid_quasi_velocities.hpp
struct RigidNuData;
struct State;

namespace lagrangian_detail {

// An evaluation that failed at t, and why (thrown by a right side; ends the run).
struct Failure {
  double t;
  std::string message;
};

// A system ẋ = F(x, t) in x = (q, ν).
struct FirstOrder {
  // ẋ at (x, t); throws Failure
  std::function<void(const Eigen::VectorXd& x, double t, Eigen::VectorXd& xdot)> rate;
  // after each fixed step: q back onto the holonomic rows (and unit quaternions), ν kept
  std::function<void(Eigen::VectorXd& x, double t)> project;
  // the output at (x, t); throws Failure
  std::function<LagrangianSample(const Eigen::VectorXd& x, double t)> sample;
};

// the fixed steps (or output intervals) of `run`: ⌊duration / dt⌋
inline long steps_of(const LagrangianRun& run) {
  return std::lround(std::floor(run.duration / run.dt + 1e-9));
}

// A = ∂F/∂x at x0 by Richardson-extrapolated central differences (lagrangian_linearize.cpp):
// steps 1e-2 in the first nq states, 1e-1 in the others, scaled by max(1, |x_j|).  `F`
// returns false (with `message`) when an evaluation fails.
bool richardson_jacobian(const std::function<bool(const Eigen::VectorXd&, Eigen::VectorXd&)>& F,
                         const Eigen::VectorXd& x0, int nq, Eigen::MatrixXd& A,
                         std::string& message);

// A rigid system's rows at x (rigid_quasi_velocities.cpp): the extra rows (all of them)
// and the quasi-velocities' rows; the kept rows into d.r.A, r, alpha, g, the quasi-
// velocities' into d.r.W, nu, beta.  Sets the bodies' states.  O(n · rows).
void rigid_rows(const RigidNuSystem& s, const State& x, RigidNuData& d);

}  // namespace lagrangian_detail
}  // namespace appell
