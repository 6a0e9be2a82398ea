// Semismooth Newton and chord steps on the natural map of the contact problem
// (engine/contact/ncp.hpp): the polish of ADMM's best iterate and the warm start's first steps.
#include <cmath>
#include <limits>

#include "engine/contact/ncp.hpp"
#include "engine/contact/ncp_steps.hpp"

namespace appell::ncp_detail {

namespace {

// The natural map of the law, F_b(λ) = λ_b − Π_b(λ_b − û_b/γ_b) per block (its norm times
// γ_b is the block's residual, residual_at()), and J, its generalized Jacobian (an element
// of Clarke's), for the semismooth Newton steps of newton_polish(); into w.F and w.J, at
// λ and u = G λ + g (the caller's: its line search formed it).
// Without `jacobian`, F alone (chord_polish(): J is the last step's).
void natural_map(const Eigen::MatrixXd& G, const std::vector<ContactBlock>& blocks,
                 const Eigen::VectorXd& gamma, const Eigen::VectorXd& lambda,
                 const Eigen::VectorXd& u, ContactWorkspace& w, bool jacobian = true) {
  const Eigen::Index m = u.size();
  Eigen::VectorXd& F = w.F;
  Eigen::MatrixXd& J = w.J;
  F.resize(m);
  if (jacobian) J.setIdentity(m, m);
  for (size_t k = 0; k < blocks.size(); ++k) {
    const ContactBlock& b = blocks[k];
    const int r = b.row;
    if (b.fixed) {  // λ = 0: F = λ, J = I
      F.segment(r, b.size()) = lambda.segment(r, b.size());
      continue;
    }
    const double gam = gamma(static_cast<Eigen::Index>(k));
    switch (b.kind) {
      case ContactBlock::Kind::Contact: {
        // û = u + μ‖u_t‖ e_n, dû/dλ = (I + μ e_n t̂ᵀ) G_rows (t̂ = u_t/‖u_t‖)
        const double ut = std::sqrt(u(r + 1) * u(r + 1) + u(r + 2) * u(r + 2));
        Eigen::Vector3d uh = u.segment<3>(r);
        uh(0) += b.mu * ut;
        const Eigen::Vector3d x = lambda.segment<3>(r) - uh / gam;
        F.segment<3>(r) = lambda.segment<3>(r) - project_cone(x, b.mu);
        if (!jacobian) break;
        // the projection's derivative at x                          (project_cone's cases)
        Eigen::Matrix3d P;
        const double n = x(0), s = std::sqrt(x(1) * x(1) + x(2) * x(2)), mu = b.mu;
        if (n >= 0 && s <= mu * n) {
          P.setIdentity();
        } else if (mu * s <= -n || s == 0) {
          P.setZero();
        } else {
          const double a = 1.0 / (1.0 + mu * mu), pn = a * (n + mu * s);
          const Eigen::Vector2d th = x.tail<2>() / s;
          P(0, 0) = a;
          P.block<1, 2>(0, 1) = a * mu * th.transpose();
          P.block<2, 1>(1, 0) = mu * a * th;
          P.block<2, 2>(1, 1) =
              mu * (a * mu * th * th.transpose() +
                    (pn / s) * (Eigen::Matrix2d::Identity() - th * th.transpose()));
        }
        // J_rows = I_rows − P (I_rows − dû/γ) = (I − P) on the block + P dû/γ
        const Eigen::Matrix3d Pg = P / gam;
        J.middleRows(r, 3).noalias() = Pg * G.middleRows(r, 3);
        if (ut > 0) {
          const Eigen::Vector3d c = Pg.col(0) * (b.mu / ut);
          for (Eigen::Index j = 0; j < m; ++j)
            J.block<3, 1>(r, j) += c * (u(r + 1) * G(r + 1, j) + u(r + 2) * G(r + 2, j));
        }
        J.block<3, 3>(r, r) += Eigen::Matrix3d::Identity() - P;
        break;
      }
      case ContactBlock::Kind::Unilateral:
      case ContactBlock::Kind::Bounded: {
        const double x = lambda(r) - u(r) / gam;
        const double lo = b.kind == ContactBlock::Kind::Unilateral ? 0.0 : -b.bound;
        const double hi = b.kind == ContactBlock::Kind::Unilateral
                              ? std::numeric_limits<double>::infinity()
                              : b.bound;
        F(r) = lambda(r) - std::clamp(x, lo, hi);
        if (jacobian && x > lo && x < hi) J.row(r) = G.row(r) / gam;  // I − (I − G/γ)
        break;
      }
    }
  }
}

// step = (JᵀJ + εI)⁻¹ JᵀF, ε = 1e-12 of JJᵀ's largest diagonal entry, formed as
// Jᵀ (JJᵀ + εI)⁻¹ F (the same step): a combination of J's rows, so that none of it lies
// in J's null space however ill-conditioned JJᵀ is (through JᵀJ, the rounding of its
// solve, amplified up to 1/ε, moved a singular island's spread of forces by 1e-6 a step).
// On a small island by JJᵀ's lower triangle and small_cholesky (Eigen's product and LLT of
// a 12 × 12 spend most of their time in their own set-up).  False when the factor fails or
// the step is not finite.
bool least_squares_step(ContactWorkspace& w, Eigen::VectorXd& step) {
  const Eigen::Index m = w.J.cols();
  Eigen::VectorXd& y = w.trial;  // (JJᵀ + εI)⁻¹ F (trial is free until the line search)
  y = w.F;
  if (m > kSmallIsland) {
    w.JtJ.noalias() = w.J * w.J.transpose();
    const double eps = 1e-12 * std::max(w.JtJ.diagonal().maxCoeff(), 1e-300);
    w.JtJ.diagonal().array() += eps;
    w.lm.compute(w.JtJ);
    w.lm.solveInPlace(y);
    if (w.lm.info() != Eigen::Success) return false;
  } else {
    w.JtJ.resize(m, m);
    const double* J = w.J.data();  // column-major: row i is J[i + m c]
    double top = 1e-300;
    for (Eigen::Index j = 0; j < m; ++j)
      for (Eigen::Index i = j; i < m; ++i) {
        double t = 0.0;
        for (Eigen::Index c = 0; c < m; ++c) t += J[i + m * c] * J[j + m * c];
        w.JtJ(i, j) = t;
        if (i == j) top = std::max(top, t);
      }
    if (!small_cholesky(w.JtJ, 1e-12 * top, w.lm_small)) return false;
    small_cholesky_solve(w.lm_small, y);
  }
  step.noalias() = w.J.transpose() * y;  // −δ
  return step.allFinite();
}

// Semismooth Newton on the natural map [Acary & Brogliato 2008, §13.3; Alart & Curnier
// 1991 for the frictional law], from λ, with a backtracking line search on the residual:
// quadratic near a solution where ADMM is linear.  J is singular where G is (a hinge's
// contact, redundant corners): the step solves (JᵀJ + εI) δ = −JᵀF (least_squares_step),
// the least-squares step of least norm to that precision (a Levenberg–Marquardt step;
// J. Nocedal & S. Wright, Numerical Optimization, §10.3), on the workspace's storage.  λ is changed
// only when the residual goes down; returns the residual at λ.
// With `chord`, chord steps instead (chord_polish(), below): the step from the kept J and
// factor, taken whole or not at all.
double polish_steps(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                    const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& gamma,
                    Eigen::VectorXd& lambda, double tolerance, int steps, int& iterations,
                    ContactWorkspace& w, bool chord) {
  Eigen::VectorXd &trial = w.trial, &step = w.step, &ut = w.ut;
  ut.noalias() = G * lambda;
  ut += g;
  double r = residual_at(blocks, gamma, lambda, ut);
  for (int k = 0; k < steps && r > tolerance; ++k) {
    // ut = G λ + g throughout: formed above, then by the line search at the λ it keeps
    if (chord) {
      natural_map(G, blocks, gamma, lambda, ut, w, false);
      trial = w.F;
      small_cholesky_solve(w.lm_small, trial);
      step.noalias() = w.J.transpose() * trial;
    } else {
      natural_map(G, blocks, gamma, lambda, ut, w);
      // J and JJᵀ's factor, for chord_polish(): a pair only once the factor is of this J
      w.factored = false;
      if (!least_squares_step(w, step)) break;
      w.factored = w.J.rows() <= kSmallIsland;
    }
    bool improved = false;
    for (double t = 1.0; t > (chord ? 0.75 : 1e-6); t *= 0.5) {
      trial = lambda - t * step;
      ut.noalias() = G * trial;
      ut += g;
      const double rt = residual_at(blocks, gamma, trial, ut);
      if (rt < r) {
        lambda = trial;
        r = rt;
        improved = true;
        break;
      }
    }
    ++iterations;
    if (!improved) break;
  }
  return r;
}

}  // namespace

double newton_polish(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                     const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& gamma,
                     Eigen::VectorXd& lambda, double tolerance, int steps, int& iterations,
                     ContactWorkspace& w) {
  return polish_steps(G, g, blocks, gamma, lambda, tolerance, steps, iterations, w, false);
}

// Chord steps: Newton's steps of newton_polish() on the Jacobian J and the factor of
// JJᵀ + εI that its last step formed, kept from the last solve of the same blocks and a G
// within kChordChange of this one: the midpoint passes solve the step's problem again
// with g moved by the pass (G the same), and a resting or slowly moving island's next
// step has G moved by its motion over a step (a standing robot: 1e-6 of G).  Where no
// block changes its case (sticking, sliding, open) the natural map is affine in λ on the
// open and one-row blocks and nearly so on the contacts, and a step or two reach the
// tolerance at a fifth of a Newton step's cost each (J not formed, JJᵀ not formed nor
// factored).  The kept J is only an approximation of this problem's: a step is kept only
// where it lowers the residual, and the solve goes on as without chord steps where they
// stop short of the tolerance.  Returns the residual at λ.
double chord_polish(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                    const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& gamma,
                    Eigen::VectorXd& lambda, double tolerance, int steps, int& iterations,
                    ContactWorkspace& w) {
  return polish_steps(G, g, blocks, gamma, lambda, tolerance, steps, iterations, w, true);
}

// whether the workspace's chord factor is for these blocks and a G within kChordChange of
// this one (chord_polish())
bool near_problem(const Eigen::MatrixXd& G, const std::vector<ContactBlock>& blocks,
                  const ContactWorkspace& w) {
  if (!w.chord || w.chord_G.rows() != G.rows() || w.chord_G.cols() != G.cols() ||
      w.chord_blocks.size() != blocks.size())
    return false;
  if ((w.chord_G - G).lpNorm<Eigen::Infinity>() > kChordChange * G.lpNorm<Eigen::Infinity>())
    return false;
  for (size_t k = 0; k < blocks.size(); ++k) {
    const ContactBlock &a = blocks[k], &b = w.chord_blocks[k];
    if (a.kind != b.kind || a.row != b.row || a.mu != b.mu || a.bound != b.bound ||
        a.fixed != b.fixed)
      return false;
  }
  return true;
}

// After a solve: the chord factor kept when a Newton step of this solve formed it
void keep_chord(const Eigen::MatrixXd& G, const std::vector<ContactBlock>& blocks,
                ContactWorkspace& w) {
  w.chord = w.factored;
  if (!w.chord) return;
  w.chord_G = G;
  w.chord_blocks = blocks;
}

}  // namespace appell::ncp_detail
