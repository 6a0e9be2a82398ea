// Recursive Gibbs–Appell formulation: the passes in order (docs/recursive.md).
#include "engine/assembly/stages.hpp"
#include "engine/formulations/rank_policy.hpp"
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

RecursiveWorkspace::RecursiveWorkspace(const Model& m) : w(m.nbody()) {
  const TreeModel& tree = m.tree();
  const int nx = tree.nrows_extra;
  G.resize(nx, nx);
  e.resize(nx);
  scale.resize(nx);
  lambda.resize(nx);
  V.resize(nx, nx);
  rho.setZero(m.nrows());
  S.assign(tree.nu, Vec6::Zero());
  U.assign(tree.nu, Vec6::Zero());
  int nd = 0;
  for (const TreeJoint& t : tree.joints) {
    dinv_offset.push_back(nd);
    nd += t.nu * t.nu;
  }
  Dinv.assign(nd, 0.0);
  uu.setZero(tree.nu);
  for (int c : tree.extra)
    for (int k = 0; k < m.constraints()[c]->rows(); ++k) row_constraint.push_back(c);
  q.setZero(tree.nq);
  u.setZero(tree.nu);
  udot.setZero(tree.nu);
  find_joint_space_forces(m, *this);
}

RecursiveWorkspace& recursive_workspace(const Model& m, Data& d) {
  check(m, d, "recursive");
  return *d.recursive.workspace;
}

const Eigen::VectorXd& joint_accelerations(const Model& m, Data& d) {
  return recursive_workspace(m, d).udot;
}

const Eigen::VectorXd& joint_space_forces(const Model& m, Data& d) {
  return recursive_workspace(m, d).tau;
}

bool recursive_applied_forces(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                              const Eigen::Ref<const Eigen::VectorXd>& u) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  if (ws.tau_model != &m || ws.in_tau.size() != m.forces().size())
    find_joint_space_forces(m, ws);  // d was built for another model of the same sizes
  if (ws.tau_forces.empty()) {
    applied_forces(m, d);
    return true;
  }
  applied_forces(m, d, ws.in_tau);
  generalized_forces(m, d, q, u, ws);
  return ws.tau.allFinite();
}

namespace {

// the tree bodies' accelerations into the maximal u̇ (for outputs and reactions): each
// composite's from its carrier's (stages.hpp, W0)
void write_accelerations(const Model& m, Data& d, RecursiveWorkspace& ws) {
  if (!m.merged()) {
    for (int i = 0; i < static_cast<int>(ws.w.size()); ++i)
      m.block(m.tree().joints[i].body).set(d.udot, ws.w[i].a);
    return;
  }
  // (a particle is its own carrier: r = 0, and its block takes the linear part alone)
  for (int k = 0; k < m.ncomposite(); ++k) {
    const int c = m.carrier(k);
    const SpatialMotion& a = ws.w[m.tree().tree_index[c]].a;
    const BodyState& K = d.composite[k];
    const Vec3 r = K.x - d.body[c].x, alpha = a.angular;
    m.block(k).set(d.udot,
                   SpatialMotion(a.linear + alpha.cross(r) + K.w.cross(K.w.cross(r)), alpha));
  }
}

}  // namespace

void recursive_kinematics(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                          const Eigen::Ref<const Eigen::VectorXd>& u) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  kinematics_BaseToTip(m, m.tree(), q, u, d, ws);
}

namespace {

// the rank of the tree joints' rows in d.diagnostics
void tree_rank(const Model& m, Data& d) {
  const TreeModel& tree = m.tree();
  d.diagnostics.rank = tree.ntree_rows;
  if (m.merged())  // a merged fixed joint's rows are no rows of the composites' coordinates
    for (const TreeJoint& t : tree.joints)
      if (t.constraint >= 0 && m.internal(t.constraint)) d.diagnostics.rank -= t.rows;
  d.diagnostics.rank_tolerance = kDependentSine;
}

// passes 2 and 3 and the extra rows: the joint u̇, and λ of the extra rows
void passes(const Model& m, Data& d, RecursiveWorkspace& ws) {
  const TreeModel& tree = m.tree();
  body_forces(tree, d, ws);
  inertia_bias_TipToBase(tree, ws);
  accelerations_BaseToTip(tree, ws, true);
  tree_rank(m, d);
  if (tree.nrows_extra > 0) solve_extra_rows(m, tree, d, ws);
}

// The tree joints' rows, formed (for the every-row test; joint_multipliers leaves them
// unformed).  Allocates.
void form_tree_rows(const Model& m, Data& d) {
  std::vector<int> joints;
  for (const TreeJoint& t : m.tree().joints)
    if (t.constraint >= 0) joints.push_back(t.constraint);
  constraint_rows(m, d, joints);
}

}  // namespace

