// ADMM on the cone complementarity of the contact problem (engine/contact/ncp.hpp).
#include "engine/contact/ncp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace appell {

namespace {

// project_cone on three scalars, in place (the solver's inner loops: no vector temporaries)
inline void project_cone3(double& n, double& t1, double& t2, double mu) {
  const double s = std::sqrt(t1 * t1 + t2 * t2);
  // inside K_μ (n ≥ 0 said apart: with μ = 0 and no tangential part, s ≤ μ n holds for
  // any n, and a frictionless contact would pull)
  if (n >= 0 && s <= mu * n) return;
  if (mu * s <= -n) {  // inside the polar cone
    n = t1 = t2 = 0.0;
    return;
  }
  n = (n + mu * s) / (1.0 + mu * mu);
  const double f = s > 0 ? mu * n / s : 0.0;
  t1 *= f;
  t2 *= f;
}

}  // namespace

Eigen::Vector3d project_cone(const Eigen::Vector3d& x, double mu) {
  Eigen::Vector3d p = x;
  project_cone3(p(0), p(1), p(2), mu);
  return p;
}

namespace {

constexpr int kStall = 256;       // ADMM iterations that must halve its best residual
constexpr int kPolishSteps = 16;  // Newton steps of a polish (four times that at the end)
// iterations after a restart during which ρ stays above four times the one that diverged,
// on an island of kSmallIsland rows or more (held for good, it pinned ρ where a pile of 20
// boxes took 3,000 iterations, not 400); on a smaller one it holds for good (released, 13
// of 384 hinged links swung onto a floor ended a step at up to 5.6e-8, not 4.8e-10)
constexpr int kFloorSpan = 128;
constexpr int kSmallIsland = 48;  // rows of an island whose stalls are checked sooner
constexpr int kSmallStall = 16;   // and the iterations that must halve its best
constexpr int kSweeps = 8;        // Gauss–Seidel sweeps from the warm start before ADMM
constexpr double kNear = 1e3;     // a warm start within this many tolerances keeps ρ
// an island of at most kNewtonFirst rows tries kFirstSteps semismooth Newton steps from its
// warm start before ADMM: near the answer they converge quadratically (a quadruped dropped
// on a floor: 1.0 step a solve, where ADMM took 21 iterations from the same start; on its
// four feet, whose twelve rows its fourteen velocities move with rank 10, 1 to 4 steps
// from the last step's impulses where ADMM took up to 170 iterations)
constexpr int kNewtonFirst = 24;
constexpr int kFirstSteps = 4;
constexpr double kDefinite = 1e-8;  // G's pivot ratio above which it counts as definite
// how far G may have moved (in its largest entry, relative to G's) from the G of a kept
// Newton factor for chord steps on it (chord_polish)
constexpr double kChordChange = 1e-3;
static_assert(kNewtonFirst <= kSmallIsland, "the Newton steps use storage sized for small islands");

// z ← Π(z) block by block: the cone, the half-line or the interval
void project(const std::vector<ContactBlock>& blocks, Eigen::VectorXd& z) {
  for (const ContactBlock& b : blocks) {
    if (b.fixed) {
      z.segment(b.row, b.size()).setZero();
      continue;
    }
    switch (b.kind) {
      case ContactBlock::Kind::Contact:
        project_cone3(z(b.row), z(b.row + 1), z(b.row + 2), b.mu);
        break;
      case ContactBlock::Kind::Unilateral:
        z(b.row) = std::max(z(b.row), 0.0);
        break;
      case ContactBlock::Kind::Bounded:
        z(b.row) = std::clamp(z(b.row), -b.bound, b.bound);
        break;
    }
  }
}

// the De Saxcé correction s = μ ‖u_t‖ e_n of every contact at u (zero elsewhere)
void de_saxce(const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& u,
              Eigen::VectorXd& s) {
  s.setZero();
  for (const ContactBlock& b : blocks)
    if (b.kind == ContactBlock::Kind::Contact && !b.fixed)
      s(b.row) = b.mu * std::sqrt(u(b.row + 1) * u(b.row + 1) + u(b.row + 2) * u(b.row + 2));
}

// a block's scale: its largest diagonal entry of G (1 when its rows move nothing)
template <class Diagonal>
double block_scale(const Diagonal& diag, const ContactBlock& b) {
  double gamma = 0.0;
  for (int i = 0; i < b.size(); ++i) gamma = std::max(gamma, diag(b.row + i));
  return gamma > 0 ? gamma : 1.0;
}

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
        const double un = u(r) + b.mu * std::sqrt(u(r + 1) * u(r + 1) + u(r + 2) * u(r + 2));
        double n = lambda(r) - un / gk, t1 = lambda(r + 1) - u(r + 1) / gk,
               t2 = lambda(r + 2) - u(r + 2) / gk;
        project_cone3(n, t1, t2, b.mu);
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

// the natural residual at λ from the rows' velocities u = G λ + g and the blocks' scales
double residual_at(const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& gamma,
                   const Eigen::VectorXd& lambda, const Eigen::VectorXd& u) {
  double r = 0.0;
  for (size_t k = 0; k < blocks.size(); ++k) {
    const ContactBlock& b = blocks[k];
    const double gk = gamma(static_cast<Eigen::Index>(k));
    double e = 0.0;
    if (b.fixed) {  // λ = 0 whatever u
      r = std::max(r, lambda.segment(b.row, b.size()).norm() * gk);
      continue;
    }
    switch (b.kind) {
      case ContactBlock::Kind::Contact: {
        const int r = b.row;
        const double un = u(r) + b.mu * std::sqrt(u(r + 1) * u(r + 1) + u(r + 2) * u(r + 2));
        double n = lambda(r) - un / gk, t1 = lambda(r + 1) - u(r + 1) / gk,
               t2 = lambda(r + 2) - u(r + 2) / gk;
        project_cone3(n, t1, t2, b.mu);
        n -= lambda(r);
        t1 -= lambda(r + 1);
        t2 -= lambda(r + 2);
        e = std::sqrt(n * n + t1 * t1 + t2 * t2) * gk;
        break;
      }
      case ContactBlock::Kind::Unilateral:
        e = std::abs(lambda(b.row) - std::max(lambda(b.row) - u(b.row) / gk, 0.0)) * gk;
        break;
      case ContactBlock::Kind::Bounded:
        e = std::abs(lambda(b.row) - std::clamp(lambda(b.row) - u(b.row) / gk, -b.bound, b.bound)) *
            gk;
        break;
    }
    r = std::max(r, e);
  }
  return r;
}

// The natural map of the law, F_b(λ) = λ_b − Π_b(λ_b − û_b/γ_b) per block (its norm times
// γ_b is the block's residual, residual_at()), and J, its generalized Jacobian (an element
// of Clarke's), for the semismooth Newton steps of newton_polish(); into w.F and w.J, with
// w.un = G λ + g.
// Without `jacobian`, F alone (chord_polish(): J is the last step's).
void natural_map(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                 const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& gamma,
                 const Eigen::VectorXd& lambda, ContactWorkspace& w, bool jacobian = true) {
  const Eigen::Index m = g.size();
  Eigen::VectorXd& u = w.un;
  u.noalias() = G * lambda;
  u += g;
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

// L Lᵀ = A + ρI into L (A's size, lower triangle written), by the right-looking
// column Cholesky: false when a pivot is not positive.  For small islands, where Eigen's
// blocked LLT and triangular solves spend most of their time in their own set-up (the
// standing quadruped's 12 rows: 1,500 instructions a pair of triangular solves, for 144
// multiply-adds).
// With `ratio` > 0, fails also where a pivot is not above `ratio` times its column's
// diagonal entry (A's column j within a sine of √ratio of the span of the columns before).
bool small_cholesky(const Eigen::MatrixXd& A, double rho, Eigen::MatrixXd& L, double ratio = 0.0) {
  const Eigen::Index m = A.rows();
  L = A;
  double* a = L.data();
  for (Eigen::Index j = 0; j < m; ++j) {
    double* cj = a + j * m;
    const double pivot = cj[j] + rho;
    if (!(pivot > ratio * (A(j, j) + rho))) return false;
    const double d = std::sqrt(pivot);
    cj[j] = d;
    for (Eigen::Index i = j + 1; i < m; ++i) cj[i] /= d;
    for (Eigen::Index k = j + 1; k < m; ++k) {  // the trailing lower triangle, by columns
      double* ck = a + k * m;
      const double f = cj[k];
      for (Eigen::Index i = k; i < m; ++i) ck[i] -= cj[i] * f;
    }
  }
  return true;
}

// x = (L Lᵀ)⁻¹ x, by columns of L: forward, then backward
void small_cholesky_solve(const Eigen::MatrixXd& L, Eigen::VectorXd& x) {
  const Eigen::Index m = L.rows();
  const double* a = L.data();
  double* v = x.data();
  for (Eigen::Index j = 0; j < m; ++j) {
    const double* cj = a + j * m;
    v[j] /= cj[j];
    const double f = v[j];
    for (Eigen::Index i = j + 1; i < m; ++i) v[i] -= cj[i] * f;
  }
  for (Eigen::Index j = m - 1; j >= 0; --j) {
    const double* cj = a + j * m;
    double t = v[j];
    for (Eigen::Index i = j + 1; i < m; ++i) t -= cj[i] * v[i];
    v[j] = t / cj[j];
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
    if (chord) {
      natural_map(G, g, blocks, gamma, lambda, w, false);
      trial = w.F;
      small_cholesky_solve(w.lm_small, trial);
      step.noalias() = w.J.transpose() * trial;
    } else {
      natural_map(G, g, blocks, gamma, lambda, w);
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

}  // namespace

double contact_residual(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                        const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& lambda) {
  Eigen::VectorXd gamma(blocks.size());
  for (size_t k = 0; k < blocks.size(); ++k)
    gamma(static_cast<Eigen::Index>(k)) = block_scale(G.diagonal(), blocks[k]);
  return residual_at(blocks, gamma, lambda, G * lambda + g);
}

// BᵀB into w.K (ncp.hpp).  Its pattern (Eigen's sparse product) and where each product of two
// entries of a row of B adds into its values are kept while B's pattern is (a resting stack's, step
// after step); then only the values are formed, a row's entries against each other
// (a stack of ten boxes: 50,000 instructions, where the product took 187,000)
void form_gram(const Eigen::SparseMatrix<double, Eigen::RowMajor>& B, ContactWorkspace& w) {
  const Eigen::Index rows = B.rows();
  const int* outer = B.outerIndexPtr();
  const int* inner = B.innerIndexPtr();
  const double* value = B.valuePtr();
  const int nnz = outer[rows];
  const bool same = static_cast<Eigen::Index>(w.b_outer.size()) == rows + 1 &&
                    static_cast<int>(w.b_inner.size()) == nnz && w.K.cols() == B.cols() &&
                    std::equal(outer, outer + rows + 1, w.b_outer.begin()) &&
                    std::equal(inner, inner + nnz, w.b_inner.begin());
  if (!same) {
    w.K = B.transpose() * B;
    w.K.makeCompressed();
    w.b_outer.assign(outer, outer + rows + 1);
    w.b_inner.assign(inner, inner + nnz);
    w.k_position.clear();
    const int* k_outer = w.K.outerIndexPtr();
    const int* k_inner = w.K.innerIndexPtr();
    for (Eigen::Index r = 0; r < rows; ++r)
      for (int p = outer[r]; p < outer[r + 1]; ++p)
        for (int q = outer[r]; q < outer[r + 1]; ++q) {  // K(inner[q], inner[p])
          const int* begin = k_inner + k_outer[inner[p]];
          const int* end = k_inner + k_outer[inner[p] + 1];
          const int* at = std::lower_bound(begin, end, inner[q]);
          if (at == end || *at != inner[q]) {  // not stored: the product's values stand, and
            w.b_outer.clear();                 // the pattern is formed again next time
            return;
          }
          w.k_position.push_back(static_cast<int>(at - k_inner));
        }
    return;  // the product's values
  }
  double* k = w.K.valuePtr();
  std::fill(k, k + w.K.nonZeros(), 0.0);
  const int* position = w.k_position.data();
  for (Eigen::Index r = 0; r < rows; ++r)
    for (int p = outer[r]; p < outer[r + 1]; ++p)
      for (int q = outer[r]; q < outer[r + 1]; ++q) k[*position++] += value[p] * value[q];
}

namespace {

// an LLT's storage sized for n × n matrices, by factoring the identity (LLT(n) leaves its
// status unset, which a later assignment reads)
void size_factor(Eigen::LLT<Eigen::MatrixXd>& llt, Eigen::Index n) {
  llt.compute(Eigen::MatrixXd::Identity(n, n));
}

// The factor of G + ρI, refreshed in place when ρ changes: on an island of at most
// kSmallIsland rows (a body's corners, a robot's feet) by small_cholesky, else (or should a
// pivot fail there) by Eigen's LLT.
struct DenseFactor {
  const Eigen::MatrixXd& G;
  ContactWorkspace& w;
  bool small = false;
  void prepare() {
    // the factor's storage sized once per size (a step that needs no factor — its warm
    // start met the tolerance — may come first)
    if (G.rows() <= kSmallIsland) {
      w.small.resize(G.rows(), G.rows());
    } else if (w.dense.rows() != G.rows()) {
      size_factor(w.dense, G.rows());
    }
  }
  void factor(double rho) {
    small = G.rows() <= kSmallIsland && small_cholesky(G, rho, w.small);
    if (small) return;
    if (w.dense.rows() != G.rows()) size_factor(w.dense, G.rows());
    // into the LLT's own storage, sized at the first solve of this size
    w.dense.compute(G + rho * Eigen::MatrixXd::Identity(G.rows(), G.cols()));
  }
  void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) {
    x = rhs;
    if (small)
      small_cholesky_solve(w.small, x);
    else
      w.dense.solveInPlace(x);
  }
  const Eigen::MatrixXd& dense() { return G; }
};

// w.A = S + ρI on S's pattern with every diagonal entry stored, the positions of its
// diagonal entries and S's diagonal; the ordering and symbolic factor kept while the
// pattern is (a resting stack keeps its pattern from step to step)
void prepare_penalized(const Eigen::SparseMatrix<double>& S, ContactWorkspace& w) {
  const Eigen::Index m = S.rows();
  Eigen::SparseMatrix<double>& A = w.A;
  A = S;
  bool complete = true;
  for (Eigen::Index k = 0; k < m && complete; ++k) complete = A.coeff(k, k) != 0.0;
  if (!complete) {  // a row that moves nothing: its diagonal entry is an explicit zero
    for (Eigen::Index k = 0; k < m; ++k) A.coeffRef(k, k) += 0.0;
    A.makeCompressed();
  }
  w.diagonal.resize(static_cast<size_t>(m));
  for (Eigen::Index k = 0; k < m; ++k) {
    const int* begin = A.innerIndexPtr() + A.outerIndexPtr()[k];
    const int* end = A.innerIndexPtr() + A.outerIndexPtr()[k + 1];
    w.diagonal[static_cast<size_t>(k)] =
        static_cast<int>(std::lower_bound(begin, end, static_cast<int>(k)) - A.innerIndexPtr());
  }
  w.g_diagonal.resize(m);
  for (Eigen::Index k = 0; k < m; ++k) w.g_diagonal(k) = A.valuePtr()[w.diagonal[k]];
  const int* outer = A.outerIndexPtr();
  const int* inner = A.innerIndexPtr();
  const int nnz = outer[m];
  const bool same = w.analyzed && static_cast<Eigen::Index>(w.pattern_outer.size()) == m + 1 &&
                    static_cast<int>(w.pattern_inner.size()) == nnz &&
                    std::equal(outer, outer + m + 1, w.pattern_outer.begin()) &&
                    std::equal(inner, inner + nnz, w.pattern_inner.begin());
  if (same) return;
  w.pattern_outer.assign(outer, outer + m + 1);
  w.pattern_inner.assign(inner, inner + nnz);
  w.sparse.analyzePattern(A);
  w.analyzed = true;
}

// w.A's diagonal set to S's + ρ, and factored
void factor_penalized(double rho, ContactWorkspace& w) {
  double* values = w.A.valuePtr();
  for (size_t k = 0; k < w.diagonal.size(); ++k)
    values[w.diagonal[k]] = w.g_diagonal(static_cast<Eigen::Index>(k)) + rho;
  w.sparse.factorize(w.A);
}

struct SparseFactor {
  const Eigen::SparseMatrix<double>& G;
  ContactWorkspace& w;
  void prepare() { prepare_penalized(G, w); }
  void factor(double rho) { factor_penalized(rho, w); }
  void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) { x = w.sparse.solve(rhs); }
  const Eigen::MatrixXd& dense() {
    w.G_dense = G;
    return w.G_dense;
  }
};

// (G + ρI)⁻¹ of a low-rank G = B Bᵀ by Woodbury's identity: (I − B (BᵀB + ρI)⁻¹ Bᵀ)/ρ,
// with BᵀB + ρI (the bodies' size) factored as a sparse G's G + ρI is; for at most
// kSmallIsland columns (eight bodies) BᵀB is formed dense, row by row of B (a row's twelve
// entries: 144 products, where Eigen's sparse product spent 23,000 instructions on a stack
// of five), and factored by small_cholesky
struct LowRankFactor {
  const LowRankDelassus& G;
  ContactWorkspace& w;
  double rho = 1.0;
  bool small = false;
  void prepare() {
    const Eigen::Index c = G.B.cols();
    small = c <= kSmallIsland;
    if (!small) {
      form_gram(G.B, w);
      prepare_penalized(w.K, w);
      return;
    }
    w.K_dense.setZero(c, c);
    const int* outer = G.B.outerIndexPtr();
    const int* inner = G.B.innerIndexPtr();
    const double* value = G.B.valuePtr();
    for (Eigen::Index r = 0; r < G.B.rows(); ++r)
      for (int p = outer[r]; p < outer[r + 1]; ++p)
        for (int q = outer[r]; q <= p; ++q) w.K_dense(inner[p], inner[q]) += value[p] * value[q];
    for (Eigen::Index j = 0; j < c; ++j)  // the upper triangle, for small_cholesky's copy
      for (Eigen::Index i = j + 1; i < c; ++i) w.K_dense(j, i) = w.K_dense(i, j);
  }
  void factor(double r) {
    rho = r;
    if (small && small_cholesky(w.K_dense, r, w.small)) return;
    if (small) {  // a pivot failed: the sparse factor after all
      small = false;
      form_gram(G.B, w);
      prepare_penalized(w.K, w);
    }
    factor_penalized(r, w);
  }
  void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) {
    w.t1.noalias() = G.B.transpose() * rhs;
    if (small) {
      w.t2 = w.t1;
      small_cholesky_solve(w.small, w.t2);
    } else {
      w.t2 = w.sparse.solve(w.t1);
    }
    x = rhs;
    x.noalias() -= G.B * w.t2;
    x /= rho;
  }
  const Eigen::MatrixXd& dense() {
    w.G_dense = Eigen::MatrixXd(G.B) * Eigen::MatrixXd(G.B).transpose();
    return w.G_dense;
  }
};

// G's diagonal and u = G x + g of the three forms of G
template <class Matrix>
auto diagonal_of(const Matrix& G) {
  return G.diagonal();
}
const Eigen::VectorXd& diagonal_of(const LowRankDelassus& G) {
  return G.diagonal;
}
template <class Matrix>
void velocities(const Matrix& G, const Eigen::VectorXd& x, const Eigen::VectorXd& g,
                Eigen::VectorXd& u) {
  u.noalias() = G * x;
  u += g;
}
void velocities(const LowRankDelassus& G, const Eigen::VectorXd& x, const Eigen::VectorXd& g,
                Eigen::VectorXd& u) {
  u = g;
  G.add_product(x, u);
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
  Eigen::VectorXd &z = w.z, &x = w.x, &y = w.y, &u = w.u, &s = w.s, &z_prev = w.z_prev,
                  &rhs = w.rhs;
  for (Eigen::VectorXd* v : {&x, &y, &u, &s, &z_prev, &rhs, &w.z_admm, &w.z_best, &w.zn})
    v->resize(m);
  if (m <= kSmallIsland) {  // where Newton steps are frequent: their storage too, at once
    for (Eigen::VectorXd* v : {&w.F, &w.trial, &w.step, &w.un, &w.ut}) v->resize(m);
    w.J.resize(m, m);
    w.JtJ.resize(m, m);
    if (w.lm.rows() != m) size_factor(w.lm, m);
  }
  w.gamma.resize(static_cast<Eigen::Index>(blocks.size()));
  const auto& diag = diagonal_of(G);
  for (size_t k = 0; k < blocks.size(); ++k)
    w.gamma(static_cast<Eigen::Index>(k)) = block_scale(diag, blocks[k]);
  const auto residual = [&](const Eigen::VectorXd& l) {  // u holds G l + g
    return residual_at(blocks, w.gamma, l, u);
  };
  // the scale of G: the penalty starts at its mean diagonal, the balancing compares
  // impulse-sized residuals in velocity units through it
  double gmax = 0.0, trace = 0.0;
  for (Eigen::Index k = 0; k < m; ++k) {
    gmax = std::max(gmax, static_cast<double>(diag(k)));
    trace += diag(k);
  }
  gmax = std::max(gmax, 1e-300);
  double rho = std::max(trace / static_cast<double>(m), 1e-12 * gmax);
  z = lambda;
  project(blocks, z);
  velocities(G, z, g, u);
  de_saxce(blocks, u, s);
  y = -(u + s);  // the dual of a solution is −û: exact when the warm start is
  res.residual = residual(z);
  if (res.residual <= options.tolerance) {
    lambda = z;
    res.converged = true;
    return res;
  }
  // kFirstSteps Newton (or chord) steps from z on a dense G: true, with λ and the result
  // set, where they reach the tolerance (generic: instantiated on a dense G alone)
  const auto converged_from_z = [&](const auto& dense, bool chord) {
    w.zn = z;  // its storage is sized above (m ≤ kSmallIsland)
    const double rn = chord ? chord_polish(dense, g, blocks, w.gamma, w.zn, options.tolerance,
                                           kFirstSteps, res.newton_iterations, w)
                            : newton_polish(dense, g, blocks, w.gamma, w.zn, options.tolerance,
                                            kFirstSteps, res.newton_iterations, w);
    if (!(rn <= options.tolerance)) return false;
    lambda = w.zn;
    res.residual = rn;
    res.converged = true;
    return true;
  };
  // the problem the last solve factored a Newton step of, with g moved: chord steps
  if constexpr (std::is_same_v<Matrix, Eigen::MatrixXd>) {
    if (m <= kSmallIsland && near_problem(G, blocks, w)) {
      chorded = true;
      if (converged_from_z(G, true)) return res;
      velocities(G, z, g, u);
    }
  }
  // a warm start near the answer: a few sweeps before any factor (not on a low-rank G,
  // whose factor is cheap and whose columns are not at hand)
  if constexpr (!std::is_same_v<Matrix, LowRankDelassus>) {
    x = z;
    double last = res.residual;
    for (int k = 0; k < kSweeps; ++k) {
      sweep(G, blocks, w.gamma, x, u);
      const double r = residual(x);
      ++res.sweeps;
      if (r <= options.tolerance) {
        lambda = x;
        res.residual = r;
        res.converged = true;
        return res;
      }
      if (!(r < 0.5 * last)) break;  // not converging fast: ADMM
      last = r;
    }
    velocities(G, z, g, u);
  }
  // Newton first on a small island (kNewtonFirst) where G is definite (the solution is
  // unique) or the warm start holds a solution's spread.  Where G is singular (a box's four
  // corners: twelve rows on six velocities; a robot's feet) the spread of the forces is
  // not determined: from zero, ADMM's proximal steps pick the natural one (a box landing
  // flat: a quarter of its weight a corner, no friction), where Newton's least-squares
  // steps leave self-balanced friction; from a warm start, both stay near it
  if constexpr (std::is_same_v<Matrix, Eigen::MatrixXd>) {
    if (m <= kNewtonFirst &&
        ((z.template lpNorm<Eigen::Infinity>() > 0 && blocks_definite(G, blocks)) ||
         small_cholesky(G, 0.0, w.small, kDefinite)) &&
        converged_from_z(G, false))
      return res;
  }
  // On a large island, a warm start this near the answer (within kNear tolerances: a
  // resting or steadily sliding island, its problem the last step's a little changed)
  // starts from the last solve's final penalty, where the balancing took it from the mean
  // diagonal by a factor of 4 every 8 iterations (a stack of twenty boxes: to 1/16,000 of
  // it in 56).  Not after an impact: the problem is new, and from another penalty ADMM may
  // reach another of its solutions (a rimless wheel's double support: both feet held, the
  // wheel stopped).  Not on a small island, whose last penalty was no better a start than
  // the mean diagonal (the quadruped standing: 21 iterations a solve from it, 14 without)
  if (m >= kSmallIsland && w.rho > 0 && w.rho_size == m &&
      res.residual <= kNear * options.tolerance)
    rho = std::clamp(w.rho, 1e-8 * gmax, 1e8 * gmax);
  Factor factor{G, w};
  factor.prepare();
  factor.factor(rho);
  // the best iterate so far, and the penalty's floor: with G singular (a link on one hinge
  // gives a contact's three rows rank 1) the De Saxcé correction, held fixed in each
  // x-update, is fed back through G's null space amplified by 1/ρ; below some ρ the
  // iteration diverges (impulses of 1e17 on a hinged arm landing on a floor).  A residual
  // grown a thousandfold over the best and past the starting one restarts from the best
  // iterate with ρ four times the one that diverged, and ρ does not go below that again
  // (on a large island: for the next kFloorSpan iterations).
  Eigen::VectorXd &z_admm = w.z_admm, &z_best = w.z_best, &zn = w.zn;
  z_admm = z;
  z_best = z;
  const double start = res.residual;
  double admm_best = start, best = start, rho_min = 0.0, stall_mark = start;
  int floor_until = 0;  // the floor holds for kFloorSpan iterations after a restart
  // semismooth Newton from the best point so far, where ADMM's linear rate is slow: its
  // point is returned when it converges or is the best at the end; ADMM's own iterates and
  // their restarts go on undisturbed
  const auto polish = [&](int steps) {
    zn = z_best;
    const double rn = newton_polish(factor.dense(), g, blocks, w.gamma, zn, options.tolerance,
                                    steps, res.newton_iterations, w);
    if (rn < best) {
      best = rn;
      z_best = zn;
    }
    return rn <= options.tolerance;
  };
  bool polished = false;
  for (int it = 1; it <= options.max_iterations; ++it) {
    // stalled: ADMM's best not halved over the last kStall iterations, or on a small
    // island (Newton's steps cheap) the last kSmallStall: ADMM's linear rate on an
    // ill-conditioned G (a light hub on long spokes: G's eigenvalues 0.28 to 501) would
    // take thousands
    if (it % (m <= kSmallIsland ? kSmallStall : kStall) == 0) {
      if (!(admm_best < 0.5 * stall_mark) && polish(kPolishSteps)) {
        polished = true;
        res.converged = true;
        break;
      }
      stall_mark = admm_best;
    }
    rhs = rho * z - y - g - s;
    factor.solve(rhs, x);
    z_prev = z;
    z = x + y / rho;
    project(blocks, z);
    y += rho * (x - z);
    velocities(G, z, g, u);
    de_saxce(blocks, u, s);
    res.iterations = it;
    res.residual = residual(z);
    if (res.residual <= options.tolerance) {
      res.converged = true;
      break;
    }
    if (res.residual < best) {
      best = res.residual;
      z_best = z;
    }
    if (res.residual < admm_best) {
      admm_best = res.residual;
      z_admm = z;
    } else if (!(res.residual <= std::max(1e3 * admm_best, start))) {
      z = z_admm;
      velocities(G, z, g, u);
      de_saxce(blocks, u, s);
      y = -(u + s);
      rho_min = rho = 4.0 * rho;
      // for good on a small island (a hinged link's rank-1 rows diverge again below it),
      // for kFloorSpan iterations on a large one
      floor_until = m <= kSmallIsland ? options.max_iterations : it + kFloorSpan;
      factor.factor(rho);
      continue;
    }
    // balance the primal (x − z, impulses) and dual (ρ Δz, velocities) residuals
    if (it % 8 == 0) {
      const double primal = gmax * (x - z).template lpNorm<Eigen::Infinity>();
      const double dual = rho * (z - z_prev).template lpNorm<Eigen::Infinity>();
      if (primal > 10.0 * dual && rho < 1e8 * gmax) {
        rho *= 4.0;
        factor.factor(rho);
      } else if (dual > 10.0 * primal && rho > 1e-8 * gmax &&
                 (it > floor_until || rho >= 4.0 * rho_min)) {
        rho /= 4.0;
        factor.factor(rho);
      }
    }
  }
  if (!res.converged && polish(4 * kPolishSteps)) {
    polished = true;
    res.converged = true;
  }
  if (polished)
    z = zn;
  else if (!res.converged)
    z = z_best;  // the best point, not the last
  if (!res.converged || polished) {
    velocities(G, z, g, u);
    res.residual = residual(z);
  }
  lambda = z;
  w.rho = rho;
  w.rho_size = m;
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

ContactSolverResult solve_contact_problem(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                                          const std::vector<ContactBlock>& blocks,
                                          Eigen::VectorXd& lambda,
                                          const ContactSolverOptions& options,
                                          ContactWorkspace* ws) {
  if (ws) return solve<Eigen::MatrixXd, DenseFactor>(G, g, blocks, lambda, options, *ws);
  ContactWorkspace local;  // (its sparse members allocate even empty)
  return solve<Eigen::MatrixXd, DenseFactor>(G, g, blocks, lambda, options, local);
}

ContactSolverResult solve_contact_problem(const LowRankDelassus& G, const Eigen::VectorXd& g,
                                          const std::vector<ContactBlock>& blocks,
                                          Eigen::VectorXd& lambda,
                                          const ContactSolverOptions& options,
                                          ContactWorkspace* ws) {
  if (ws) return solve<LowRankDelassus, LowRankFactor>(G, g, blocks, lambda, options, *ws);
  ContactWorkspace local;
  return solve<LowRankDelassus, LowRankFactor>(G, g, blocks, lambda, options, local);
}

ContactSolverResult solve_contact_problem(const Eigen::SparseMatrix<double>& G,
                                          const Eigen::VectorXd& g,
                                          const std::vector<ContactBlock>& blocks,
                                          Eigen::VectorXd& lambda,
                                          const ContactSolverOptions& options,
                                          ContactWorkspace* ws) {
  if (ws)
    return solve<Eigen::SparseMatrix<double>, SparseFactor>(G, g, blocks, lambda, options, *ws);
  ContactWorkspace local;
  return solve<Eigen::SparseMatrix<double>, SparseFactor>(G, g, blocks, lambda, options, local);
}

}  // namespace appell
