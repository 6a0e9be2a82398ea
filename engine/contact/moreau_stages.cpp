// The later stages of a contact step with several impacts (engine/contact/moreau.hpp): the
// rows that the earlier stages' impulses close, Newton's law on them at their instants, and
// what each stage's impulses do to the rows' end-of-step velocities and gaps.
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/contact/moreau.hpp"

namespace appell {

namespace {

// res takes the worst of its own and another solve's iterations, residual and convergence
void combine(ContactSolverResult& res, const ContactSolverResult& more) {
  res.iterations = std::max(res.iterations, more.iterations);
  res.residual = std::max(res.residual, more.residual);
  res.converged = res.converged && more.converged;
}

}  // namespace

void MoreauStepper::later_stages(double h, ContactSolverResult& res) {
  // Later stages: the impulses of stage 1 may drive a row it left free closed (Newton's
  // cradle with gaps: ball 2, struck, meets ball 3).  Each stage starts from the last one's
  // outcome, at the time T of its impulses, and puts Newton's law on the rows it closes at
  // the approach velocity they have then; the others keep non-penetration
  // (u_n⁺ ≥ min(u_n, 0) on a closed one).  Impulses at different instants are separate
  // (each ≥ 0): a stage solves for its own, from zero.
  const int n = static_cast<int>(gfree_.size());
  const int nb = static_cast<int>(blocks_.size());
  mu_ = lambda_;
  stage_times(0);
  for (int stage = 1;; ++stage) {
    account(h);
    bool again = false;
    std::fill(resolve_.begin(), resolve_.end(), 0);
    for (size_t i = 0; i < islands_.size(); ++i) {
      const Island& is = islands_[i];
      for (int k = is.block0; k < is.block0 + is.blocks; ++k)
        if (law_[k] == Law::Free && gend_(blocks_[k].row) < -1e-3 * o_.closed_gap) resolve_[i] = 1;
      again = again || resolve_[i];
    }
    if (!again || stage > 2 * nb + 2) break;
    // the next stage's rows
    gs_ = yend_;
    for (size_t i = 0; i < islands_.size(); ++i) {
      if (!resolve_[i]) continue;
      const Island& is = islands_[i];
      for (int k = is.block0; k < is.block0 + is.blocks; ++k) later_stage_law(k, i, h);
    }
    impact_laws(h, stage);
    mu_.setZero(n);
    combine(res, solve_islands(gs_, mu_, o_.solver, &resolve_));
    lambda_ += mu_;
    stage_times(stage);
  }
}

void MoreauStepper::later_stage_law(int k, size_t i, double h) {
  ContactBlock& b = blocks_[k];
  const int row = b.row;
  law_[k] = Law::Plain;
  when_.segment(row, b.size()).setConstant(-1.0);
  b.fixed = fixed0_[k] || b.kind == ContactBlock::Kind::Bounded;  // no impulse there
  if (b.fixed) return;
  double tau = 0.0, v = 0.0;
  locate(k, h, tisl_[i], tau, v);
  const double s = h - tisl_[i];
  const double gT = gend_(row) - yend_(row) * s + 0.5 * acc_(row) * s * s;
  if (gT <= o_.closed_gap) {
    if (v < -1e-9 && !landed(k)) {
      law_[k] = Law::Impact;
      taub_[k] = tau;
    } else {
      gs_(row) = std::max(yend_(row), 0.0);  // u_n⁺ ≥ min(u_n, 0)
    }
  } else if (gend_(row) < 0) {
    law_[k] = Law::Impact;
    taub_[k] = tau;
  } else if (!leave_free(k, h)) {
    law_[k] = Law::Impact;
    taub_[k] = h;
  } else {
    law_[k] = Law::Free;
    b.fixed = true;
  }
}

void MoreauStepper::stage_times(int stage) {
  // the instant each of the stage's impulses acts at (when_): a row's own contact instant,
  // or for the rows that push with it in its island (a touching ball struck, a later
  // stage's) the island's earliest; a resting row's impulse stays at the midpoint
  for (size_t i = 0; i < islands_.size(); ++i) {
    if (stage > 0 && !resolve_[i]) continue;
    const Island& is = islands_[i];
    double first = std::numeric_limits<double>::infinity();
    for (int k = is.block0; k < is.block0 + is.blocks; ++k)
      if (law_[k] == Law::Impact && when_(blocks_[k].row) >= 0)
        first = std::min(first, when_(blocks_[k].row));
    if (!std::isfinite(first)) continue;
    for (int k = is.block0; k < is.block0 + is.blocks; ++k) {
      const ContactBlock& b = blocks_[k];
      const double tau = when_(b.row);
      if (law_[k] == Law::Impact) {
        if (tau >= 0) when_.segment(b.row, b.size()).setConstant(tau);  // not a landing
      } else if (mu_(b.row) != 0 && b.kind != ContactBlock::Kind::Bounded &&
                 (stage > 0 || !landed(k))) {
        when_.segment(b.row, b.size()).setConstant(first);
      }
    }
  }
}

void MoreauStepper::account(double h) {
  // the stage's impulses mu_ at their instants: the end-of-step row velocities and gaps,
  // the position correction, and each island's time
  for (size_t i = 0; i < islands_.size(); ++i) {
    const Island& is = islands_[i];
    auto mu = mu_.segment(is.row0, is.rows);
    if (!(mu.lpNorm<Eigen::Infinity>() > 0)) continue;
    auto when = when_.segment(is.row0, is.rows);
    auto w = w_.segment(is.row0, is.rows);
    bool located = false;
    for (int j = 0; j < is.rows; ++j) {
      const double t = when(j) >= 0 ? when(j) : 0.5 * h;
      w(j) = (h - t) * mu(j);
      lcorr_(is.row0 + j) += (0.5 * h - t) * mu(j);
      if (when(j) >= 0) lloc_(is.row0 + j) += mu(j);
      if (when(j) >= 0 && mu(j) != 0) tisl_[i] = std::max(tisl_[i], when(j));
      located = located || when(j) >= 0;
    }
    if (located) {
      Gis_[i].add_product(mu, yend_.segment(is.row0, is.rows));
      Gis_[i].add_product(w, gend_.segment(is.row0, is.rows));
      continue;
    }
    // every impulse at the midpoint (w = h/2 μ): one product for both
    if (gmu_.size() != mu_.size()) gmu_.resize(mu_.size());
    auto gmu = gmu_.segment(is.row0, is.rows);
    gmu.setZero();
    Gis_[i].add_product(mu, gmu);
    yend_.segment(is.row0, is.rows) += gmu;
    gend_.segment(is.row0, is.rows) += (0.5 * h) * gmu;
  }
}

}  // namespace appell
