// Moreau–Jean time stepping with contacts and joint limits (engine/contact/moreau.hpp):
// the step (its first half, midpoint, impulses and end-of-step check).  The free velocity
// and its implicit midpoint are in moreau_velocity.cpp, the rows are gathered in
// moreau_rows.cpp, the impulses' laws in moreau_impacts.cpp and their later stages in
// moreau_stages.cpp, the checks in moreau_checks.cpp.
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
    const Joint* j = m.joint(t.constraint);
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
    steady_spin_[t.body] = t.frames.X_C.squaredNorm() == 0.0 &&
                           (b.inertia - mean * Mat3::Identity()).norm() <= 1e-12 * mean;
  }
  for (int i = 0; i < static_cast<int>(tree.joints.size()); ++i) {
    const TreeJoint& t = tree.joints[i];
    if (t.constraint < 0 || t.nq != 1 || t.nu != 1) continue;
    const Joint* j = m.joint(t.constraint);
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
