// What an integrator integrates: a first-order system ẋ = f(t, x) in the coordinates of
// one formulation.  A run starts from a joint-space State (from_state) and its samples are
// read from d after derivative(); the maps to and from the maximal coordinates (d.q, d.u)
// remain for callers that hold maximal states.
//
//   maximal (pinv, gibbs-appell, sparse):  x = (q, u), q per body (x̄, quaternion),
//                                          u per body (v̄, ω);  nx = nq + nu
//   tree (recursive):                      x = (joint coordinates, joint quasi-velocities)
//
// A StateSpace holds the formulation's workspace, so make one per simulation (per
// thread); the Model it reads stays constant and can be shared.
#pragma once

#include <memory>

#include "appell/data.hpp"

namespace appell {

class StateSpace {
 public:
  virtual ~StateSpace() = default;
  virtual Formulation formulation() const = 0;
  virtual int size() const = 0;  // nx
  // x of the joint-space State s (appell/model.hpp): s.q, s.u themselves in the tree's
  // space; the maximal q, u of its body states in the maximal one (d is the workspace)
  virtual void from_state(const State& s, Eigen::VectorXd& x, Data& d) const = 0;
  // x of the maximal state d.q, d.u (which must satisfy the tree joints, if any)
  virtual void from_maximal(const Data& d, Eigen::VectorXd& x) const = 0;
  // d.t, d.q, d.u and d.body of x
  virtual void to_maximal(const Eigen::VectorXd& x, double t, Data& d) = 0;
  // the joint-space State of x at t: x's own q, u in the tree's space (d untouched); in the
  // maximal one the joint coordinates of its body states (to_maximal into d, then
  // state_from_bodies).  O(n).
  virtual State to_state(const Eigen::VectorXd& x, double t, Data& d) = 0;
  // ẋ at (t, x).  Runs the formulation's forward pass, so every output field of d
  // (body states, udot, lambda, reaction, residuals) describes (t, x) afterwards.
  virtual SolveStatus derivative(const Eigen::VectorXd& x, double t, Data& d,
                                 Eigen::VectorXd& xdot) = 0;
  // ẋ at (t, x) only, equal bit for bit to derivative()'s: what an integrator's stages
  // need.  The fields of d that ẋ does not need (multipliers and reactions of tree joints,
  // the maximal udot of the tree) may be left stale; call derivative() where d is read.
  // The recursive formulation skips its joint multipliers and tree rows here.
  virtual SolveStatus rate(const Eigen::VectorXd& x, double t, Data& d, Eigen::VectorXd& xdot) {
    return derivative(x, t, d, xdot);
  }
  // restores invariants after a step (unit quaternions); cheap, O(n)
  virtual void normalize(Eigen::VectorXd& x) const = 0;
  // The size of an adaptive step's error estimate `err` (a change of x, from x with ẋ =
  // xdot over a step dt) in units of the tolerance: the step is accepted when it is ≤ 1.
  // The default is the usual mixed test on every component of x,
  //   max_i |err_i| / (atol + rtol (|x_i| + dt |ẋ_i|)).
  virtual double step_error(const Eigen::VectorXd& x, const Eigen::VectorXd& xdot,
                            const Eigen::VectorXd& err, double dt, double atol, double rtol);
  // projection stabilization: moves x back onto the position and velocity constraint
  // manifolds (Gauss–Newton on holonomic rows, then a mass-metric velocity projection)
  virtual SolveStatus project(Eigen::VectorXd& x, double t, Data& d) = 0;
};

// The state space of o.formulation (Auto resolved against the model), evaluating with
// o.stabilization.
std::unique_ptr<StateSpace> make_state_space(const Model& m, const SolverOptions& o);

// Maximal coordinates, for the dense and sparse formulations.
class MaximalStateSpace : public StateSpace {
 public:
  MaximalStateSpace(const Model& m, const SolverOptions& o) : m_(m), o_(o) {}
  Formulation formulation() const override { return o_.formulation; }
  int size() const override { return m_.nq() + m_.nu(); }
  void from_state(const State& s, Eigen::VectorXd& x, Data& d) const override;
  void from_maximal(const Data& d, Eigen::VectorXd& x) const override;
  void to_maximal(const Eigen::VectorXd& x, double t, Data& d) override;
  State to_state(const Eigen::VectorXd& x, double t, Data& d) override;
  SolveStatus derivative(const Eigen::VectorXd& x, double t, Data& d,
                         Eigen::VectorXd& xdot) override;
  void normalize(Eigen::VectorXd& x) const override;
  SolveStatus project(Eigen::VectorXd& x, double t, Data& d) override;

 private:
  const Model& m_;
  SolverOptions o_;
};

}  // namespace appell
