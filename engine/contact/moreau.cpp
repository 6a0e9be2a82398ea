// Moreau–Jean time stepping with contacts and joint limits (engine/contact/moreau.hpp):
// the step (its first half, midpoint, impulses and end-of-step check), the free velocity
// and its implicit midpoint.  The rows are gathered in moreau_rows.cpp, the impulses'
// laws in moreau_impacts.cpp and their later stages in moreau_stages.cpp, the checks in
// moreau_checks.cpp.
#include "engine/contact/moreau.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "appell/forward.hpp"
#include "appell/joint.hpp"
#include "engine/formulations/recursive.hpp"
#include "engine/formulations/recursive/workspace.hpp"
#include "engine/model/tree.hpp"

namespace appell {

// half the shape's smallest extent: how deep another shape can go into it before its
// nearest way out is through the far side (a plane: no far side)
double MoreauStepper::thickness(const Shape& s) {
  return shape_thickness(s);
}

bool MoreauStepper::has_unilateral_rows(const Model& m, bool joint_limits, bool joint_friction) {
  if (make_contact_detector(m)) return true;
  if (!joint_limits && !joint_friction) return false;
  for (const TreeJoint& t : m.tree().joints) {
    if (t.constraint < 0 || t.nq != 1 || t.nu != 1) continue;
    const auto* j = dynamic_cast<const Joint*>(m.constraints()[t.constraint].get());
    if (!j) continue;
    if (joint_limits && j->properties().limited) return true;
    if (joint_friction && j->properties().friction > 0) return true;
  }
  return false;
}

MoreauStepper::MoreauStepper(const Model& m, std::unique_ptr<ContactDetector> detector,
                             const MoreauOptions& o)
    : m_(m), det_(std::move(detector)), o_(o) {
  const TreeModel& tr = m.tree();
  root_.resize(tr.joints.size());
  for (size_t i = 0; i < tr.joints.size(); ++i)
    root_[i] = tr.joints[i].parent < 0 ? static_cast<int>(i) : root_[tr.joints[i].parent];
  reach_.assign(m.nbody(), 0.0);
  for (const Shape& sh : m.shapes()) {
    if (sh.body < 0) continue;
    reach_[sh.body] = std::max(reach_[sh.body], sh.position.norm() + shape_reach(sh));
  }
  const TreeModel& tree = m.tree();
  // bodies whose inertial terms vanish whatever they turn at: free on their own (a root
  // joint at the centre, nothing hanging from them) with an isotropic inertia, ω × J ω = 0
  // and no joint velocity products, so that the free velocity's midpoint passes would give
  // its explicit value again (a rolling ball)
  steady_spin_.assign(m.nbody(), 0);
  for (size_t i = 0; i < tree.joints.size(); ++i) {
    const TreeJoint& t = tree.joints[i];
    if (t.parent >= 0 || t.type != &free_joint() || !tree.children[i].empty() || t.body < 0 ||
        t.body >= m.nbody() || t.armature != 0.0)
      continue;
    const Body& b = m.bodies()[t.body];
    const double mean = b.inertia.trace() / 3.0;
    steady_spin_[t.body] = b.rigid() && t.frames.X_C.squaredNorm() == 0.0 &&
                           (b.inertia - mean * Mat3::Identity()).norm() <= 1e-12 * mean;
  }
  for (int i = 0; i < static_cast<int>(tree.joints.size()); ++i) {
    const TreeJoint& t = tree.joints[i];
    if (t.constraint < 0 || t.nq != 1 || t.nu != 1) continue;
    const auto* j = dynamic_cast<const Joint*>(m.constraints()[t.constraint].get());
    if (!j) continue;
    const JointProperties& p = j->properties();
    if (o_.joint_friction && p.friction > 0) frictions_.push_back({i, t.constraint, p.friction});
    if (!o_.joint_limits || !p.limited) continue;
    // a reversed joint runs its coordinate backwards on the tree
    if (t.reversed)
      limits_.push_back({i, t.constraint, -p.upper, -p.lower});
    else
      limits_.push_back({i, t.constraint, p.lower, p.upper});
  }
}

SolveStatus MoreauStepper::step(double t, double h, Eigen::VectorXd& q, Eigen::VectorXd& u,
                                Data& d) {
  const TreeModel& tree = m_.tree();
  stats_ = MoreauStepStats{};
  // the first half of the step moves at u: rows that could close within it and that the
  // last step's predictive rows did not cover act first
  if (!covered(q, u, h)) {
    const SolveStatus st0 = first_half(t, q, u, h, d);
    if (st0 != SolveStatus::Ok) return st0;
  }
  // the midpoint of the positions
  qdot_.resize(tree.nq);
  tree_qdot(tree, q, u, qdot_);
  qm_ = q + 0.5 * h * qdot_;
  Eigen::VectorXd& qm = qm_;
  tree_normalize(tree, qm);
  // the free velocity, the bilateral rows held
  d.t = t + 0.5 * h;
  const SolveStatus st = free_velocity(qm, u, h, d);
  if (st != SolveStatus::Ok) return st;
  gather(qm, d, false, step_margin(d, h), records_);
  if (too_deep(records_, "", d) || too_fast(d, h)) return d.diagnostics.status;
  if (!rows_.empty()) {
    match_previous(d);
    tree_delassus(m_, d, rows_, G_, R_, &first_, &support_, &Gis_, &diag0_, &dscratch_);
    mark_fixed();
    row_velocities(m_, d, rows_, ustar_, gfree_, &dscratch_);
    row_velocities(m_, d, rows_, u, v0_, &dscratch_);
    const SolveStatus st1 = rest_accelerations(qm, d);
    if (st1 != SolveStatus::Ok) return st1;
    ContactSolverResult res = solve_rows(h, true);
    if (spinning_) {
      const SolveStatus st2 = midpoint(qm, u, h, d, res);
      if (st2 != SolveStatus::Ok) return st2;
    }
    stats_.rows = static_cast<int>(g_.size());
    stats_.iterations = res.iterations;
    stats_.residual = res.residual;
    stats_.converged = res.converged;
    keep_kinetic_energy(qm, h, d);
    add_response(R_, support_, lambda_, ustar_);
    // the rows' velocities after the step (G by island)
    Eigen::VectorXd& v = v_;
    v = gfree_;
    for (size_t i = 0; i < islands_.size(); ++i)
      Gis_[i].add_product(lambda_.segment(islands_[i].row0, islands_[i].rows),
                          v.segment(islands_[i].row0, islands_[i].rows));
    // a row the bodies cannot move that the imposed motion closes: no force can act
    if (const int k = violated_fixed_row(v); k >= 0) {
      d.diagnostics.status = SolveStatus::Inconsistent;
      d.diagnostics.message = fixed_row_message(records_[k], t);
      return d.diagnostics.status;
    }
    keep_records(v);
  } else {
    warm_.clear();
    if (spinning_) {
      ContactSolverResult none;
      const SolveStatus st2 = midpoint(qm, u, h, d, none);
      if (st2 != SolveStatus::Ok) return st2;
    }
  }
  u = ustar_;
  second_half(qm, u, h, q);
  project(q, u, t + h, d);
  if (d.diagnostics.status != SolveStatus::Ok) return d.diagnostics.status;
  if (too_deep(scratch_, " after the step's projection", d)) return d.diagnostics.status;
  // what the next step's first half may move without rows of its own (first_half)
  last_q_ = q;
  last_u_ = u;
  end_closing_ = closing_speed(d);
  return SolveStatus::Ok;
}

void MoreauStepper::keep_records(const Eigen::VectorXd& v) {
  warm_next_.clear();
  for (size_t k = 0; k < blocks_.size(); ++k) {
    const ContactBlock& b = blocks_[k];
    ContactSample& r = records_[k];
    stats_.impacts += r.impact;
    r.impulse.head(b.size()) = lambda_.segment(b.row, b.size());
    r.velocity.head(b.size()) = v.segment(b.row, b.size());
    const double scale = std::max(1.0, std::abs(v0_(b.row)));
    if (r.joint_friction)
      r.state = std::abs(r.velocity(0)) > 1e3 * o_.solver.tolerance * scale
                    ? ContactSample::State::Slip
                    : ContactSample::State::Stick;
    else if (!(r.impulse(0) > 0))
      r.state = ContactSample::State::Open;
    else if (b.size() == 3 && r.velocity.tail<2>().norm() > 1e3 * o_.solver.tolerance * scale)
      r.state = ContactSample::State::Slip;
    else
      r.state = ContactSample::State::Stick;
    warm_next_.push_back({key_of(r), r.impulse, at_[k], r.impulse(0) > 0 && !r.joint_friction});
  }
  // sorted for lookups by key (std::sort: no buffer; the vectors keep their storage)
  std::sort(warm_next_.begin(), warm_next_.end(),
            [](const Previous& a, const Previous& b) { return a.key < b.key; });
  warm_.swap(warm_next_);
}

void MoreauStepper::second_half(const Eigen::VectorXd& qm, const Eigen::VectorXd& u, double h,
                                Eigen::VectorXd& q) {
  // the second half of the positions, at the new velocity; an impulse at τ moves the end
  // position by (h − τ) Δu, where the midpoint form moves it by h/2 Δu: the rest,
  // (h/2 − τ) R J_iᵀ λ_i over the located impulses (solve_rows, lcorr_), at N(q_m)
  const TreeModel& tree = m_.tree();
  ucorr_ = u;
  if (!rows_.empty() && lcorr_.size() == lambda_.size() && lcorr_.lpNorm<Eigen::Infinity>() > 0) {
    lcorr_ *= 2.0 / h;
    add_response(R_, support_, lcorr_, ucorr_);
  }
  tree_qdot(tree, qm, ucorr_, qdot_);
  q = qm + 0.5 * h * qdot_;
  tree_normalize(tree, q);
}

bool MoreauStepper::covered(const Eigen::VectorXd& q, const Eigen::VectorXd& u, double h) const {
  // the last step's rows within margin_ of q_m keep their gaps ≥ 0 at the next midpoint
  // q_m + h u⁺; the pairs farther apart close by at most h × the closing speed at u⁺
  // q as the last step left it, up to the run's own normalization of its quaternions
  // (Simulation::accept normalizes them again: an ulp's change, a third of the steps)
  if (last_u_.size() != u.size() || last_q_.size() != q.size() || u != last_u_) return false;
  const double moved = (q - last_q_).lpNorm<Eigen::Infinity>();
  return moved <= 8 * std::numeric_limits<double>::epsilon() * (1 + q.lpNorm<Eigen::Infinity>()) &&
         h * end_closing_ <= margin_;
}

SolveStatus MoreauStepper::first_half(double t, const Eigen::VectorXd& q, Eigen::VectorXd& u,
                                      double h, Data& d) {
  // the rows at q within what the first half could close (twice it), the law
  // u_n' + g / (h/2) ≥ 0 on the open ones: an open row that would close within the first
  // half lands on it (u' = u + R J_nᵀ λ, the least change of u in the mass metric: no
  // energy is added); a closed row keeps its approach, min(u_n, 0), for the step's own
  // Newton law
  d.t = t;
  stats_.first_half = true;
  const SolveStatus st = rates(q, u, d);
  if (st != SolveStatus::Ok) return st;
  const double reach = h * closing_speed(d);
  if (!(reach > o_.closed_gap)) return SolveStatus::Ok;
  gather(q, d, true, std::isfinite(reach) ? reach : o_.closed_gap, scratch_);
  if (too_deep(scratch_, "", d)) return d.diagnostics.status;
  if (rows_.empty()) return SolveStatus::Ok;
  tree_delassus(m_, d, rows_, G_, R_, &first_, &support_, &Gis_, &diag0_, &dscratch_);
  mark_fixed();
  row_velocities(m_, d, rows_, u, gfree_, &dscratch_);
  Eigen::VectorXd &g = half_g_, &mu = half_mu_;
  g = gfree_;
  mu.setZero(gfree_.size());
  for (size_t k = 0; k < blocks_.size(); ++k) {
    const int row = blocks_[k].row;
    const double gap = scratch_[k].point.gap;
    g(row) = gap > o_.closed_gap ? gfree_(row) + gap / (0.5 * h)
                                 : gfree_(row) - std::min(gfree_(row), 0.0);
  }
  const ContactSolverResult res = solve_islands(g, mu, o_.solver, nullptr, true);
  if (!(mu.lpNorm<Eigen::Infinity>() > 0)) return SolveStatus::Ok;
  add_response(R_, support_, mu, u);
  stats_.early_impulses = true;
  stats_.iterations = std::max(stats_.iterations, res.iterations);
  stats_.residual = std::max(stats_.residual, res.residual);
  stats_.converged = stats_.converged && res.converged;
  return SolveStatus::Ok;
}

SolveStatus MoreauStepper::rates(const Eigen::VectorXd& q, const Eigen::VectorXd& u, Data& d,
                                 const Eigen::VectorXd* u_forces) {
  support_.factors.fresh = false;  // a factor of the free velocity's M is not this q's
  SolveStatus st = u_forces ? recursive_rates(m_, d, q, u, *u_forces, o_.stabilization)
                            : recursive_rates(m_, d, q, u, o_.stabilization);
  if (st == SolveStatus::Inconsistent) {  // provisional: confirmed on every row
    solve_recursive(m_, d);
    st = d.diagnostics.status;
  }
  return st;
}

SolveStatus MoreauStepper::free_velocity(const Eigen::VectorXd& qm, const Eigen::VectorXd& u,
                                         double h, Data& d) {
  // the explicit value u + h u̇(q_m, u): the start of midpoint()'s passes, and the answer
  // when nothing turns (the velocity products and ω × J ω vanish)
  if (joint_space_route_ < 0) {
    const auto& joints = m_.tree().joints;
    joint_space_route_ =
        joint_space_applies(m_, d) && m_.tree().nu > 0 &&
        std::any_of(joints.begin(), joints.end(), [](const TreeJoint& t) { return t.parent >= 0; });
  }
  joint_space_step_ = false;
  SolveStatus st = SolveStatus::Ok;
  if (joint_space_route_) {
    support_.factors.fresh = false;
    recursive_terms(m_, d, qm, u);
    joint_space_step_ = joint_space_rates(d);
    if (!joint_space_step_) st = recursive_passes(m_, d, o_.stabilization);  // M not definite
    if (joint_space_step_ && !joint_accelerations(m_, d).allFinite()) {
      d.diagnostics.status = SolveStatus::NotFinite;
      d.diagnostics.message = "accelerations are not finite";
    }
    st = d.diagnostics.status;
  } else {
    st = rates(qm, u, d);
  }
  if (st != SolveStatus::Ok) return st;
  // the applied forces at (q_m, u), which the midpoint passes keep (midpoint())
  kept_applied_ = d.applied;
  kept_F_ = d.F;
  kept_tau_ = joint_space_forces(m_, d);
  udot_ = joint_accelerations(m_, d);
  ustar_ = u + h * udot_;
  double spin = 0.0;
  for (int b = 0; b < m_.nbody(); ++b)
    if (!steady_spin_[b]) spin = std::max(spin, d.body[b].w.norm());
  spinning_ = o_.midpoint_passes > 0 && h * spin > o_.midpoint_spin;
  midpoint_scale_ = (ustar_ - u).lpNorm<Eigen::Infinity>() + 1e-15 * u.lpNorm<Eigen::Infinity>();
  return st;
}

bool MoreauStepper::joint_space_rates(Data& d) {
  // M u̇ = −b at the kinematics and forces on d: M and its factor kept for tree_delassus
  RecursiveWorkspace& ws = recursive_workspace(m_, d);
  if (!joint_space_factor(m_, d, ws, dscratch_.joint_space, support_.factors)) return false;
  joint_space_bias(m_, d, bias_);
  bias_ = -bias_;
  solve_joint_space(support_.factors, bias_);
  ws.udot = bias_;
  return true;
}

SolveStatus MoreauStepper::joint_space_rates_new_velocity(const Eigen::VectorXd& qm,
                                                          const Eigen::VectorXd& ubar, Data& d) {
  RecursiveWorkspace& ws = recursive_workspace(m_, d);
  velocities_BaseToTip(m_, m_.tree(), qm, ubar, d, ws);
  joint_space_bias(m_, d, bias_);
  bias_ = -bias_;
  solve_joint_space(support_.factors, bias_);
  ws.udot = bias_;
  if (!bias_.allFinite()) {
    d.diagnostics.status = SolveStatus::NotFinite;
    d.diagnostics.message = "accelerations are not finite";
  }
  return d.diagnostics.status;
}

SolveStatus MoreauStepper::midpoint(const Eigen::VectorXd& qm, const Eigen::VectorXd& u, double h,
                                    Data& d, ContactSolverResult& res) {
  // the implicit midpoint u* = u + h u̇(q_m, ū), ū = (u + u⁺)/2, u⁺ = u* + R Jᵀ λ(u*) the
  // velocity after the step (u* itself without rows), by fixed-point passes, each
  // contracting by about h |ω| / 2.  The energy-neutral inertial terms at ū do no work
  // over the step (ω̄ · (ω̄ × J ω̄) = 0), where at u they add ½ h² ‖J⁻¹ ω × J ω‖²_J each
  // step.  ū has the impulses in it: a body at rest on the ground (u = u⁺ = 0) stays at
  // rest, and an impact on a spinning body changes no gyroscopic work.  The applied
  // forces stay at u (explicit, as the scheme always took them: a servo's damping at ū
  // would leave its stiff modes ringing, at u it damps them).  G and R Jᵀ do not change
  // at q_m: a pass costs one recursion and one warm-started solve of the rows.  Nor do the
  // poses and articulated inertias: on a tree without extra rows a pass runs the velocity
  // terms alone (recursive_rates_new_velocity), the rest kept from free_velocity()'s, or
  // rest_accelerations()'s, recursion at q_m.
  const bool rows = !rows_.empty();
  const bool velocity_only = m_.tree().nrows_extra == 0;
  double last = std::numeric_limits<double>::infinity();
  for (int pass = 0; pass < o_.midpoint_passes; ++pass) {
    uplus_ = ustar_;
    if (rows) add_response(R_, support_, lambda_, uplus_);
    ubar_ = 0.5 * (u + uplus_);
    // the recursion at ū with the forces of (q_m, u) put back: free_velocity()'s, which
    // rest_accelerations() may have replaced by those at rest
    d.applied = kept_applied_;
    d.F = kept_F_;
    recursive_workspace(m_, d).tau = kept_tau_;
    SolveStatus st = joint_space_step_ ? joint_space_rates_new_velocity(qm, ubar_, d)
                     : velocity_only
                         ? recursive_rates_new_velocity(m_, d, qm, ubar_)
                         : recursive_rates_kept_forces(m_, d, qm, ubar_, o_.stabilization);
    if (st == SolveStatus::Inconsistent) {  // provisional: confirmed on every row (rates())
      solve_recursive(m_, d);
      st = d.diagnostics.status;
    }
    if (st != SolveStatus::Ok) return st;
    unext_ = u + h * joint_accelerations(m_, d);
    const double change = (unext_ - ustar_).lpNorm<Eigen::Infinity>();
    ++stats_.midpoint_passes;
    // a pass that does not contract keeps the last value (and its impulses)
    if (!(change < last)) break;
    last = change;
    const bool settled = change <= o_.midpoint_tolerance * midpoint_scale_;
    // settled with rows: the last u* and its impulses, within the tolerance of the next
    if (rows && settled) break;
    ustar_ = unext_;
    if (rows) {
      row_velocities(m_, d, rows_, ustar_, gfree_, &dscratch_);
      const ContactSolverResult again = solve_rows(h, false);
      res.iterations = std::max(res.iterations, again.iterations);
      res.residual = std::max(res.residual, again.residual);
      res.converged = res.converged && again.converged;
    }
    if (settled) break;
  }
  udot_ = (ustar_ - u) / h;
  return SolveStatus::Ok;
}

double MoreauStepper::penetration(const Eigen::VectorXd& q, bool& deep) const {
  double lowest = 0.0;
  deep = false;
  for (const ContactPoint& p : points_) {
    if (!(p.gap < 0)) continue;
    lowest = std::min(lowest, p.gap);
    if (-p.gap > deepest_allowed(p)) deep = true;  // too_deep()'s test
  }
  for (const Limit& l : limits_) {
    const double x = q(m_.tree().joints[l.tree_joint].q_offset);
    lowest = std::min({lowest, x - l.lower, l.upper - x});
  }
  return -lowest;
}

void MoreauStepper::project(Eigen::VectorXd& q, const Eigen::VectorXd& u, double t, Data& d) {
  const TreeModel& tree = m_.tree();
  d.t = t;
  for (int pass = 0;; ++pass) {
    // the kinematics find the rows; the recursion's passes run only where they are projected
    // (a resting step: one recursion in three saved)
    kinematics_BaseToTip(m_, tree, q, u, d, recursive_workspace(m_, d));
    points_.clear();
    if (det_) det_->detect(m_, d, o_.closed_gap, points_);
    // most steps end with nothing to project: their rows are not formed
    bool deep = false;
    const double pen = penetration(q, deep);
    stats_.penetration = pen;
    if (!deep && (pen <= o_.projection_tolerance || pass == o_.projection_passes)) {
      scratch_.clear();
      return;
    }
    rows_of_points(q, d, true, o_.closed_gap, scratch_);
    if (pen <= o_.projection_tolerance || pass == o_.projection_passes) return;
    if (rates(q, u, d) != SolveStatus::Ok) return;
    tree_delassus(m_, d, rows_, G_, R_, &first_, &support_, &Gis_, &diag0_, &dscratch_);
    mark_fixed();
    Eigen::VectorXd& mu = half_mu_;
    mu.setZero(gaps_.size());
    ContactSolverOptions so = o_.solver;
    so.tolerance = 0.01 * o_.projection_tolerance;
    solve_islands(gaps_, mu, so, nullptr, true);
    Eigen::VectorXd& delta = delta_;
    delta.setZero(tree.nu);
    add_response(R_, support_, mu, delta);
    tree_qdot(tree, q, delta, qdot_);
    q += qdot_;
    tree_normalize(tree, q);
  }
}

}  // namespace appell
