#include "engine/run/tree_state_space.hpp"

#include <cmath>

#include "appell/forward.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/formulations/projection.hpp"

namespace appell {

TreeStateSpace::TreeStateSpace(const Model& m, const Stabilization& st)
    : m_(m), tree_(m.tree()), st_(st) {}

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
  // Extra rows (loops, primitives) drift.  Project in maximal coordinates onto every row —
  // the tree joints, which x satisfies, stay satisfied by the minimum-norm correction —
  // then read the joint coordinates back (projection.hpp P1–P3).  Dense: O(n·m²).
  to_maximal(x, t, d);
  SolveStatus status = project_positions(m_, d);
  if (status == SolveStatus::Ok) status = project_velocities(m_, d);
  if (status == SolveStatus::Ok) from_maximal(d, x);
  return status;
}

}  // namespace appell
