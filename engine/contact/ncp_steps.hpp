// The contact solver's steps (engine/contact/ncp.hpp), private to its files:
//   ncp.cpp          the entry points: the warm start and its shortcuts (Gauss–Seidel sweeps,
//                    chord and Newton steps), then ADMM
//   ncp_law.cpp      the law: the projections, the De Saxcé correction, the natural residual
//   ncp_newton.cpp   semismooth Newton and chord steps on the natural map
//   ncp_factors.cpp  the factors of G + ρI of a dense, a sparse and a low-rank G
//   ncp_body_factor.cpp  a low-rank G's BᵀB + ρI by the bodies' 6 × 6 blocks
//   ncp_admm.cpp     ADMM on the cone complementarity
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/contact/ncp.hpp"

namespace appell::ncp_detail {

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
// the most rows an island's Newton polish takes: it forms G, its Jacobian and JJᵀ dense
// (m² numbers, m³ operations a step: 600 rows, 0.2 GFlop; a pile of 1,000 boxes landing,
// 12,000 rows, did not finish one step in ten minutes); above it ADMM alone runs to its
// tolerance or its iteration limit, and an unconverged step is reported
constexpr int kDensePolish = 600;
constexpr double kNear = 1e3;  // a warm start within this many tolerances keeps ρ
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

// ---- the law (ncp_law.cpp) -------------------------------------------------------------

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

// a contact block's local projected step (n, t1, t2) = Π(λ_b − û_b/γ_b) at the rows'
// velocities u, with û_b = u_b + μ ‖u_t‖ e_n and γ_b = gk
inline void contact_step(const ContactBlock& b, double gk, const Eigen::VectorXd& lambda,
                         const Eigen::VectorXd& u, double& n, double& t1, double& t2) {
  const int r = b.row;
  const double un = u(r) + b.mu * std::sqrt(u(r + 1) * u(r + 1) + u(r + 2) * u(r + 2));
  n = lambda(r) - un / gk;
  t1 = lambda(r + 1) - u(r + 1) / gk;
  t2 = lambda(r + 2) - u(r + 2) / gk;
  project_cone3(n, t1, t2, b.mu);
}

// z projected onto the blocks' admissible sets
void project(const std::vector<ContactBlock>& blocks, Eigen::VectorXd& z);

// s: the contacts' De Saxcé correction at the rows' velocities u
void de_saxce(const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& u,
              Eigen::VectorXd& s);

// a block's scale: its largest diagonal entry of G (1 when its rows move nothing)
template <class Diagonal>
double block_scale(const Diagonal& diag, const ContactBlock& b) {
  double gamma = 0.0;
  for (int i = 0; i < b.size(); ++i) gamma = std::max(gamma, diag(b.row + i));
  return gamma > 0 ? gamma : 1.0;
}

// contact_residual() at λ from u = G λ + g and the blocks' scales gamma
double residual_at(const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& gamma,
                   const Eigen::VectorXd& lambda, const Eigen::VectorXd& u);

// G's diagonal and u = G x + g of the three forms of G
template <class Matrix>
auto diagonal_of(const Matrix& G) {
  return G.diagonal();
}
inline const Eigen::VectorXd& diagonal_of(const LowRankDelassus& G) {
  return G.diagonal;
}
template <class Matrix>
void velocities(const Matrix& G, const Eigen::VectorXd& x, const Eigen::VectorXd& g,
                Eigen::VectorXd& u) {
  u.noalias() = G * x;
  u += g;
}
inline void velocities(const LowRankDelassus& G, const Eigen::VectorXd& x, const Eigen::VectorXd& g,
                       Eigen::VectorXd& u) {
  u = g;
  G.add_product(x, u);
}

// ---- Newton's and the chord's steps (ncp_newton.cpp) -----------------------------------

// Semismooth Newton on the natural map from λ (polish_steps in ncp_newton.cpp): at most
// `steps` steps, λ changed only where the residual goes down; returns the residual at λ.
double newton_polish(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                     const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& gamma,
                     Eigen::VectorXd& lambda, double tolerance, int steps, int& iterations,
                     ContactWorkspace& w);
// The same by chord steps on the Jacobian and factor kept from the last solve (near_problem)
double chord_polish(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                    const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& gamma,
                    Eigen::VectorXd& lambda, double tolerance, int steps, int& iterations,
                    ContactWorkspace& w);
// whether the kept chord factor serves this problem (its blocks, G within kChordChange)
bool near_problem(const Eigen::MatrixXd& G, const std::vector<ContactBlock>& blocks,
                  const ContactWorkspace& w);
// the chord factor kept for the next solves when this solve's Newton steps formed it
void keep_chord(const Eigen::MatrixXd& G, const std::vector<ContactBlock>& blocks,
                ContactWorkspace& w);

// ---- the factors (ncp_factors.cpp) -------------------------------------------------------

// L Lᵀ = A + ρI into L by the column Cholesky of a small island, L's diagonal stored as its
// reciprocals: false when a pivot is not positive, or (`ratio` > 0) not above `ratio` times
// its column's diagonal entry
bool small_cholesky(const Eigen::MatrixXd& A, double rho, Eigen::MatrixXd& L, double ratio = 0.0);
// x = (L Lᵀ)⁻¹ x on small_cholesky's L
void small_cholesky_solve(const Eigen::MatrixXd& L, Eigen::VectorXd& x);
// an LLT's storage sized for n × n matrices, by factoring the identity (LLT(n) leaves its
// status unset, which a later assignment reads)
void size_factor(Eigen::LLT<Eigen::MatrixXd>& llt, Eigen::Index n);

// The factor of G + ρI, refreshed in place when ρ changes: on an island of at most
// kSmallIsland rows (a body's corners, a robot's feet) by small_cholesky, else (or should a
// pivot fail there) by Eigen's LLT.
struct DenseFactor {
  const Eigen::MatrixXd& G;
  ContactWorkspace& w;
  bool small = false;
  void prepare();
  void factor(double rho);
  void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x);
  const Eigen::MatrixXd& dense() { return G; }
};

