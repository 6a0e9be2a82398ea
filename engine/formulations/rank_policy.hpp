// The rank policy: when a constraint row counts as dependent, the same for every formulation.
//
// Redundant rows are legal [UK96 eq. 22], so each formulation has to decide which rows of
// A u̇ = b carry information.  All of them decide it the same way, on the same numbers.
//
// 1. Each row in its own physical scale.  A row's coefficients have arbitrary units and an
//    arbitrary size (f·v = 0 for any |f|), so the row is measured by its unconstrained
//    response
//        ρ_k = ‖A_k‖_{M⁻¹} = sqrt(A_k M⁻¹ A_kᵀ),                                    (P1)
//    the acceleration a unit multiplier on row k alone would produce, seen by row k.  With
//    D = diag(1/ρ_k) every row of the scaled system Â = D A, b̂ = D b has unit response, and
//    the scaled Gram matrix Ĝ = Â M⁻¹ Âᵀ = C Cᵀ, C = Â M^{-1/2}, has a unit diagonal.
//    Neither the units nor the mass distribution nor the size a row was written with can
//    then change the decision; nor can the largest eigenvalue of the system (the old
//    relative tolerance turned the round-off of an all-redundant block into full rank).
//
// 2. Dependent means "within τ of the other rows".  With C = Σ σ_k u_k v_kᵀ (singular values
//    of the unit rows; σ_k is the sine of the angle by which direction k stands out of the
//    span of the others), a direction is dependent when
//        σ_k < τ.                                                                      (P2)
//    The dense formulations and the projections decide on the SVD itself (UnitRowInverse);
//    sparse on the pivots of an LDLᵀ of Ĝ, d_k = sin² θ_k of row k against the rows kept
//    before it; recursive on the eigenvalues of the Schur complement of the tree rows in Ĝ
//    (its extra rows; tree joints are never dependent).  The three measures coincide for
//    exactly redundant rows (σ ≈ 1e-16) and for regular ones (σ ≫ τ); they can differ in
//    the narrow band σ ≈ τ.  Dependent directions get no multiplier; the kept rows carry
//    their force.
//
// 3. τ and the drift.  Redundancy is a property of the constraint manifold.  A state off it
//    by δ turns an exactly redundant row (Bricard's loop) into one at an angle ~δ/ℓ from
//    the others; counting it would lock the mechanism (its multiplier grows like 1/σ and
//    the motion freezes).  So
//        τ = max(τ₀, min(κ ν, τ_max)),  τ₀ = 1e-4, κ = 10, τ_max = 1e-3,                (P3)
//    ν the drift as an angle: for each holonomic row, the mass-metric distance to its own
//    manifold |g_k|/ρ_k (√kg·m) over sqrt(tr J₀/2) (√kg·m) of the row's rigid body that
//    turns most easily: ν = max_k |g_k| / (ρ_k sqrt(tr J₀/2)).  Beyond ν = 1e-4 the state is
//    not a drifting motion but an arbitrary point (a broken run, a test's random state);
//    τ stops growing there.  An axis tilted by 3e-8 rad (rigid on paper, mobile to every
//    practical purpose) is judged mobile by every formulation alike.
//
// 4. Why τ₀ = 1e-4: the way through a singular position.  Where a mechanism passes a
//    bifurcation (a parallelogram going flat, two branches of the manifold crossing), the
//    positions are known only to round-off ε ≈ 1e-16 across the branches, and the manifold
//    the equations see is then locally a hyperbola α (θ − θ*) ≈ ε rather than two crossing
//    lines.  Followed exactly, it turns the motion onto the other branch with an
//    acceleration ~ ε |u|² / δ³ at a distance δ (radians) from the crossing: that is what
//    made every formulation jump branches or stop.  Below σ ≈ δ ≈ (10³ ε)^{1/3} ≈ 5e-5
//    this spurious turn exceeds 1e-3 of the true accelerations, hence τ₀ = 1e-4 (measured:
//    with τ₀ = 3e-5 the dense formulations fail at the fifth crossing of a chain of
//    parallelograms, with 1e-4 all pass ten).  Inside the window σ < τ the row is dropped:
//    with an exact state the right side's component along it is O(σ), so the dropped share
//    of the solution is bounded by |x*| and lasts only a time 2τ/|dσ/dt|.  The window's
//    error is removed by `projection`, whose first step is always taken (projection.hpp).
//    The price: a regular configuration that is itself within 1e-4 of singular (a slider-
//    crank 1e-4 rad from its dead point) has that row met only to ~1e-4 of its scale.  A
//    damped least-squares step, (Ĝ + μ²I)⁻¹, would blur every regular row by μ²/σ² as well.
//
// 5. Consistency.  A dropped row is still checked: its residual may be up to τ of the
//    accelerations' size, so check_consistency uses kConsistencyFactor·τ relative to each
//    row's own scale.  A real contradiction leaves a residual of the size of b itself.
//
// Multipliers.  The reported λ are the minimum-norm multipliers [UK96 eq. 22, h = 0] of the
// scaled rows: λ = D μ with μ the minimum-norm solution of Âᵀ μ = (M u̇ − F).  Written for
// Â rather than A, the split of a force among redundant rows does not depend on the units
// or the size a row was written with.  The total force on each body, Aᵀλ, is unique.
// `sparse` and `recursive` report the basic multipliers of their elimination (a dependent
// row's multiplier is 0 and the rows kept before it carry its force): the same forces on
// every body, a different split among redundant rows (sparse.hpp, recursive.hpp).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "appell/data.hpp"

