#include "appell/forward.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "engine/assembly/stages.hpp"
#include "engine/formulations/gibbs_appell.hpp"
#include "engine/formulations/pinv.hpp"
#include "engine/formulations/projection.hpp"
#include "engine/formulations/recursive.hpp"
#include "engine/formulations/recursive/workspace.hpp"
#include "engine/formulations/sparse.hpp"
#include "engine/model/tree.hpp"

namespace appell {

Formulation resolve_formulation(const Model& m, Formulation f) {
  if (f != Formulation::Auto) return f;
  if (!m.joint_space_only().empty()) return Formulation::Recursive;
  // recursive when the scene has tree joints and few rows beyond the tree: its extra rows
  // cost O(n m + m³), sparse about O(n) whatever m (forward.hpp, kAutoSparseExtraRows)
  if (m.tree().nrows_extra <= kAutoSparseExtraRows && !m.joints().empty())
    return Formulation::Recursive;
  // otherwise the sparse {1}-inverse form (redundant rows included, sparse.hpp)
  return Formulation::Sparse;
}

namespace {

bool not_finite(Data& d, const char* what) {
  d.diagnostics.status = SolveStatus::NotFinite;
  d.diagnostics.message = what;
  return true;
}

bool terms_finite(const SpatialForce* t, size_t n) {
  bool ok = true;
  for (size_t k = 0; k < n; ++k) ok = ok && t[k].force.allFinite() && t[k].moment.allFinite();
  return ok;
}

// Forces and rows are finite before the solve: a non-finite input is named as such, never
// mistaken for inconsistent rows (an infinite force makes every residual NaN).  `rows`:
// whether the rows that were formed are finite.
bool inputs_finite(Data& d, bool rows) {
  if (!d.F.allFinite()) return !not_finite(d, "applied forces are not finite");
  return rows || !not_finite(d, "constraint rows are not finite");
}

// every row formed
bool inputs_finite(Data& d) {
  return inputs_finite(d, d.b.allFinite() && terms_finite(d.terms.data(), d.terms.size()));
}

// only the listed constraints' rows formed
bool inputs_finite(const Model& m, Data& d, const std::vector<int>& constraints) {
  bool rows = true;
  for (int c : constraints) {
    const int n = m.constraints()[c]->rows();
    const size_t nt = static_cast<size_t>(n) * m.constraints()[c]->bodies().size();
    rows = rows && d.b.segment(m.row_offset(c), n).allFinite() &&
           terms_finite(d.terms.data() + m.term_offset(c), nt);
  }
  return inputs_finite(d, rows);
}

bool outputs_finite(Data& d) {
  if (d.diagnostics.status == SolveStatus::Ok && (!d.udot.allFinite() || !d.lambda.allFinite()))
    return !not_finite(d, "accelerations are not finite");
  return true;
}

// the solve and what follows it, once kinematics, forces and rows are in d
SolveStatus solve_and_react(const Model& m, Data& d, Formulation f) {
  if (!inputs_finite(d)) return d.diagnostics.status;
  switch (f) {
    case Formulation::GibbsAppell:
      solve_gibbs_appell(m, d);
      break;
    case Formulation::Pinv:
      solve_pinv(m, d);
      break;
    case Formulation::Sparse:
      solve_sparse(m, d);
      break;
    case Formulation::Recursive:  // forward_tree
    case Formulation::Auto:       // resolved by the callers
      break;
  }
  constraint_reactions(m, d);
  weld_reactions(m, d);
  outputs_finite(d);
  return d.diagnostics.status;
}

}  // namespace

SolveStatus forward(const Model& m, Data& d, Formulation f) {
  return forward(m, d, SolverOptions{f, Stabilization{}});
}

SolveStatus forward(const Model& m, Data& d, const SolverOptions& o) {
  check(m, d, "forward()");
  const Formulation f = resolve_formulation(m, o.formulation);
  d.diagnostics = Diagnostics{};
  if (!d.q.allFinite() || !d.u.allFinite() || !std::isfinite(d.t)) {
    not_finite(d, "state is not finite");
    return d.diagnostics.status;
  }
  if (f != Formulation::Recursive && !m.joint_space_only().empty()) {
    // its maximal mass matrix is singular or lacks the armature: refused, not approximated
    d.diagnostics.status = SolveStatus::NotFinite;
    d.diagnostics.message = std::string("the ") + formulation_name(f) +
                            " formulation cannot evaluate this model: " + m.joint_space_only() +
                            "; use the recursive formulation";
    return d.diagnostics.status;
  }
  if (f == Formulation::Recursive) {
    // the recursion runs on joint coordinates: those of the State d.q, d.u were set from,
    // while they are unchanged (d.state)
    if (d.q == d.q_of_state && d.u == d.u_of_state)
      return forward_tree(m, d, d.state.q, d.state.u, o.stabilization);
    // else read off the body states of this maximal state, O(n)
    kinematics(m, d);
    RecursiveWorkspace& ws = recursive_workspace(m, d);
    tree_from_bodies(m.tree(), d.body, ws.q, ws.u);
    return forward_tree(m, d, ws.q, ws.u, o.stabilization);
  }
  kinematics(m, d);
  applied_forces(m, d);
  constraint_rows(m, d, o.stabilization);
  fold_rows(m, d, true);  // onto the composites that carry the maximal coordinates
  return solve_and_react(m, d, f);
}

SolveStatus forward(const Model& m, Data& d, const State& s, const SolverOptions& o) {
  const bool recursive = resolve_formulation(m, o.formulation) == Formulation::Recursive;
  if (recursive && s.q.size() == m.tree().nq && s.u.size() == m.tree().nu && s.q.allFinite() &&
      s.u.allFinite()) {
    // body states once, from the joint coordinates; the maximal state from them
    d.t = s.t;
    const SolveStatus status = forward_tree(m, d, s.q, s.u, o.stabilization);
    maximal_from_bodies(m, d);
    remember_state(d, s);
    return status;
  }
  set_state(m, d, s);  // throws on a State of the wrong size
  if (recursive) return forward_tree(m, d, s.q, s.u, o.stabilization);
  return forward(m, d, o);
}

SolveStatus forward_tree(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                         const Eigen::Ref<const Eigen::VectorXd>& u, const Stabilization& st) {
  check(m, d, "forward_tree()");
  if (q.size() != m.tree().nq || u.size() != m.tree().nu)
    throw std::invalid_argument("forward_tree(): q has " + std::to_string(q.size()) +
                                " entries and u " + std::to_string(u.size()) +
                                ", expected the tree's nq = " + std::to_string(m.tree().nq) +
                                " and nu = " + std::to_string(m.tree().nu));
  d.diagnostics = Diagnostics{};
  if (!q.allFinite() || !u.allFinite() || !std::isfinite(d.t)) {
    not_finite(d, "state is not finite");
    return d.diagnostics.status;
  }
  recursive_kinematics(m, d, q, u);                              // body states once, from q and u
  const bool tau_finite = recursive_applied_forces(m, d, q, u);  // joint forces into τ
  // only the rows beyond the tree: the tree joints hold by construction, and their
  // multipliers and reactions come from the recursion (solve_recursive)
  const std::vector<int>& extra = m.tree().extra;
  constraint_rows(m, d, extra, st);
  fold_rows(m, d, false, &extra);  // the rank policy's row responses (W1)
  if (!tau_finite && not_finite(d, "applied forces are not finite")) return d.diagnostics.status;
  if (!inputs_finite(m, d, extra)) return d.diagnostics.status;
  solve_recursive(m, d);
  constraint_reactions(m, d, extra);
  outputs_finite(d);
  return d.diagnostics.status;
}

SolveStatus project_initial_state(const Model& m, Data& d, const State& s, InitialConditions& ic) {
  check(m, d, "initial_conditions()");
  check_state_sizes(m.tree(), s, "initial_conditions()");
  ic = InitialConditions{};
  ic.state = s;
  d.t = s.t;
  d.diagnostics = Diagnostics{};
  // the tree's rows hold at every joint state: only the extra rows can be violated; body
  // states from the joint coordinates
  recursive_kinematics(m, d, ic.state.q, ic.state.u);
  constraint_rows(m, d, m.tree().extra);
  ic.position_violation = max_extra_position_violation(m, d, &ic.violated_constraint);
  if (!(ic.position_violation <= 1e-6)) {  // NaN included
    std::ostringstream os;
    os << "initial positions violate constraint '"
       << (ic.violated_constraint >= 0 ? m.constraints()[ic.violated_constraint]->name()
                                       : std::string("?"))
       << "' by " << ic.position_violation << " (tolerance 1e-6)";
    d.diagnostics.status = SolveStatus::Inconsistent;
    d.diagnostics.message = os.str();
    return d.diagnostics.status;
  }
  ProjectionReport rep;
  const SolveStatus status = project_joint_velocities(m, d, ic.state.q, ic.state.u, &rep);
  ic.velocity_correction = rep.correction;
  ic.velocity_residual = rep.residual;
  if (status != SolveStatus::Ok) return status;
  if (!std::isfinite(rep.correction)) {
    not_finite(d, "the initial velocity correction is not finite");
    return d.diagnostics.status;
  }
  ic.projected = true;
  return status;
}

SolveStatus initial_conditions(const Model& m, Data& d, const State& s, const SolverOptions& o,
                               InitialConditions* start) {
  InitialConditions ic;
  SolveStatus status = project_initial_state(m, d, s, ic);
  if (ic.projected) status = forward(m, d, ic.state, o);
  if (start) *start = ic;
  return status;
}

}  // namespace appell
