// The contact problem at velocity level (engine/contact/ncp.hpp): the entry points, the warm
// start and the shortcuts from it (Gauss–Seidel sweeps, chord and Newton steps) before ADMM
// (ncp_admm.cpp).
#include "engine/contact/ncp.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "engine/contact/ncp_steps.hpp"

namespace appell {

namespace ncp_detail {

namespace {

// u += G_{:,[r, r+n)} δ: the velocities' change when block rows [r, r+n) change by δ
void add_columns(const Eigen::MatrixXd& G, int r, int n, const Eigen::Vector3d& delta,
                 Eigen::VectorXd& u) {
  for (int j = 0; j < n; ++j) u.noalias() += G.col(r + j) * delta(j);
}
void add_columns(const Eigen::SparseMatrix<double>& G, int r, int n, const Eigen::Vector3d& delta,
                 Eigen::VectorXd& u) {
  for (int j = 0; j < n; ++j)
    for (Eigen::SparseMatrix<double>::InnerIterator it(G, r + j); it; ++it)
      u(it.row()) += it.value() * delta(j);
}

// One projected Gauss–Seidel sweep (Jean & Moreau's nonsmooth Gauss–Seidel with the local
// problem solved by one projected step): block by block λ_b ← Π_b(λ_b − û_b/γ_b), u = G λ + g
// kept up to date after each block.  A sweep costs one product with G, where the first
// ADMM iteration needs the factor of G + ρI: from the last step's impulses, a resting
// problem is a few sweeps from its tolerance.
template <class Matrix>
void sweep(const Matrix& G, const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& gamma,
           Eigen::VectorXd& lambda, Eigen::VectorXd& u) {
  for (size_t k = 0; k < blocks.size(); ++k) {
    const ContactBlock& b = blocks[k];
    if (b.fixed) continue;
    const double gk = gamma(static_cast<Eigen::Index>(k));
    Eigen::Vector3d delta = Eigen::Vector3d::Zero();
    switch (b.kind) {
      case ContactBlock::Kind::Contact: {
        const int r = b.row;
        double n, t1, t2;
        contact_step(b, gk, lambda, u, n, t1, t2);
        delta = Eigen::Vector3d(n - lambda(r), t1 - lambda(r + 1), t2 - lambda(r + 2));
        break;
      }
      case ContactBlock::Kind::Unilateral:
        delta(0) = std::max(lambda(b.row) - u(b.row) / gk, 0.0) - lambda(b.row);
        break;
      case ContactBlock::Kind::Bounded:
        delta(0) = std::clamp(lambda(b.row) - u(b.row) / gk, -b.bound, b.bound) - lambda(b.row);
        break;
    }
    lambda.segment(b.row, b.size()) += delta.head(b.size());
    add_columns(G, b.row, b.size(), delta, u);
  }
}

// whether every block's own rows are independent: its diagonal block of G definite to
// kDefinite (a free body's corner, a robot's foot; not a link on one hinge, whose contact's
// three rows the one rate moves with rank 1)
bool blocks_definite(const Eigen::MatrixXd& G, const std::vector<ContactBlock>& blocks) {
  for (const ContactBlock& b : blocks) {
    if (b.fixed) return false;
    const int r = b.row;
    if (b.size() == 1) {
      if (!(G(r, r) > 0)) return false;
      continue;
    }
    const Eigen::Matrix3d B = G.block<3, 3>(r, r);
    // the pivots of B's Cholesky factor against its diagonal entries
    const double d0 = B(0, 0);
    if (!(d0 > 0)) return false;
    const double l10 = B(1, 0) / d0, l20 = B(2, 0) / d0;
    const double d1 = B(1, 1) - l10 * B(1, 0);
    if (!(d1 > kDefinite * B(1, 1))) return false;
    const double l21 = (B(2, 1) - l20 * B(1, 0)) / d1;
    const double d2 = B(2, 2) - l20 * B(2, 0) - l21 * l21 * d1;
    if (!(d2 > kDefinite * B(2, 2))) return false;
  }
  return true;
}

// The workspace's vectors sized for m rows (on a small island the Newton steps' storage
// too) and w.gamma, the blocks' scales
template <class Matrix>
void size_workspace(const Matrix& G, const std::vector<ContactBlock>& blocks, Eigen::Index m,
                    ContactWorkspace& w) {
  for (Eigen::VectorXd* v :
       {&w.x, &w.y, &w.u, &w.s, &w.z_prev, &w.rhs, &w.z_admm, &w.z_best, &w.zn})
    v->resize(m);
  if (m <= kSmallIsland) {  // where Newton steps are frequent: their storage too, at once
    for (Eigen::VectorXd* v : {&w.F, &w.trial, &w.step, &w.ut}) v->resize(m);
    w.J.resize(m, m);
    w.JtJ.resize(m, m);
    if (w.lm.rows() != m) size_factor(w.lm, m);
  }
  w.gamma.resize(static_cast<Eigen::Index>(blocks.size()));
  const auto& diag = diagonal_of(G);
  for (size_t k = 0; k < blocks.size(); ++k)
    w.gamma(static_cast<Eigen::Index>(k)) = block_scale(diag, blocks[k]);
}

// kFirstSteps Newton (or chord) steps from z on a dense G: true, with λ and the result
// set, where they reach the tolerance
bool converged_from_z(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                      const std::vector<ContactBlock>& blocks, bool chord, Eigen::VectorXd& lambda,
                      const ContactSolverOptions& options, ContactWorkspace& w,
                      ContactSolverResult& res) {
  w.zn = w.z;  // its storage is sized above (m ≤ kSmallIsland)
  const double rn = chord ? chord_polish(G, g, blocks, w.gamma, w.zn, options.tolerance,
                                         kFirstSteps, res.newton_iterations, w)
                          : newton_polish(G, g, blocks, w.gamma, w.zn, options.tolerance,
                                          kFirstSteps, res.newton_iterations, w);
  if (!(rn <= options.tolerance)) return false;
  lambda = w.zn;
  res.residual = rn;
  res.converged = true;
  return true;
}

// A warm start near the answer: up to kSweeps Gauss–Seidel sweeps from z, while each halves
// the residual: true, with λ and the result set, where they reach the tolerance; else w.u
// is z's velocities again
template <class Matrix>
bool converged_by_sweeps(const Matrix& G, const Eigen::VectorXd& g,
                         const std::vector<ContactBlock>& blocks, Eigen::VectorXd& lambda,
                         const ContactSolverOptions& options, ContactWorkspace& w,
                         ContactSolverResult& res) {
  Eigen::VectorXd &x = w.x, &u = w.u;
  x = w.z;
  double last = res.residual;
  for (int k = 0; k < kSweeps; ++k) {
    sweep(G, blocks, w.gamma, x, u);
    const double r = residual_at(blocks, w.gamma, x, u);
    ++res.sweeps;
    if (r <= options.tolerance) {
      lambda = x;
      res.residual = r;
      res.converged = true;
      return true;
    }
    if (!(r < 0.5 * last)) break;  // not converging fast: ADMM
    last = r;
  }
  velocities(G, w.z, g, u);
  return false;
}

// The shortcuts from the warm start before ADMM: chord steps on the last solve's factor,
// Gauss–Seidel sweeps, Newton steps on a small island; true, with λ and the result set,
// where one of them reaches the tolerance (`chorded`: chord steps were tried)
template <class Matrix>
bool converged_before_admm(const Matrix& G, const Eigen::VectorXd& g,
                           const std::vector<ContactBlock>& blocks, Eigen::VectorXd& lambda,
                           const ContactSolverOptions& options, ContactWorkspace& w,
                           ContactSolverResult& res, bool& chorded) {
  const Eigen::Index m = g.size();
  // the problem the last solve factored a Newton step of, with g moved: chord steps
  if constexpr (std::is_same_v<Matrix, Eigen::MatrixXd>) {
    if (m <= kSmallIsland && near_problem(G, blocks, w)) {
      chorded = true;
      if (converged_from_z(G, g, blocks, true, lambda, options, w, res)) return true;
      velocities(G, w.z, g, w.u);
    }
  }
  // a warm start near the answer: a few sweeps before any factor (not on a low-rank G,
  // whose factor is cheap and whose columns are not at hand)
  if constexpr (!std::is_same_v<Matrix, LowRankDelassus>) {
    if (converged_by_sweeps(G, g, blocks, lambda, options, w, res)) return true;
  }
  // Newton first on a small island (kNewtonFirst) where G is definite (the solution is
  // unique) or the warm start holds a solution's spread.  Where G is singular (a box's four
  // corners: twelve rows on six velocities; a robot's feet) the spread of the forces is
  // not determined: from zero, ADMM's proximal steps pick the natural one (a box landing
  // flat: a quarter of its weight a corner, no friction), where Newton's least-squares
  // steps leave self-balanced friction; from a warm start, both stay near it
  if constexpr (std::is_same_v<Matrix, Eigen::MatrixXd>) {
    if (m <= kNewtonFirst &&
        ((w.z.template lpNorm<Eigen::Infinity>() > 0 && blocks_definite(G, blocks)) ||
         small_cholesky(G, 0.0, w.small, kDefinite)) &&
        converged_from_z(G, g, blocks, false, lambda, options, w, res))
      return true;
  }
  return false;
}

// The problem solved from the warm start λ: its projection, the shortcuts from it, then ADMM
template <class Matrix, class Factor>
ContactSolverResult solve_problem(const Matrix& G, const Eigen::VectorXd& g,
                                  const std::vector<ContactBlock>& blocks, Eigen::VectorXd& lambda,
                                  const ContactSolverOptions& options, ContactWorkspace& w,
                                  bool& chorded) {
  const Eigen::Index m = g.size();
  ContactSolverResult res;
  if (lambda.size() != m || !lambda.allFinite()) lambda.setZero(m);
  if (m == 0) {
    res.converged = true;
    return res;
  }
  size_workspace(G, blocks, m, w);
  Eigen::VectorXd &z = w.z, &u = w.u, &s = w.s;
  z = lambda;
  project(blocks, z);
  velocities(G, z, g, u);
  de_saxce(blocks, u, s);
  w.y = -(u + s);  // the dual of a solution is −û: exact when the warm start is
  res.residual = residual_at(blocks, w.gamma, z, u);
  if (res.residual <= options.tolerance) {
    lambda = z;
    res.converged = true;
    return res;
  }
  if (converged_before_admm(G, g, blocks, lambda, options, w, res, chorded)) return res;
  admm<Matrix, Factor>(G, g, blocks, options, w, res);
  lambda = z;
  return res;
}

// solve_problem() and the chord factor's bookkeeping: kept for the next solve when this
// one's Newton steps formed it, or when this one used it (the same problem again)
template <class Matrix, class Factor>
ContactSolverResult solve(const Matrix& G, const Eigen::VectorXd& g,
                          const std::vector<ContactBlock>& blocks, Eigen::VectorXd& lambda,
                          const ContactSolverOptions& options, ContactWorkspace& w) {
  w.factored = false;
  bool chorded = false;
  const ContactSolverResult res =
      solve_problem<Matrix, Factor>(G, g, blocks, lambda, options, w, chorded);
  if constexpr (std::is_same_v<Matrix, Eigen::MatrixXd>) {
    if (w.factored)
      keep_chord(G, blocks, w);
    else if (!chorded)
      w.chord = false;
  } else {
    w.chord = false;
  }
  return res;
}

}  // namespace

}  // namespace ncp_detail

ContactSolverResult solve_contact_problem(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                                          const std::vector<ContactBlock>& blocks,
                                          Eigen::VectorXd& lambda,
                                          const ContactSolverOptions& options,
                                          ContactWorkspace* ws) {
  if (ws)
    return ncp_detail::solve<Eigen::MatrixXd, ncp_detail::DenseFactor>(G, g, blocks, lambda,
                                                                       options, *ws);
  ContactWorkspace local;  // (its sparse members allocate even empty)
  return ncp_detail::solve<Eigen::MatrixXd, ncp_detail::DenseFactor>(G, g, blocks, lambda, options,
                                                                     local);
}

ContactSolverResult solve_contact_problem(const LowRankDelassus& G, const Eigen::VectorXd& g,
                                          const std::vector<ContactBlock>& blocks,
                                          Eigen::VectorXd& lambda,
                                          const ContactSolverOptions& options,
                                          ContactWorkspace* ws) {
  if (ws)
    return ncp_detail::solve<LowRankDelassus, ncp_detail::LowRankFactor>(G, g, blocks, lambda,
                                                                         options, *ws);
  ContactWorkspace local;
  return ncp_detail::solve<LowRankDelassus, ncp_detail::LowRankFactor>(G, g, blocks, lambda,
                                                                       options, local);
}

ContactSolverResult solve_contact_problem(const Eigen::SparseMatrix<double>& G,
                                          const Eigen::VectorXd& g,
                                          const std::vector<ContactBlock>& blocks,
                                          Eigen::VectorXd& lambda,
                                          const ContactSolverOptions& options,
                                          ContactWorkspace* ws) {
  if (ws)
    return ncp_detail::solve<Eigen::SparseMatrix<double>, ncp_detail::SparseFactor>(
        G, g, blocks, lambda, options, *ws);
  ContactWorkspace local;
  return ncp_detail::solve<Eigen::SparseMatrix<double>, ncp_detail::SparseFactor>(
      G, g, blocks, lambda, options, local);
}

}  // namespace appell
