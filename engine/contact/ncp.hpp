// The contact problem at velocity level on a Delassus operator (internal to engine/).
//
// Given G = J R Jᵀ (m × m, symmetric positive semi-definite, singular for redundant
// contacts) and the free relative velocities g of the rows, find impulses λ with the
// post-step relative velocities u = G λ + g obeying, per block:
//
//   Contact [n, t1, t2]:  the exact Signorini–Coulomb law with maximal dissipation, as the
//     cone complementarity of De Saxcé & Feng (1998):
//         K_μ ∋ λ  ⟂  û = u + μ ‖u_t‖ e_n ∈ K_μ*,    K_μ = {‖λ_t‖ ≤ μ λ_n}
//     (sticking: u = 0 with λ inside the cone; sliding: λ_t = −μ λ_n u_t/‖u_t‖; open: λ = 0).
//     Newton's restitution and the gap enter through g (the caller shifts g_n).
//   Unilateral (one row):  0 ≤ λ ⟂ u ≥ 0  (joint limits, position projection).
//   Bounded (one row):     |λ| ≤ F, u = 0 inside, λ = −F sign(u) on the bound (joint Coulomb
//     friction).
//   A fixed block (any kind): λ = 0, whatever u (rows the bodies cannot move).
//
// Method: ADMM on the cone complementarity with the De Saxcé correction held fixed in
// each x-update (Carpentier, Le Lidec, Montaut et al., "From compliant to rigid contact
// simulation: a unified and efficient approach", RSS 2024, Alg. 1), the penalty ρ
// balanced on the primal and dual residuals.  G + ρI is positive definite even when G is
// singular, and the impulses it returns for redundant contacts are one of the many that
// give the same (unique) motion.  With G singular (a link on one hinge moves a contact's
// three rows by one rate: rank 1) a small ρ can make the iteration diverge, the De Saxcé
// correction fed back through G's null space: a residual grown a thousandfold over the
// best restarts from the best iterate with a larger ρ that stays the floor.  It stops on the
// natural residual of the law (below), never on an iteration count alone.  ADMM's rate is
// linear: where 256 iterations did not halve its best residual, and at the end, semismooth Newton
// steps on the natural map λ − Π(λ − û/γ) (its generalized Jacobian, a minimum-norm step
// where G is singular, a backtracking search on the residual; Acary & Brogliato 2008,
// §13.3) start from the best iterate and are kept when they lower the residual.
// Unconverged, it returns the best iterate.
#pragma once

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <vector>

