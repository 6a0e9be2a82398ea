#include "engine/run/tree_state_space.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "appell/forward.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/formulations/projection.hpp"

namespace appell {

TreeStateSpace::TreeStateSpace(const Model& m, const Stabilization& st)
    : m_(m), tree_(m.tree()), st_(st) {}

void TreeStateSpace::from_state(const State& s, Eigen::VectorXd& x, Data& d) const {
  check(m_, d, "from_state()");
  check_state_sizes(tree_, s, "from_state()");
  x.resize(size());
  x << s.q, s.u;
}

void TreeStateSpace::from_maximal(const Data& d, Eigen::VectorXd& x) const {
  // the body states of d.q, d.u (d.body may be stale when the caller set q, u only)
  Data tmp = d;
  kinematics(m_, tmp);
  x.resize(size());
  tree_from_bodies(tree_, tmp.body, x.head(tree_.nq), x.tail(tree_.nu));
}

void TreeStateSpace::to_maximal(const Eigen::VectorXd& x, double t, Data& d) {
  d.t = t;
  tree_kinematics(m_, x.head(tree_.nq), x.tail(tree_.nu), d);
  maximal_from_bodies(m_, d);
}

State TreeStateSpace::to_state(const Eigen::VectorXd& x, double t, Data&) {
  State s;
  s.t = t;
  s.q = x.head(tree_.nq);
  s.u = x.tail(tree_.nu);
  return s;
}

SolveStatus TreeStateSpace::derivative(const Eigen::VectorXd& x, double t, Data& d,
                                       Eigen::VectorXd& xdot) {
  d.t = t;
  const auto q = x.head(tree_.nq);
  const auto u = x.tail(tree_.nu);
  const SolveStatus status = forward_tree(m_, d, q, u, st_);
  xdot.resize(size());
  tree_qdot(tree_, q, u, xdot.head(tree_.nq));
  xdot.tail(tree_.nu) = joint_accelerations(m_, d);
  return status;
}

SolveStatus TreeStateSpace::rate(const Eigen::VectorXd& x, double t, Data& d,
                                 Eigen::VectorXd& xdot) {
  d.t = t;
  const auto q = x.head(tree_.nq);
  const auto u = x.tail(tree_.nu);
  if (!q.allFinite() || !u.allFinite() || !std::isfinite(t)) return derivative(x, t, d, xdot);
  const SolveStatus status = recursive_rates(m_, d, q, u, st_);
  // a failure is confirmed (and reported) by the full evaluation
  if (status != SolveStatus::Ok) return derivative(x, t, d, xdot);
  xdot.resize(size());
  tree_qdot(tree_, q, u, xdot.head(tree_.nq));
  xdot.tail(tree_.nu) = joint_accelerations(m_, d);
  return status;
}

void TreeStateSpace::normalize(Eigen::VectorXd& x) const {
  tree_normalize(tree_, x.head(tree_.nq));
}

SolveStatus TreeStateSpace::project(Eigen::VectorXd& x, double t, Data& d) {
  d.diagnostics = Diagnostics{};
  if (tree_.nrows_extra == 0) return d.diagnostics.status;  // joint coordinates never drift
  // Extra rows (loops, primitives) drift: project onto them in joint coordinates
  // (projection.hpp, J-P1 and J-P2), O(n·m + m³) per iteration
  d.t = t;
  auto q = x.head(tree_.nq);
  auto u = x.tail(tree_.nu);
  // the bodies' velocities before the positions move: the velocities to project after
  tree_kinematics(m_, q, u, d);
  bodies_ = d.body;
  SolveStatus status = project_joint_positions(m_, d, q);
  if (status != SolveStatus::Ok) return status;
  joint_velocities_of(m_, d, q, bodies_, u);
  return project_joint_velocities(m_, d, q, u);
}

}  // namespace appell
