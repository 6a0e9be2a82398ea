// The contact stepper's impulses (engine/contact/moreau.hpp): Newton's impact law at each
// row's located instant of contact, the step's first stage (its later stages, of a step with
// several impacts, are in moreau_stages.cpp), and the position correction that keeps the
// kinetic energy.
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/assembly/energy.hpp"
#include "engine/contact/moreau.hpp"
#include "engine/formulations/recursive.hpp"
#include "engine/model/tree.hpp"

namespace appell {

namespace {

// The first s in [0, span] at which a row's gap g + w s + ½ a s² (g > 0) reaches zero;
// false when it stays open (Numerical Recipes' stable roots of a quadratic, §5.6).
bool first_contact(double g, double w, double a, double span, double& s) {
  const double disc = w * w - 2.0 * a * g;
  if (!(disc >= 0)) return false;
  const double q = -(w + std::copysign(std::sqrt(disc), w));
  s = std::numeric_limits<double>::infinity();
  if (a != 0) {
    const double r = q / a;
    if (r >= 0) s = std::min(s, r);
  }
  if (q != 0) {
    const double r = 2.0 * g / q;
    if (r >= 0) s = std::min(s, r);
  }
  if (!(s <= span)) return false;
  return true;
}

}  // namespace

bool MoreauStepper::leave_free(size_t k, double h) const {
  // an open row the stage's motion does not close may still close within the next step's
  // first half: the next step's rows (at its midpoint) then see it overlap, by up to its
  // approach over half a step.  Where that would be deep for the pair's thinner shape (a
  // fast body, a thin wall), it bounces now, at the step's end (τ = h: no position
  // change, Newton's law at its velocity then), short of the surface by its end gap.
  const ContactSample& r = records_[k];
  const int i = blocks_[k].row, nshapes = static_cast<int>(m_.shapes().size());
  const ContactPoint& p = r.point;
  double thin = std::numeric_limits<double>::infinity();
  if (p.shape_a >= 0 && p.shape_b >= 0 && p.shape_a < nshapes && p.shape_b < nshapes)
    thin = std::min(thickness(m_.shapes()[p.shape_a]), thickness(m_.shapes()[p.shape_b]));
  return !(gend_(i) + 0.5 * h * yend_(i) < -0.25 * thin);
}

void MoreauStepper::locate(size_t k, double h, double T, double& tau, double& v) const {
  // the row's motion from T (the last impulses on it) to the step's end, at its free
  // acceleration a: g(t) = g_end − y (h − t) + ½ a (h − t)², velocity y − a (h − t)
  const int i = blocks_[k].row;
  const double s = h - T, a = acc_(i);
  const double gT = gend_(i) - yend_(i) * s + 0.5 * a * s * s, wT = yend_(i) - a * s;
  double ds = 0.0;
  if (gT <= o_.closed_gap || !first_contact(gT, wT, a, s, ds)) ds = 0.0;
  tau = T + ds;
  v = wT + a * ds;
}

SolveStatus MoreauStepper::rest_accelerations(const Eigen::VectorXd& qm, Data& d) {
  // the rows' accelerations at q_m from the forces that do not depend on the motion
  // (gravity, springs, servos' position terms, through the bilateral rows): the recursion at
  // u = 0.  Only where a contact with restitution may meet (located impacts, impact_law).
  bool any = false;
  for (size_t k = 0; k < records_.size(); ++k) {
    const ContactSample& r = records_[k];
    any = any || (r.joint < 0 && !r.joint_friction && r.point.restitution > 0 && !landed(k));
  }
  if (!any) return SolveStatus::Ok;
  uzero_.setZero(m_.tree().nu);
  const SolveStatus st = rates(qm, uzero_, d);
  if (st != SolveStatus::Ok) return st;
  row_velocities(m_, d, rows_, joint_accelerations(m_, d), arest_, &dscratch_);
  return SolveStatus::Ok;
}

void MoreauStepper::impact_law(size_t k, double h, double tau, int stage) {
  // Newton's law at the instant τ of contact, free flight after it:
  //   u_n⁺ ≥ −e v_τ + a (h − τ)                                               (L1)
  // and the impulse's position error undone, (h − τ) Δu where the scheme moves h/2 Δu
  // (step(), lcorr_).  In the step's own solve a is the row's acceleration at rest,
  // a_r (rest_accelerations), and v_τ = v₀ + a_r τ: the impulse then does the work
  // λ a_r (h/2 − τ) in the midpoint rule's energy balance (ū_n = a_r (h/2 − τ) for e = 1)
  // and the position correction the opposite, −λ a_r (h/2 − τ), through the potential:
  // an elastic impact keeps the energy also on a spinning body, whose row's free
  // acceleration has gyroscopic and centripetal parts (they still locate τ).  For a ball
  // a_r = a.  A row that would come back within the step (L1's right side ≤ 0) does not
  // separate: it lands (stage 1: the plain law of an open row, u_n⁺ + g/h ≥ 0, or
  // u_n⁺ ≥ 0 on a closed one; later stages: u_n⁺ ≥ 0 at τ).
  const ContactSample& r = records_[k];
  const int i = blocks_[k].row;
  const double e = r.joint < 0 ? r.point.restitution : 0.0;
  const double a = stage == 0 && arest_.size() == acc_.size() ? arest_(i) : acc_(i);
  // the approach velocity at τ: from the step's start (stage 1) or back from the last
  // stage's outcome
  const double v = stage == 0 ? v0_(i) + a * tau : yend_(i) - a * (h - tau);
  const double sep = -e * v + a * (h - tau);
  records_[k].impact = records_[k].impact || v < -1e-9;
  law_[k] = Law::Impact;
  if (sep > 0) {
    gs_(i) = yend_(i) - sep;
    when_(i) = tau;
  } else if (stage == 0) {
    gs_(i) = yend_(i) + std::max(r.point.gap, 0.0) / h;
  } else {
    gs_(i) = yend_(i);
    when_(i) = tau;
  }
}

ContactSolverResult MoreauStepper::solve_rows(double h, bool warm) {
  // Stage 1, the step's own problem: the normal law's shift, Newton's law on a closed
  // row's approach velocity, the gap on an open one; a row with e > 0 that the free
  // motion closes within the step (or that is closed and approaching at its start) gets
  // Newton's law at its instant of contact (impact_law); an open one with e > 0 that the
  // free motion does not close is left free in this stage.
  const int n = static_cast<int>(gfree_.size());
  const int nb = static_cast<int>(blocks_.size());
  g_ = gfree_;
  if (warm) lambda_.setZero(n);
  acc_ = (gfree_ - v0_) / h;
  yend_ = gfree_;
  gend_ = gfree_ * (0.5 * h);
  when_.setConstant(n, -1.0);  // −1: the impulse acts at the midpoint, as the scheme has it
  lcorr_.setZero(n);
  lloc_.setZero(n);
  w_.resize(n);
  gs_ = gfree_;
  law_.assign(nb, Law::Plain);
  taub_.assign(nb, 0.0);
  fixed0_.resize(nb);
  tisl_.assign(islands_.size(), 0.0);
  resolve_.assign(islands_.size(), 0);
  for (int k = 0; k < nb; ++k) first_stage_law(k, h, warm);
  impact_laws(h, 0);
  for (int k = 0; k < nb; ++k) {
    const ContactBlock& b = blocks_[k];
    if (law_[k] == Law::Free) {  // held at zero impulse (a fixed block), warm start too
      blocks_[k].fixed = true;
      lambda_.segment(b.row, b.size()).setZero();
    }
    if (law_[k] == Law::Impact) g_(b.row) = gs_(b.row);
  }
  ContactSolverResult res = solve_islands();
  // an open row without restitution (e = 0, a limit) that pushes closes within the step:
  // an impact, which the gap law lands exactly
  for (int k = 0; k < nb; ++k) {
    const ContactBlock& b = blocks_[k];
    ContactSample& r = records_[k];
    if (law_[k] != Law::Plain || r.joint_friction) continue;
    if (!(r.point.gap > o_.closed_gap && lambda_(b.row) > 0 && v0_(b.row) < -1e-9)) continue;
    if (landed(k)) continue;  // in contact already
    r.impact = true;
  }
  later_stages(h, res);
  for (int k = 0; k < nb; ++k) blocks_[k].fixed = fixed0_[k];
  return res;
}

void MoreauStepper::first_stage_law(int k, double h, bool warm) {
  const ContactBlock& b = blocks_[k];
  ContactSample& r = records_[k];
  fixed0_[k] = b.fixed;
  r.impact = false;
  gend_(b.row) += r.point.gap;
  const bool located =
      !r.joint_friction && r.joint < 0 && r.point.restitution > 0 && !b.fixed && !landed(k);
  double tau = 0.0, v = 0.0;
  if (located) locate(k, h, 0.0, tau, v);
  const double g0 = r.point.gap - 0.5 * h * v0_(b.row);  // the gap at the step's start
  if (r.joint_friction) {
    // no gap and no impact: the bound alone
  } else if (located && (g0 > o_.closed_gap || v0_(b.row) < -1e-9)) {
    if (g0 > o_.closed_gap && tau == 0.0 && leave_free(k, h)) {
      law_[k] = Law::Free;  // the free motion does not close it
    } else {
      law_[k] = Law::Impact;  // at τ (the step's end where it does not close: too deep)
      taub_[k] = g0 > o_.closed_gap && tau == 0.0 ? h : tau;
    }
  } else if (r.point.gap <= o_.closed_gap && v0_(b.row) < 0) {
    // a row that already pushed at the last step is in contact, not meeting
    r.impact = v0_(b.row) < -1e-9 && !landed(k);
    if (r.joint < 0) g_(b.row) += r.point.restitution * v0_(b.row);
  } else if (r.point.gap > o_.closed_gap || (r.point.gap > 0 && v0_(b.row) > 0)) {
    // (a closed row at rest, 0 < g ≤ closed_gap and u_n = 0, takes no shift: the gaps of
    // a resting face's corners carry the collision test's noise, ~1e-12 m, which g/h would
    // make into targets its redundant rows cannot all meet, and the solver would stall at
    // 1e-9 m/s; a separating one keeps it)
    g_(b.row) += r.point.gap / h;
  }
  if (warm && previous_[k] >= 0)
    lambda_.segment(b.row, b.size()) = warm_[previous_[k]].impulse.head(b.size());
}

void MoreauStepper::impact_laws(double h, int stage) {
  // Newton's law on the stage's impact rows at one instant per island, its earliest τ
  // (a row found later, as the step's end τ = h, keeps its own): the rows' shifts are then
  // J times one velocity, in the range of G, as the laws of a rigid motion must be (several
  // corners of a box meeting the ground at different τ, with Newton's law at each, ask a
  // motion no impulses give: the solver then stalls)
  for (size_t i = 0; i < islands_.size(); ++i) {
    if (stage > 0 && !resolve_[i]) continue;
    const Island& is = islands_[i];
    double first = std::numeric_limits<double>::infinity();
    for (int k = is.block0; k < is.block0 + is.blocks; ++k)
      if (law_[k] == Law::Impact && taub_[k] < h) first = std::min(first, taub_[k]);
    // with resting contacts in the island (rows closed that pushed at the last step: a
    // ball landing on a box on the ground) Newton's law stays on the start's velocity,
    // e u_n⁻, as on the resting rows, at the midpoint: their shifts e J u, and the located
    // ones, are not one velocity's
    bool resting = false;
    for (int k = is.block0; stage == 0 && k < is.block0 + is.blocks; ++k) {
      const ContactSample& r = records_[k];
      resting = resting || (law_[k] == Law::Plain && !r.joint_friction &&
                            r.point.gap <= o_.closed_gap && landed(k));
    }
    for (int k = is.block0; k < is.block0 + is.blocks; ++k) {
      if (law_[k] != Law::Impact) continue;
      if (!resting) {
        impact_law(k, h, taub_[k] < h ? first : h, stage);
        continue;
      }
      const int row = blocks_[k].row;
      records_[k].impact = true;
      gs_(row) = gfree_(row) + records_[k].point.restitution * std::min(v0_(row), 0.0);
    }
  }
}

void MoreauStepper::keep_kinetic_energy(const Eigen::VectorXd& qm, double h, Data& d) {
  // The position correction turns bodies about the impulses' change of ω, not about ω
  // itself as the midpoint form's half-steps do: with the velocities held that changes
  // the kinetic energy where M(q) depends on q (a spinning box, whose ω is in the world
  // frame, by ω · (δθ × L)).  The located impulses λ_loc are scaled by 1 + c so that
  // the kinetic energy at the corrected end position is the one at the uncorrected:
  //   KE(q_c, u⁺ + c R Jᵀ λ_loc) = KE(q⁺, u⁺),   to first order in c: ½ A c² + B c + δ = 0
  // with B = λ_locᵀ u_n⁺, A = λ_locᵀ G λ_loc, δ = KE(q_c, u⁺) − KE(q⁺, u⁺).  A ball, or a
  // body on one hinge (M constant), has δ = 0.
  if (!(lloc_.size() == lambda_.size() && lcorr_.lpNorm<Eigen::Infinity>() > 0)) return;
  const TreeModel& tree = m_.tree();
  uplus_ = ustar_;
  add_response(R_, support_, lambda_, uplus_);
  const auto kinetic = [&](const Eigen::VectorXd& uq) {
    tree_qdot(tree, qm, uq, qdot_);
    qend_ = qm + 0.5 * h * qdot_;
    tree_normalize(tree, qend_);
    tree_kinematics(m_, qend_, uplus_, d);
    return bodies_kinetic_energy(m_, d);  // the rotors' ½ a u⁺² is the same at either q
  };
  const double plain = kinetic(uplus_);
  ucorr_ = uplus_;
  w_ = lcorr_ * (2.0 / h);
  add_response(R_, support_, w_, ucorr_);
  const double delta = kinetic(ucorr_) - plain;
  double A = 0.0, B = 0.0;
  for (size_t i = 0; i < islands_.size(); ++i) {
    const Island& is = islands_[i];
    const auto l = lloc_.segment(is.row0, is.rows);
    if (!(l.lpNorm<Eigen::Infinity>() > 0)) continue;
    auto gl = w_.segment(is.row0, is.rows);  // scratch: G λ, then G λ_loc
    gl.setZero();
    Gis_[i].add_product(lambda_.segment(is.row0, is.rows), gl);
    B += l.dot(gfree_.segment(is.row0, is.rows) + gl);
    gl.setZero();
    Gis_[i].add_product(l, gl);
    A += l.dot(gl);
  }
  if (!(B > 0) || delta == 0) return;
  const double disc = B * B - 2.0 * A * delta;
  const double c = disc >= 0 ? -2.0 * delta / (B + std::sqrt(disc)) : -B / A;
  lambda_ += std::clamp(c, -0.5, 0.5) * lloc_;
}

}  // namespace appell