namespace appell {

struct ContactBlock {
  enum class Kind { Contact, Unilateral, Bounded };
  Kind kind = Kind::Contact;
  int row = 0;         // first row in G (3 rows for a contact, 1 otherwise)
  double mu = 0.0;     // Coulomb coefficient of a contact
  double bound = 0.0;  // F of a bounded row
  // a block the bodies cannot move (its rows have no response: a limit on a prescribed
  // joint, a contact of welded bodies): its impulse is held at zero, outside the problem
  // (the rank policy's dependent rows, engine/formulations/rank_policy.hpp)
  bool fixed = false;
  int size() const { return kind == Kind::Contact ? 3 : 1; }
};

// A Delassus operator given by a factor, G = B Bᵀ, B = J L⁻ᵀ over the bodies' twists
// (M = L Lᵀ, per body diag(m I, J_world) at its centre of mass): for an island of more rows
// than its bodies have velocities (a pile of boxes, four corners to a face), whose solve
// then factors BᵀB + ρI, of the bodies' size, not G + ρI, of the rows', and takes G + ρI's
// inverse by Woodbury's identity, (G + ρI)⁻¹ = (I − B (BᵀB + ρI)⁻¹ Bᵀ)/ρ.
struct LowRankDelassus {
  Eigen::SparseMatrix<double, Eigen::RowMajor> B;  // rows × 6 per body
  Eigen::VectorXd diagonal;                        // G's, ‖B_k‖²
  mutable Eigen::VectorXd t;                       // Bᵀ x in products
  // the bodies' Cholesky factors of their world inertias, by the call (stamp) that formed
  // them (delassus_free_bodies.cpp, low_rank_factor)
  std::vector<Eigen::Matrix3d> factor;
  std::vector<long> factor_of;
  long stamp = 0;
  Eigen::Index rows() const { return B.rows(); }
  // y += G x
  template <class X, class Y>
  void add_product(const X& x, Y&& y) const {
    transpose_product(x, t);
    add_times(t, 1.0, y);
  }
  // t = Bᵀ x and y += s B t, row by row of B (Eigen's sparse products with a vector spent
  // about nine instructions an entry of B)
  template <class X>
  void transpose_product(const X& x, Eigen::VectorXd& out) const {
    const int* outer = B.outerIndexPtr();
    const int* inner = B.innerIndexPtr();
    const double* value = B.valuePtr();
    out.setZero(B.cols());
    for (Eigen::Index r = 0; r < B.rows(); ++r) {
      const double xr = x(r);
      for (int p = outer[r]; p < outer[r + 1]; ++p) out(inner[p]) += value[p] * xr;
    }
  }
  template <class Y>
  void add_times(const Eigen::VectorXd& in, double s, Y&& y) const {
    const int* outer = B.outerIndexPtr();
    const int* inner = B.innerIndexPtr();
    const double* value = B.valuePtr();
    for (Eigen::Index r = 0; r < B.rows(); ++r) {
      double v = 0.0;
      for (int p = outer[r]; p < outer[r + 1]; ++p) v += value[p] * in(inner[p]);
      y(r) += s * v;
    }
  }
};

struct ContactSolverOptions {
  double tolerance = 1e-10;  // on the natural residual, in the rows' velocity units
  int max_iterations = 5000;
};

struct ContactSolverResult {
  double residual = 0.0;      // the natural residual at the returned λ (velocity units)
  int iterations = 0;         // ADMM's
  int sweeps = 0;             // Gauss–Seidel sweeps before it
  int newton_iterations = 0;  // the semismooth Newton polish's (newton_polish, ncp_newton.cpp)
  bool converged = false;
};

// The Cholesky factor of K + ρI, K = BᵀB of a low-rank G = B Bᵀ, by the bodies' 6 × 6 blocks
// (ncp_body_factor.cpp): where a contact couples two bodies, K has a block, and the factor's
// fill follows the bodies' graph in its minimum degree order (a stack: none).  The order,
// the fill and where each product adds are found when B's pattern changes (analyze); then a
// solve forms K's blocks once (form) and factors them again for each ρ (factor).
struct BodyBlockFactor {
  using Block = Eigen::Matrix<double, 6, 6>;
  using Vec = Eigen::Matrix<double, 6, 1>;
  // false when B is not a low-rank island's (a row on more than two bodies)
  bool analyze(const Eigen::SparseMatrix<double, Eigen::RowMajor>& B);
  void form(const Eigen::SparseMatrix<double, Eigen::RowMajor>& B);
  bool factor(double rho);  // false where a pivot is not positive
  void solve(Eigen::VectorXd& x);

 private:
  bool same_pattern(const Eigen::SparseMatrix<double, Eigen::RowMajor>& B) const;
  int slot(int i, int j) const;