namespace appell {

constexpr double kDependentSine = 1e-4;      // τ₀ (P3, item 4)
constexpr double kDriftFactor = 10.0;        // κ (P3)
constexpr double kDriftSineLimit = 1e-3;     // τ_max (P3)
constexpr double kConsistencyFactor = 10.0;  // consistency tolerance = kConsistencyFactor·τ

// ρ_k = ‖A_k‖_{M⁻¹} of every row (P1), or of the rows of `only` (model constraint indices;
// the other entries are left as they are).  Reads d.terms, d.J.  O(terms).
void row_responses(const Model& m, const Data& d, Eigen::VectorXd& rho,
                   const std::vector<int>* only = nullptr);

// τ of the current state (P3): max(τ₀, min(κ ν, τ_max)), ν over every holonomic row or over
// the rows of `only`.  Reads d.position_residual and ρ.  O(rows).
double dependence_tolerance(const Model& m, const Data& d, const Eigen::VectorXd& rho,
                            const std::vector<int>* only = nullptr);

// The per-body symmetric M^{-1/2} (m^{-1/2} I and J^{-1/2} per body).  Reads d.J.  O(n).
class InverseSqrtMass {
 public:
  InverseSqrtMass(const Model& m, const Data& d);
  // X ← X M^{-1/2} (X has nu columns)
  void right_multiply(Eigen::MatrixXd& X) const;
  // y ← M^{-1/2} x
  void apply(const Eigen::VectorXd& x, Eigen::VectorXd& y) const;
  // y ← M^{1/2} x
  void apply_inverse(const Eigen::VectorXd& x, Eigen::VectorXd& y) const;

 private:
  const Model& m_;
  // the composites that have an ω block (particles have none), found once, with their
  // J^{-1/2} and J^{1/2}; the scalings then run over the v̄ blocks and over these
  std::vector<int> turning_;
  std::vector<Mat3> Jinvsqrt_, Jsqrt_;
};

// Generalized inverse of the unit-response rows C = D A M^{-1/2}, from the eigen-
// decomposition of their Gram matrix Ĝ = C Cᵀ = U Σ² Uᵀ (U, Σ: C's left singular vectors
// and values): directions with σ_k < τ are dependent (P2), and with the kept ones
//     y = C⁺_τ e = Cᵀ U_r Σ_r⁻² U_rᵀ e,      μ = (Cᵀ)⁺_τ f = U_r Σ_r⁻² U_rᵀ C f.          (P4)
// Singular vectors vary smoothly with the state, while a column-pivoted QR's choice of rows
// jumps whenever two pivots trade places: inside the window of a singular position that
// made an adaptive integrator take thirty times the steps.  The Gram matrix squares the
// condition number, harmless here: every kept σ² ≥ τ² = 1e-8, far above round-off, one
// step of iterative refinement gives back the digits it costs, and an
// m × m symmetric eigenproblem costs about what the former orthogonal decomposition did
// (Jacobi's SVD of C cost ten times more; Eigen 3.4.0's BDCSVD returned wrong vectors on
// some of our random scenes).  O(m² n + m³).
class UnitRowInverse {
 public:
  // C: rows scaled to unit length (a zero row stays zero and is never kept).
  void compute(const Eigen::MatrixXd& C, double tau);
  int rank() const { return static_cast<int>(inv_sigma2_.size()); }
  // y = C⁺_τ e, the minimum-norm least-squares solution of C y = e      [UK96 eq. 4]
  Eigen::VectorXd solve(const Eigen::VectorXd& e) const;
  // μ = (Cᵀ)⁺_τ f, the minimum-norm multipliers of the unit rows for the force f = Cᵀμ
  Eigen::VectorXd multipliers(const Eigen::VectorXd& f) const;

 private:
  Eigen::MatrixXd C_;           // the unit rows                                (m × n)
  Eigen::MatrixXd U_;           // kept left singular vectors                   (m × r)
  Eigen::VectorXd inv_sigma2_;  // 1/σ_k² of the kept ones                       (r)
};

// Marks d.diagnostics Inconsistent (naming the constraints) when a row of A u̇ = b is
// violated by more than kConsistencyFactor·τ of its own scale:
//     |A_i u̇ − b_i| > kConsistencyFactor τ (|b_i| + Σ_j |A_ij u̇_j| + ρ_i s),
//     s = |M^{1/2} u̇| + |M^{-1/2} F| + max_k |b_k| / ρ_k,
// every term in the row's own units.  Also records the relative residual.  Reads d.terms,
// d.b, d.udot, d.F, d.J.  O(terms); allocates only to name failing constraints.
void check_consistency(const Model& m, Data& d, const Eigen::VectorXd& rho, double tau);

// A solve whose result is not finite (NaN or ∞ where a residual or an acceleration should
// be: a mass matrix beyond double precision, masses or inertias many orders of magnitude
// apart): NotFinite, with `what` and that likely cause in the message.  Returns the status.
SolveStatus report_not_finite(Diagnostics& diag, const std::string& what);

}  // namespace appell