// The factor of a sparse G + ρI (the ordering and symbolic factor kept while G's pattern is)
struct SparseFactor {
  const Eigen::SparseMatrix<double>& G;
  ContactWorkspace& w;
  void prepare();
  void factor(double rho);
  void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x);
  const Eigen::MatrixXd& dense();  // G formed dense, for the Newton steps
};

// (G + ρI)⁻¹ of a low-rank G = B Bᵀ by Woodbury's identity: (I − B (BᵀB + ρI)⁻¹ Bᵀ)/ρ,
// with K + ρI = BᵀB + ρI (the bodies' size) factored by the bodies' 6 × 6 blocks
// (BodyBlockFactor: on a stack of ten boxes 27,000 instructions a factor where Eigen's
// SimplicialLLT of the same K took 81,000; on a stack of five a tenth of the step less than a
// dense K by small_cholesky), or by Eigen's sparse LLT should that fail.
// One body's K (kOneBody columns) is formed dense and factored by small_cholesky.
constexpr int kOneBody = 6;
struct LowRankFactor {
  const LowRankDelassus& G;
  ContactWorkspace& w;
  double rho = 1.0;
  bool small = false;    // one body's K, dense
  bool by_body = false;  // K + ρI by the bodies' blocks (w.body), else by Eigen's sparse LLT
  void prepare();
  void factor(double r);
  void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x);
  const Eigen::MatrixXd& dense();  // B Bᵀ formed dense, for the Newton steps
};

// ---- ADMM (ncp_admm.cpp) -----------------------------------------------------------------

// ADMM on the cone complementarity from the warm start in w.z, w.y = −û, w.u = G z + g and
// w.s (its De Saxcé correction), with res.residual the residual there: the impulses into
// w.z, the result into res, the final penalty into w.rho.  Instantiated for the pairs
// (Eigen::MatrixXd, DenseFactor), (Eigen::SparseMatrix<double>, SparseFactor) and
// (LowRankDelassus, LowRankFactor).
template <class Matrix, class Factor>
void admm(const Matrix& G, const Eigen::VectorXd& g, const std::vector<ContactBlock>& blocks,
          const ContactSolverOptions& options, ContactWorkspace& w, ContactSolverResult& res);

}  // namespace appell::ncp_detail