  bool valid = false;
  int groups = 0;                        // bodies (B's columns / 6)
  std::vector<int> b_outer, b_inner;     // the pattern of B analyzed
  std::vector<int> group_at, position;   // elimination position → body, and back
  std::vector<int> start, row;           // column j's blocks below it: rows row[start[j]..]
  std::vector<int> update;               // per column, per pair of its blocks: the target
  std::vector<int> row_slot;             // per row of B: its off-diagonal block's slot
  std::vector<Block> k_diagonal, k_off;  // K by position and slot
  std::vector<Block> l_diagonal, l_off;  // L
  Eigen::VectorXd y;                     // a solve's vector in the elimination order
};

// What a solve works in, kept by the caller from step to step: once sized by the first
// problems, a solve of no larger size allocates nothing (the factor of G + ρI is refreshed in
// place when ρ changes, never copied into a new matrix).
struct ContactWorkspace {
  Eigen::VectorXd z, x, y, u, s, z_prev, rhs, z_admm, z_best, zn, gamma;
  double rho = 0.0;                   // the last solve's final penalty (0: none yet)
  Eigen::Index rho_size = 0;          // and its problem's size
  Eigen::LLT<Eigen::MatrixXd> dense;  // G + ρI of a dense G
  Eigen::MatrixXd small;              // its Cholesky factor on a small island
  // a sparse G: A = G + ρI on G's pattern (the diagonal always stored), its factor, and
  // where A's diagonal entries sit in its values
  Eigen::SparseMatrix<double> A;
  Eigen::VectorXd g_diagonal;
  Eigen::SimplicialLLT<Eigen::SparseMatrix<double>> sparse;
  std::vector<int> diagonal;
  std::vector<int> pattern_outer, pattern_inner;  // the pattern the symbolic factor is for
  bool analyzed = false;
  // a low-rank G: BᵀB (dense when small), and B's products
  Eigen::SparseMatrix<double> K;
  // B's pattern K's was formed for, and where each product of two entries of a row of B
  // adds into K's values (the pattern kept, BᵀB's values alone are formed again)
  std::vector<int> b_outer, b_inner, k_position;
  Eigen::MatrixXd K_dense;
  BodyBlockFactor body;  // K + ρI's factor by the bodies' blocks
  Eigen::VectorXd t1, t2;
  // the Newton polish's
  Eigen::MatrixXd G_dense, J, JtJ;  // JtJ: J Jᵀ + εI (least_squares_step)
  Eigen::LLT<Eigen::MatrixXd> lm;   // JᵀJ + εI's factor, or on a small island:
  Eigen::MatrixXd lm_small;         // its Cholesky factor by small_cholesky
  Eigen::VectorXd F, trial, step, ut;
  // the chord steps' (ncp_newton.cpp, chord_polish): whether this solve's Newton steps
  // formed J and JJᵀ's factor, and the G and blocks they were formed for (kept while later
  // solves use them)
  bool factored = false, chord = false;
  Eigen::MatrixXd chord_G;
  std::vector<ContactBlock> chord_blocks;
};

// The natural residual of the law at λ, with u = G λ + g: per block the velocity-scaled
// distance ‖λ − Π(λ − û/γ)‖·γ (γ = the block's largest diagonal entry of G, Π the
// projection onto the block's admissible set); the largest over the blocks.  Zero exactly
// when λ solves the problem.
double contact_residual(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                        const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& lambda);

// Solves the problem; `lambda` holds the warm start on entry (zeros or the previous step's
// impulses; resized to zeros when its size is wrong) and the impulses on return.
// `ws`: the caller's workspace (a local one when null).
ContactSolverResult solve_contact_problem(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                                          const std::vector<ContactBlock>& blocks,
                                          Eigen::VectorXd& lambda,
                                          const ContactSolverOptions& options = {},
                                          ContactWorkspace* ws = nullptr);
// The same on a sparse G (both triangles stored): a large island whose rows couple few
// others (a stack of boxes: each box's contacts meet only its neighbours'), where the
// factor of G + ρI costs O(rows) instead of O(rows³).
ContactSolverResult solve_contact_problem(const Eigen::SparseMatrix<double>& G,
                                          const Eigen::VectorXd& g,
                                          const std::vector<ContactBlock>& blocks,
                                          Eigen::VectorXd& lambda,
                                          const ContactSolverOptions& options = {},
                                          ContactWorkspace* ws = nullptr);

// The same on a low-rank G (its factor B).
ContactSolverResult solve_contact_problem(const LowRankDelassus& G, const Eigen::VectorXd& g,
                                          const std::vector<ContactBlock>& blocks,
                                          Eigen::VectorXd& lambda,
                                          const ContactSolverOptions& options = {},
                                          ContactWorkspace* ws = nullptr);

// w.K = BᵀB, the bodies' side of a low-rank G = B Bᵀ (its penalized factor's matrix), on
// its lower triangle (the factor reads no other); the pattern is formed when B's changes,
// else only the lower triangle's values
void form_gram(const Eigen::SparseMatrix<double, Eigen::RowMajor>& B, ContactWorkspace& w);

// The projection of (n, t1, t2) onto the cone ‖t‖ ≤ μ n (μ ≥ 0).
Eigen::Vector3d project_cone(const Eigen::Vector3d& x, double mu);

}  // namespace appell