void solve_recursive(const Model& m, Data& d) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  const TreeModel& tree = m.tree();
  passes(m, d, ws);
  write_accelerations(m, d, ws);
  if (!ws.tau_forces.empty()) add_tau_wrenches(m, d, ws);  // d.F complete, for what follows
  if (d.diagnostics.status == SolveStatus::Inconsistent) {
    // confirm with the criterion every formulation uses (rank_policy.hpp), so that all
    // call the same scenes inconsistent; O(terms), allocates, on this path only
    d.diagnostics.status = SolveStatus::Ok;
    d.diagnostics.message.clear();
    d.diagnostics.inconsistent.clear();
    form_tree_rows(m, d);
    fold_rows(m, d, true);        // every row on the composites' u̇ (W1)
    row_responses(m, d, ws.rho);  // every row's, for the shared test
    check_consistency(m, d, ws.rho, d.diagnostics.rank_tolerance);
  }
  joint_multipliers(m, tree, d, ws);
}

namespace {

// after the kinematics and the applied forces: the extra rows, passes 2 and 3, and the
// finiteness of what they gave
SolveStatus rates_after_forces(const Model& m, Data& d, RecursiveWorkspace& ws,
                               const Stabilization& st) {
  if (m.tree().nrows_extra > 0) {
    constraint_rows(m, d, m.tree().extra, st);
    fold_rows(m, d, false, &m.tree().extra);  // the rank policy's row responses (W1)
  }
  passes(m, d, ws);
  if (d.diagnostics.status == SolveStatus::Ok &&
      (!ws.udot.allFinite() || (m.tree().nrows_extra > 0 && !ws.lambda.allFinite()))) {
    d.diagnostics.status = SolveStatus::NotFinite;
    d.diagnostics.message = "accelerations are not finite";
  }
  return d.diagnostics.status;
}

}  // namespace

SolveStatus recursive_rates(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                            const Eigen::Ref<const Eigen::VectorXd>& u, const Stabilization& st) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  d.diagnostics = Diagnostics{};
  kinematics_BaseToTip(m, m.tree(), q, u, d, ws);
  recursive_applied_forces(m, d, q, u);
  return rates_after_forces(m, d, ws, st);
}

SolveStatus recursive_rates(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                            const Eigen::Ref<const Eigen::VectorXd>& u,
                            const Eigen::Ref<const Eigen::VectorXd>& u_forces,
                            const Stabilization& st) {
  // the applied forces at u_forces; then the kinematics at u, which leave them alone
  kinematics_BaseToTip(m, m.tree(), q, u_forces, d, recursive_workspace(m, d));
  recursive_applied_forces(m, d, q, u_forces);
  return recursive_rates_kept_forces(m, d, q, u, st);
}

SolveStatus recursive_rates_kept_forces(const Model& m, Data& d,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& u,
                                        const Stabilization& st) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  d.diagnostics = Diagnostics{};
  kinematics_BaseToTip(m, m.tree(), q, u, d, ws);  // leaves d.applied, d.F and τ alone
  return rates_after_forces(m, d, ws, st);
}

void recursive_terms(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                     const Eigen::Ref<const Eigen::VectorXd>& u) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  d.diagnostics = Diagnostics{};
  kinematics_BaseToTip(m, m.tree(), q, u, d, ws);
  recursive_applied_forces(m, d, q, u);
  tree_rank(m, d);
}

SolveStatus recursive_passes(const Model& m, Data& d, const Stabilization& st) {
  return rates_after_forces(m, d, recursive_workspace(m, d), st);
}

SolveStatus recursive_rates_new_velocity(const Model& m, Data& d,
                                         const Eigen::Ref<const Eigen::VectorXd>& q,
                                         const Eigen::Ref<const Eigen::VectorXd>& u) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  const TreeModel& tree = m.tree();
  velocities_BaseToTip(m, tree, q, u, d, ws);  // d.diagnostics: the last evaluation's
  body_forces(tree, d, ws);
  bias_TipToBase(tree, ws, true);  // the articulated inertias and D⁻¹ of q kept   (R8, R9)
  accelerations_BaseToTip(tree, ws, true);
  if (!ws.udot.allFinite()) {
    d.diagnostics.status = SolveStatus::NotFinite;
    d.diagnostics.message = "accelerations are not finite";
  }
  return d.diagnostics.status;
}

void recursive_accelerations(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                             const Eigen::Ref<const Eigen::VectorXd>& u) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  const TreeModel& tree = m.tree();
  kinematics_BaseToTip(m, tree, q, u, d, ws);
  recursive_applied_forces(m, d, q, u);
  body_forces(tree, d, ws);
  inertia_bias_TipToBase(tree, ws);
  accelerations_BaseToTip(tree, ws, true);
  write_accelerations(m, d, ws);
  if (!ws.tau_forces.empty()) add_tau_wrenches(m, d, ws);
}

}  // namespace appell
