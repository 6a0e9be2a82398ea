// The first-order system in (q, ν) that a Lagrangian system and a rigid-body scene in the
// user's quasi-velocities share (appell/lagrangian_run.hpp, appell/rigid_quasi_velocities.hpp):
// one integrator loop and one linearization, each system supplying its own right side.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <functional>
#include <string>

#include "appell/lagrangian_run.hpp"

namespace appell::lagrangian_detail {

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

// run.method's integrator (appell/integrators.hpp: one that integrates a system in its
// quasi-velocities; engine/run/integrators/) from x0 at t0 (lagrangian_run.cpp); throws
// std::invalid_argument for another method.  rhs_evaluations is left to the caller.
LagrangianRunResult integrate_first_order(const FirstOrder& f, Eigen::VectorXd x0, double t0,
                                          const LagrangianRun& run,
                                          const std::function<void(const LagrangianSample&)>& out);

// A = ∂F/∂x at x0 by Richardson-extrapolated central differences (lagrangian_linearize.cpp):
// steps 1e-2 in the first nq states, 1e-1 in the others, scaled by max(1, |x_j|).  `F`
// returns false (with `message`) when an evaluation fails.
bool richardson_jacobian(const std::function<bool(const Eigen::VectorXd&, Eigen::VectorXd&)>& F,
                         const Eigen::VectorXd& x0, int nq, Eigen::MatrixXd& A,
                         std::string& message);

}  // namespace appell::lagrangian_detail
