// Integration of a Lagrangian system in its quasi-velocities (docs/lagrangian.md): the
// state is (q, ν), with  q̇ = Y(q, t) ν + y(q, t)  and ν̇ from the Gibbs–Appell equations
// in ν (appell/lagrangian.hpp).  rk4 with a fixed step (the holonomic rows' drift projected
// out after each step), or dopri5 with error control and dense output at the output
// instants.
#pragma once

#include <functional>
#include <string>

#include "appell/lagrangian.hpp"
#include "appell/lagrangian_scene.hpp"

namespace appell {

// One output instant.
struct LagrangianSample {
  double t = 0.0;
  Eigen::VectorXd q, qd, nu;        // n, n, k
  double energy = 0.0;              // the energy function q̇·∂L/∂q̇ − L
  double violation_position = 0.0;  // max |g(q, t)| over the holonomic rows
  double violation_velocity = 0.0;  // max |γ q̇ + γ₀| over all rows
};

struct LagrangianRunResult {
  bool ok = true;
  double failed_at = 0.0;  // t of the failure
  std::string message;     // why (not regular, dependent quasi-velocities, not finite)
  long steps = 0, rhs_evaluations = 0;
};

// Runs from `x0` for run.duration, calling `sample` at t0 and at every run.every-th step
// (rk4) or output instant (dopri5).  A numerical failure ends the run with ok = false;
// the samples before it have been delivered.  O(steps · evaluation).
LagrangianRunResult integrate_lagrangian(
    const LagrangianSystem& s, const LagrangianState& x0, const LagrangianRun& run,
    const std::function<void(const LagrangianSample&)>& sample);

}  // namespace appell

namespace appell {

// The linear model δẋ = A δx of the first-order system in x = (q, ν) about the state x0
// (q̇ = Y ν + y, ν̇ from the Gibbs–Appell equations in ν), A of size (n + k)².  Each column
// is the exact derivative along a state (nested dual numbers through L, the forces and the
// rows, up to third derivatives; engine/lagrangian/lagrangian_linearize.cpp (X1)–(X5)).  With
// holonomic rows, q's columns leave the constraint set: A's extra zero eigenvalues are those
// directions.  Not Ok (with `message`) when the evaluation fails.  O((n + k) · (terms' sweeps
// + n²)).
LagrangianStatus linearize_lagrangian(const LagrangianSystem& s, const LagrangianState& x0,
                                      Eigen::MatrixXd& A, std::string& message);

}  // namespace appell
