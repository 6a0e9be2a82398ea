#include "engine/tree_state_space.hpp"

#include "engine/forward.hpp"
#include "engine/projection.hpp"

namespace appell {

void TreeStateSpace::from_maximal(const Data& d, Eigen::VectorXd& x) const {
  // the body states of d.q, d.u (d.body may be stale when the caller set q, u only)
  Data tmp = d;
  kinematics(m_, tmp);
  tree_from_maximal(m_, tree_, tmp, x);
}

void TreeStateSpace::to_maximal(const Eigen::VectorXd& x, double t, Data& d) {
  d.t = t;
  tree_to_maximal(m_, tree_, x, d);
  kinematics(m_, d);
}

SolveStatus TreeStateSpace::derivative(const Eigen::VectorXd& x, double t, Data& d,
                                       Eigen::VectorXd& xdot) {
  d.t = t;
  tree_to_maximal(m_, tree_, x, d);
  const SolveStatus status = forward(m_, d, Formulation::Recursive);
  xdot.resize(size());
  tree_qdot(tree_, x, xdot.head(tree_.nq));
  const RecursiveWorkspace& ws = recursive_workspace(m_, d);
  xdot.tail(tree_.nu) = ws.udot;
  return status;
}

void TreeStateSpace::normalize(Eigen::VectorXd& x) const {
  for (const TreeJoint& j : tree_.joints) {
    const int o = j.type == TreeJointType::Spherical ? j.q_offset
                  : j.type == TreeJointType::Free    ? j.q_offset + 3
                                                     : -1;
    if (o < 0) continue;
    auto q = x.segment<4>(o);
    const double n = q.norm();
    if (n > 0) q /= n;
  }
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
