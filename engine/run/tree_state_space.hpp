// The recursive formulation's state space: x = (joint coordinates q (nq), joint
// quasi-velocities u (nu)) of the spanning tree (engine/model/tree.hpp).  Tree joints hold
// exactly at every x, so they never drift; only extra rows can.
#pragma once

#include "appell/state_space.hpp"
#include "engine/formulations/recursive.hpp"
#include "engine/model/tree.hpp"

namespace appell {

class TreeStateSpace : public StateSpace {
 public:
  explicit TreeStateSpace(const Model& m, const Stabilization& st = {});
  Formulation formulation() const override { return Formulation::Recursive; }
  int size() const override { return tree_.nq + tree_.nu; }
  // x = (s.q, s.u); throws std::invalid_argument on other sizes
  void from_state(const State& s, Eigen::VectorXd& x, Data& d) const override;
  // x of d.q, d.u (which must satisfy the tree joints): runs the maximal kinematics on
  // a copy of d, then reads the joint coordinates off the body states.  O(n), allocates.
  void from_maximal(const Data& d, Eigen::VectorXd& x) const override;
  void to_maximal(const Eigen::VectorXd& x, double t, Data& d) override;
  // (t, x's q, x's u) themselves: no body state is computed
  State to_state(const Eigen::VectorXd& x, double t, Data& d) override;
  // ẋ = (N(q) u, u̇) with u̇ from the recursion; d describes (t, x) afterwards
  SolveStatus derivative(const Eigen::VectorXd& x, double t, Data& d,
                         Eigen::VectorXd& xdot) override;
  // ẋ only (recursive_rates: no tree rows, no joint multipliers, no reactions); falls back
  // to derivative() when the extra rows look inconsistent, so that the status is final
  SolveStatus rate(const Eigen::VectorXd& x, double t, Data& d, Eigen::VectorXd& xdot) override;
  void normalize(Eigen::VectorXd& x) const override;
  // With extra rows, also the error of the bodies' maximal coordinates (engine/run/step_error.cpp)
  double step_error(const Eigen::VectorXd& x, const Eigen::VectorXd& xdot,
                    const Eigen::VectorXd& err, double dt, double atol, double rtol) override;
  // tree joints cannot drift: nothing to do without extra rows; with them, the projection
  // onto the extra rows in joint coordinates (engine/formulations/projection.hpp, J-P1, J-P2)
  SolveStatus project(Eigen::VectorXd& x, double t, Data& d) override;

  const TreeModel& tree() const { return tree_; }

 private:
  const Model& m_;
  const TreeModel& tree_;
  Stabilization st_;
  // step_error's workspace: body states at x, at x + err, and at (q, u + dt u̇)
  std::vector<BodyState> at_x_, at_moved_, at_rate_;
  std::vector<BodyState> bodies_;  // project's: the body states before the positions move
  Eigen::VectorXd moved_;
};

}  // namespace appell
