// The Delassus operator of unilateral rows on the recursive formulation's tree, and the
// joint-velocity response to their impulses, without M⁻¹ (internal to engine/).
//
// A unilateral row k is a row on the bodies' twists V = (v̄, ω) like a constraint's
// canonical row (appell/constraint.hpp, C2): per body a linear and an angular part.  With
// R the inverse mass of the tree constrained by its bilateral extra rows (the Schur
// complement M⁻¹ − M⁻¹Aᵀ G_A⁺ A M⁻¹ against the extra rows' G_A of (R13)),
//   response_k = R J_kᵀ (the joint velocities an impulse of 1 on row k adds),
//   G_jk = J_j response_k,
// each column by the recursion's unit-force passes (R12): one pass for the tree, and with
// bilateral rows a second after the force A G_A⁺ (−A a^k) that keeps them satisfied.
// O(m·(n + m_A²) + m²·terms) for m rows, m_A bilateral rows; no n × n matrix anywhere.
#pragma once

#include <Eigen/Sparse>
#include <array>
#include <utility>
#include <vector>

#include "appell/constraint.hpp"
#include "appell/data.hpp"
#include "engine/contact/ncp.hpp"

namespace appell {

struct TwistRow {
  int body[2] = {kWorld, kWorld};  // kWorld: no term
  SpatialForce term[2];
};

// The row of direction `dir` at the world point p between bodies a and b (kWorld for
// the ground): its velocity is dir · (v_b(p) − v_a(p)), its unit impulse pushes b along
// +dir and a along −dir.  Reads d.body.
TwistRow point_row(const Data& d, int body_a, int body_b, const Vec3& p, const Vec3& dir);

// The row whose velocity is the quasi-velocity of one-coordinate tree joint i (revolute,
// prismatic, …): a pair of opposite wrenches on the joint's child and parent along its
// motion subspace S (w = S/‖S‖², so that Sᵀw = 1).  Needs the kinematics at the state.
TwistRow joint_row(const Model& m, Data& d, int tree_joint);

// M⁻¹ Jᵀ as joint_space_delassus() leaves it: M = Lᵀ L, L lower triangular with M's own
// pattern, and Y = L⁻ᵀ Jᵀ by rows, velocity c's row nonzero only in the columns
// [first[c], end[c]).  A response L⁻¹ (Y λ) costs about the product with the whole matrix,
// and the matrix, nu × rows, is never formed.
struct JointSpaceResponse {
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> L, Y;
  std::vector<int> parent;  // each velocity's parent velocity, −1 at a root
  // each velocity's run: the first of the consecutive velocities, each the next one's
  // parent, that end at it (a joint's own, and its parent's when the joints follow)
  std::vector<int> run;
  std::vector<int> first, end;       // per velocity: the columns of Y it may be nonzero in
  Eigen::VectorXd inverse_diagonal;  // 1 / L_kk: the solves multiply (a division stalls them)
  // M and its factor formed at the last kinematics (joint_space_factor), for the next
  // joint_space_delassus at the same q, which then forms neither (and clears this)
  bool fresh = false;
  mutable Eigen::VectorXd work;  // add_response()'s L⁻¹ Y λ
};

// After recursive_rates (or solve_recursive) on d at a state q: G (m × m, symmetric) and
// the response R Jᵀ (tree.nu × m).  Overwrites the recursion's u̇ and accelerations (copy
// joint_accelerations before).  Allocates the outputs only when their sizes change.
//
// With `first` (one entry per row: the first row of the row's island, the rows of an
// island contiguous) G is formed only within islands — it is zero between them, rows on
// bodies that no joint or bilateral row couples — as one block per island in `islands`
// (G itself untouched).  Then, when `support` is given too and no bilateral
// row couples the subtrees, the response is not formed as a matrix: each row's column is
// kept packed, only on the joint velocities the row moves (its bodies' subtrees), in
// support; apply it with add_response().
struct ResponseSupport {
  bool dense = true;                     // the response matrix holds every column
  bool joint_space = false;              // the response is kept as `factors` instead
  std::vector<std::array<int, 4>> dofs;  // per row: [b0, e0) and [b1, e1) of its column
  std::vector<int> offset;               // per row: where its entries start in `values`
  std::vector<double> values;            // the columns' entries on those ranges, packed
  JointSpaceResponse factors;
};
//
//
// An island's block is kept sparse when its rows couple few others: a stack of boxes, whose
// box's contacts meet only the neighbouring boxes' (its G costs O(rows), not O(rows²), and the
// solver's factor of G + ρI O(rows), not O(rows³)).
//
// An island of more rows than its bodies have velocities, every body free on its own (no
// joint, no weld, no bilateral row: a pile of boxes, whose faces meet at four corners each),
// keeps G as its factor B (LowRankDelassus, engine/contact/ncp.hpp).
struct IslandMatrix {
  bool sparse = false;
  bool factored = false;  // G kept as LowRankDelassus (then `sparse` is false)
  Eigen::MatrixXd dense;
  Eigen::SparseMatrix<double> coupled;  // both triangles, every diagonal entry stored
  LowRankDelassus low_rank;
  Eigen::Index size() const {
    return factored ? low_rank.B.rows() : sparse ? coupled.rows() : dense.rows();
  }
  double diagonal(Eigen::Index k) const {
    return factored ? low_rank.diagonal(k) : sparse ? coupled.coeff(k, k) : dense(k, k);
  }
  // y += G x
  template <class X, class Y>
  void add_product(const X& x, Y&& y) const {
    if (factored)
      low_rank.add_product(x, y);
    else if (sparse)
      y.noalias() += coupled * x;
    else
      y.noalias() += dense * x;
  }
};

// A body's or a composite's inertia about the world origin: the 6 × 6 map
// [m 1, −h×; h×, J] from a twist about the origin to the momentum about it
struct InertiaAboutOrigin {
  double mass = 0.0;
  Vec3 h = Vec3::Zero();  // the first moment, mass × centre
  Mat3 J = Mat3::Zero();  // the rotational inertia about the origin
};
// joint_space_delassus()'s workspace (M, its factor and Jᵀ are formed in the response's
// JointSpaceResponse)
struct JointSpaceScratch {
  std::vector<Vec6> S;                // the joint columns about the world origin
  std::vector<InertiaAboutOrigin> I;  // the composite inertias about it
};
//
// What tree_delassus() and row_velocities() work in, kept by a caller that calls them every
// step (the contact stepper): once its vectors hold a step's rows, nothing is allocated.
struct DelassusScratch {
  std::vector<int> island, island_start, top, end, top_start, top_rows, seen, fill;
  std::vector<int> free_body, column;  // per body: free on its own; its column in B (−1)
  std::vector<char> closed;            // per island: on free bodies alone
  std::vector<Vec6> y6;                // per row and side: Sᵀ f of its wrench (closed islands)
  std::vector<Vec6> r6;                // and its response on the body, D⁻¹ Sᵀ f
  std::vector<std::pair<int, int>> by_body;  // a closed island's (body, 2 × row + side)
  std::vector<std::array<int, 2>> row_tops;
  std::vector<int> row_joint, row_side;  // one-body islands: each row's tree joint and side
  Eigen::VectorXd e, y;
  std::vector<SpatialMotion> a, V;
  JointSpaceScratch joint_space;
};
//
// `tree_diagonal` (optional): each row's response on the tree alone, (J M⁻¹ Jᵀ)_kk, before
// the bilateral rows' reaction; G_kk / (J M⁻¹ Jᵀ)_kk is the squared sine of the angle by
// which row k stands out of the bilateral rows (rank_policy.hpp, P2): zero for a row the
// bodies cannot move (a limit on a prescribed joint).  Equal to G's diagonal without
// bilateral rows.
void tree_delassus(const Model& m, Data& d, const std::vector<TwistRow>& rows, Eigen::MatrixXd& G,
                   Eigen::MatrixXd& response, const std::vector<int>* first = nullptr,
                   ResponseSupport* support = nullptr, std::vector<IslandMatrix>* islands = nullptr,
                   Eigen::VectorXd* tree_diagonal = nullptr, DelassusScratch* scratch = nullptr);
// du += response λ, on the written entries only
void add_response(const Eigen::MatrixXd& response, const ResponseSupport& support,
                  const Eigen::VectorXd& lambda, Eigen::VectorXd& du);

// G by the joint-space mass matrix (joint_space_delassus.cpp), on a tree of at most
// kJointSpaceVelocities velocities with no bilateral extra rows, no welded bodies and no
// particles (joint_space_applies): M by composite rigid bodies, its Cholesky factor, the
// rows' columns M⁻¹ Jᵀ as their factors (support.joint_space) and each island's block of
// J M⁻¹ Jᵀ, with `tree_diagonal` its diagonal.  False, with the outputs untouched but
// support.factors, when M is not positive definite to its factor (then the recursion's
// way applies).
constexpr int kJointSpaceVelocities = 32;
struct RecursiveWorkspace;
bool joint_space_applies(const Model& m, const Data& d);
bool joint_space_delassus(const Model& m, const Data& d, const RecursiveWorkspace& ws,
                          const std::vector<TwistRow>& rows, const std::vector<int>& island_start,
                          std::vector<IslandMatrix>& islands, ResponseSupport& support,
                          Eigen::VectorXd* tree_diagonal, JointSpaceScratch& w);
// du += L⁻¹ (Y λ): joint_space_delassus()'s response to λ            [RBDA Table 6.4]
void add_joint_space_response(const JointSpaceResponse& f, const Eigen::VectorXd& lambda,
                              Eigen::VectorXd& du);
// M and its factor at the last kinematics on d, into f (f.fresh: joint_space_delassus at the
// same q takes them as they are); false when M is not positive definite to its factor.
// Needs joint_space_applies.  O(n · depth)
bool joint_space_factor(const Model& m, const Data& d, const RecursiveWorkspace& ws,
                        JointSpaceScratch& w, JointSpaceResponse& f);
// x ← M⁻¹ x by the factor M = Lᵀ L: Lᵀ y = x tip to base, then L x = y base to tip
// [RBDA Table 6.4].  O(n · depth)
void solve_joint_space(const JointSpaceResponse& f, Eigen::VectorXd& x);

// J u: the rows' velocities at the joint quasi-velocities u, with the motion subspaces of
// the last kinematics on d (its q).  O(n + rows).
void row_velocities(const Model& m, Data& d, const std::vector<TwistRow>& rows,
                    const Eigen::Ref<const Eigen::VectorXd>& u, Eigen::VectorXd& out,
                    DelassusScratch* scratch = nullptr);

}  // namespace appell
