// ADMM on the cone complementarity of the contact problem (engine/contact/ncp.hpp), with the
// De Saxcé correction held fixed in each x-update (Carpentier, Le Lidec, Montaut et al., RSS
// 2024, Alg. 1), its penalty balanced and floored, and semismooth Newton polish steps where
// its linear rate is slow.
#include <algorithm>

#include "engine/contact/ncp.hpp"
#include "engine/contact/ncp_steps.hpp"

namespace appell::ncp_detail {

namespace {

// One ADMM solve from the warm start in the workspace: its iterates in w, its penalty ρ and
// the residuals that judge its progress here
template <class Matrix, class Factor>
class AdmmSolve {
 public:
  AdmmSolve(const Matrix& G, const Eigen::VectorXd& g, const std::vector<ContactBlock>& blocks,
            const ContactSolverOptions& options, ContactWorkspace& w, ContactSolverResult& res)
      : G_(G), g_(g), blocks_(blocks), options_(options), w_(w), res_(res), factor_{G, w} {}
  void run();

 private:
  void start_penalty();
  bool polish(int steps);
  void iterate();
  void restart(int it);
  void balance(int it);
  void finish(bool polished);

  const Matrix& G_;
  const Eigen::VectorXd& g_;
  const std::vector<ContactBlock>& blocks_;
  const ContactSolverOptions& options_;
  ContactWorkspace& w_;
  ContactSolverResult& res_;
  Factor factor_;
  double gmax_ = 0.0, rho_ = 0.0;  // G's largest diagonal entry, the penalty
  double start_ = 0.0, admm_best_ = 0.0, best_ = 0.0, rho_min_ = 0.0, stall_mark_ = 0.0;
  int floor_until_ = 0;  // the floor holds for kFloorSpan iterations after a restart
};

// ρ at the start: G's mean diagonal, or the last solve's final penalty on a large island's
// warm start near the answer
template <class Matrix, class Factor>
void AdmmSolve<Matrix, Factor>::start_penalty() {
  const Eigen::Index m = g_.size();
  const auto& diag = diagonal_of(G_);
  // the scale of G: the penalty starts at its mean diagonal, the balancing compares
  // impulse-sized residuals in velocity units through it
  double trace = 0.0;
  for (Eigen::Index k = 0; k < m; ++k) {
    gmax_ = std::max(gmax_, static_cast<double>(diag(k)));
    trace += diag(k);
  }
  gmax_ = std::max(gmax_, 1e-300);
  rho_ = std::max(trace / static_cast<double>(m), 1e-12 * gmax_);
  // On a large island, a warm start this near the answer (within kNear tolerances: a
  // resting or steadily sliding island, its problem the last step's a little changed)
  // starts from the last solve's final penalty, where the balancing took it from the mean
  // diagonal by a factor of 4 every 8 iterations (a stack of twenty boxes: to 1/16,000 of
  // it in 56).  Not after an impact: the problem is new, and from another penalty ADMM may
  // reach another of its solutions (a rimless wheel's double support: both feet held, the
  // wheel stopped).  Not on a small island, whose last penalty was no better a start than
  // the mean diagonal (the quadruped standing: 21 iterations a solve from it, 14 without)
  if (m >= kSmallIsland && w_.rho > 0 && w_.rho_size == m &&
      res_.residual <= kNear * options_.tolerance)
    rho_ = std::clamp(w_.rho, 1e-8 * gmax_, 1e8 * gmax_);
}

template <class Matrix, class Factor>
void AdmmSolve<Matrix, Factor>::run() {
  const Eigen::Index m = g_.size();
  start_penalty();
  factor_.prepare();
  factor_.factor(rho_);
  // the best iterate so far, and the penalty's floor: with G singular (a link on one hinge
  // gives a contact's three rows rank 1) the De Saxcé correction, held fixed in each
  // x-update, is fed back through G's null space amplified by 1/ρ; below some ρ the
  // iteration diverges (impulses of 1e17 on a hinged arm landing on a floor).  A residual
  // grown a thousandfold over the best and past the starting one restarts from the best
  // iterate with ρ four times the one that diverged, and ρ does not go below that again
  // (on a large island: for the next kFloorSpan iterations).
  w_.z_admm = w_.z;
  w_.z_best = w_.z;
  start_ = admm_best_ = best_ = stall_mark_ = res_.residual;
  bool polished = false;
  for (int it = 1; it <= options_.max_iterations; ++it) {
    // stalled: ADMM's best not halved over the last kStall iterations, or on a small
    // island (Newton's steps cheap) the last kSmallStall: ADMM's linear rate on an
    // ill-conditioned G (a light hub on long spokes: G's eigenvalues 0.28 to 501) would
    // take thousands
    if (it % (m <= kSmallIsland ? kSmallStall : kStall) == 0) {
      if (!(admm_best_ < 0.5 * stall_mark_) && polish(kPolishSteps)) {
        polished = true;
        res_.converged = true;
        break;
      }
      stall_mark_ = admm_best_;
    }
    iterate();
    res_.iterations = it;
    res_.residual = residual_at(blocks_, w_.gamma, w_.z, w_.u);
    if (res_.residual <= options_.tolerance) {
      res_.converged = true;
      break;
    }
    if (res_.residual < best_) {
      best_ = res_.residual;
      w_.z_best = w_.z;
    }
    if (res_.residual < admm_best_) {
      admm_best_ = res_.residual;
      w_.z_admm = w_.z;
    } else if (!(res_.residual <= std::max(1e3 * admm_best_, start_))) {
      restart(it);
      continue;
    }
    if (it % 8 == 0) balance(it);
  }
  finish(polished);
}

// semismooth Newton from the best point so far, where ADMM's linear rate is slow: its
// point is returned when it converges or is the best at the end; ADMM's own iterates and
// their restarts go on undisturbed
template <class Matrix, class Factor>
bool AdmmSolve<Matrix, Factor>::polish(int steps) {
  if (g_.size() > kDensePolish) return false;
  w_.zn = w_.z_best;
  const double rn = newton_polish(factor_.dense(), g_, blocks_, w_.gamma, w_.zn, options_.tolerance,
                                  steps, res_.newton_iterations, w_);
  if (rn < best_) {
    best_ = rn;
    w_.z_best = w_.zn;
  }
  return rn <= options_.tolerance;
}

// one iteration: x = (G + ρI)⁻¹ (ρz − y − g − s), z = Π(x + y/ρ), y += ρ (x − z), and the
// velocities and De Saxcé correction at the new z
template <class Matrix, class Factor>
void AdmmSolve<Matrix, Factor>::iterate() {
  Eigen::VectorXd &z = w_.z, &x = w_.x, &y = w_.y, &u = w_.u, &s = w_.s, &rhs = w_.rhs;
  rhs = rho_ * z - y - g_ - s;
  factor_.solve(rhs, x);
  w_.z_prev = z;
  z = x + y / rho_;
  project(blocks_, z);
  y += rho_ * (x - z);
  velocities(G_, z, g_, u);
  de_saxce(blocks_, u, s);
}

// diverged at iteration `it`: back to ADMM's best iterate, ρ four times larger and its floor
template <class Matrix, class Factor>
void AdmmSolve<Matrix, Factor>::restart(int it) {
  const Eigen::Index m = g_.size();
  w_.z = w_.z_admm;
  velocities(G_, w_.z, g_, w_.u);
  de_saxce(blocks_, w_.u, w_.s);
  w_.y = -(w_.u + w_.s);
  rho_min_ = rho_ = 4.0 * rho_;
  // for good on a small island (a hinged link's rank-1 rows diverge again below it),
  // for kFloorSpan iterations on a large one
  floor_until_ = m <= kSmallIsland ? options_.max_iterations : it + kFloorSpan;
  factor_.factor(rho_);
}

// balance the primal (x − z, impulses) and dual (ρ Δz, velocities) residuals
template <class Matrix, class Factor>
void AdmmSolve<Matrix, Factor>::balance(int it) {
  const double primal = gmax_ * (w_.x - w_.z).template lpNorm<Eigen::Infinity>();
  const double dual = rho_ * (w_.z - w_.z_prev).template lpNorm<Eigen::Infinity>();
  if (primal > 10.0 * dual && rho_ < 1e8 * gmax_) {
    rho_ *= 4.0;
    factor_.factor(rho_);
  } else if (dual > 10.0 * primal && rho_ > 1e-8 * gmax_ &&
             (it > floor_until_ || rho_ >= 4.0 * rho_min_)) {
    rho_ /= 4.0;
    factor_.factor(rho_);
  }
}

// the last polish where ADMM did not converge, the impulses returned into w.z (the polished
// point, or the best one, not the last), their residual, and the final penalty for the next
// solve
template <class Matrix, class Factor>
void AdmmSolve<Matrix, Factor>::finish(bool polished) {
  if (!res_.converged && polish(4 * kPolishSteps)) {
    polished = true;
    res_.converged = true;
  }
  Eigen::VectorXd& z = w_.z;
  if (polished)
    z = w_.zn;
  else if (!res_.converged)
    z = w_.z_best;  // the best point, not the last
  if (!res_.converged || polished) {
    velocities(G_, z, g_, w_.u);
    res_.residual = residual_at(blocks_, w_.gamma, z, w_.u);
  }
  w_.rho = rho_;
  w_.rho_size = g_.size();
}

}  // namespace

template <class Matrix, class Factor>
void admm(const Matrix& G, const Eigen::VectorXd& g, const std::vector<ContactBlock>& blocks,
          const ContactSolverOptions& options, ContactWorkspace& w, ContactSolverResult& res) {
  AdmmSolve<Matrix, Factor>(G, g, blocks, options, w, res).run();
}

template void admm<Eigen::MatrixXd, DenseFactor>(const Eigen::MatrixXd&, const Eigen::VectorXd&,
                                                 const std::vector<ContactBlock>&,
                                                 const ContactSolverOptions&, ContactWorkspace&,
                                                 ContactSolverResult&);
template void admm<Eigen::SparseMatrix<double>, SparseFactor>(
    const Eigen::SparseMatrix<double>&, const Eigen::VectorXd&, const std::vector<ContactBlock>&,
    const ContactSolverOptions&, ContactWorkspace&, ContactSolverResult&);
template void admm<LowRankDelassus, LowRankFactor>(const LowRankDelassus&, const Eigen::VectorXd&,
                                                   const std::vector<ContactBlock>&,
                                                   const ContactSolverOptions&, ContactWorkspace&,
                                                   ContactSolverResult&);

}  // namespace appell::ncp_detail
