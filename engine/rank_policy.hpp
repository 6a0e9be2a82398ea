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
// 2. Dependent means "within τ of the rows kept before it".  Row k is dependent when its
//    distance to the span of the rows already kept is below τ, in that scale:
//        sin θ_k = ‖(I − P_kept) C_kᵀ‖ < τ,                                          (P2)
//    θ_k the angle between row k and the kept rows in the metric M⁻¹.  This is the pivot
//    |r_kk| of a column-pivoted QR of Cᵀ (pinv, gibbs-appell, projection), the square root
//    of the pivot d_k of an LDLᵀ of Ĝ (sparse), and the square root of an eigenvalue of the
//    Schur complement of the tree rows in Ĝ (recursive's extra rows: the tree joints are
//    eliminated first and never dependent).  Dependent rows get no multiplier of their own;
//    the kept rows carry their force.  Exactly redundant rows have sin θ ≈ 1e-16..1e-13;
//    rows of a regular configuration have sin θ ≥ 1e-3 in practice.
//
// 3. τ follows the drift.  Redundancy is a property of the constraint manifold.  A state
//    that has drifted off it by a distance δ turns an exactly redundant row (Bricard's loop)
//    into one at an angle ~δ/ℓ from the others, ℓ the lever arm; counting it would lock the
//    mechanism (the row's multiplier grows like 1/sin θ and the motion freezes).  So
//        τ = max(τ₀, min(κ ν, τ_max)),   τ₀ = 1e-6,  κ = 10,  τ_max = 1e-5,              (P3)
//    where ν is the drift as an angle: for each holonomic row, the mass-metric distance to
//    its own manifold |g_k|/ρ_k (√kg·m) divided by √(m ρ_g²) = sqrt(tr J₀/2) of the lightest
//    (in rotation) rigid body in the row (√kg·m): ν = max_k |g_k| / (ρ_k sqrt(tr J₀/2)).
//    τ₀ = 1e-6 lies six decades above round-off and three below the angles of regular
//    configurations, and above the drift of any run we would call accurate (ν < 1e-7).
//    τ stops growing at τ_max: a state off by more than ν = 1e-6 is not a drifting motion
//    but an arbitrary point (a broken run, or a test's random state), where a larger τ
//    would only drop regular rows; projection is the remedy there, not the rank.
//    An axis tilted by 3e-8 rad (a mechanism that is rigid on paper but mobile to every
//    practical purpose) is therefore judged mobile by every formulation alike.
//
// 4. Through a singular position.  Where a mechanism passes a singular configuration (a
//    parallelogram going flat), the angle of some row falls through τ and back.  While
//    sin θ < τ the row is dropped; with an exact state that row's share of the true
//    solution x* is (v_sᵀ x*) v_s with |v_sᵀ x*| ≤ |x*| (the right side's component along
//    the vanishing direction is itself O(sin θ)), so the acceleration stays bounded, the
//    error lasts only while sin θ < τ (a time 2τ/|dθ/dt|), and the velocity error it leaves
//    is O(τ |x*| / |dθ/dt|): about 1e-6 of a velocity, which `projection` removes at the
//    next step.  Keeping such a row instead (a threshold at round-off) divides the drift ε
//    of the state by sin θ: the acceleration blows up as ε/sin θ and the motion jumps to
//    another branch.  A damped least-squares step, (Ĝ + μ²I)⁻¹, would also be continuous
//    but perturbs every regular row by μ²/σ² and amplifies the round-off in the null space
//    of exactly redundant rows by 1/μ²: unfit for the multipliers we report.
//
// 5. Consistency.  A dropped row is still checked: its residual may be up to τ of the
//    accelerations' size (its share of x*), so the consistency test (check_consistency)
//    uses the tolerance kConsistencyFactor·τ relative to each row's own scale.  A real
//    contradiction leaves a residual of the size of b itself.
//
// Multipliers.  The reported λ are the minimum-norm multipliers [UK96 eq. 22, h = 0] of the
// scaled rows: λ = D μ with μ the minimum-norm solution of Âᵀ μ = (M u̇ − F).  Written for
// Â rather than A, the split of a force among redundant rows does not depend on the units
// or the size a row was written with.  The total force on each body, Aᵀλ, is unique.
// `sparse` and `recursive` report the basic multipliers of their elimination (a dependent
// row's multiplier is 0 and the rows kept before it carry its force): the same forces on
// every body, a different split among redundant rows (sparse.hpp, recursive.hpp).
#pragma once

#include <Eigen/QR>
#include <vector>

#include "engine/data.hpp"

namespace appell {

constexpr double kDependentSine = 1e-6;      // τ₀ (P3)
constexpr double kDriftFactor = 10.0;        // κ (P3)
constexpr double kDriftSineLimit = 1e-5;     // τ_max (P3)
constexpr double kConsistencyFactor = 10.0;  // consistency tolerance = kConsistencyFactor·τ

// ρ_k = ‖A_k‖_{M⁻¹} of every row (P1).  Reads d.terms, d.J.  O(terms).
void row_responses(const Model& m, const Data& d, Eigen::VectorXd& rho);

// τ of the current state (P3).  Reads d.position_residual and ρ.  O(terms).
double dependence_tolerance(const Model& m, const Data& d, const Eigen::VectorXd& rho);

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
  std::vector<Mat3> Jinvsqrt_, Jsqrt_;
};

// Generalized inverse of the unit-response rows C = D A M^{-1/2} by one complete orthogonal
// decomposition of Cᵀ, whose column pivoting is the greedy order of (P2) and whose
// threshold is τ (the largest pivot is 1: the rows are unit).  O(m² n).
class UnitRowInverse {
 public:
  // C: rows scaled to unit length (a zero row stays zero and is never kept).
  void compute(const Eigen::MatrixXd& C, double tau);
  int rank() const { return static_cast<int>(cod_.rank()); }
  // y = C⁺ e, the minimum-norm least-squares solution of C y = e        [UK96 eq. 4]
  Eigen::VectorXd solve(const Eigen::VectorXd& e) const;
  // μ = (Cᵀ)⁺ f, the minimum-norm multipliers of the unit rows for the force f = Cᵀμ
  Eigen::VectorXd multipliers(const Eigen::VectorXd& f) const;

 private:
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod_;
};

// Marks d.diagnostics Inconsistent (naming the constraints) when a row of A u̇ = b is
// violated by more than kConsistencyFactor·τ of its own scale:
//     |A_i u̇ − b_i| > kConsistencyFactor τ (|b_i| + Σ_j |A_ij u̇_j| + ρ_i s),
//     s = |M^{1/2} u̇| + |M^{-1/2} F| + max_k |b_k| / ρ_k,
// every term in the row's own units.  Also records the relative residual.  Reads d.terms,
// d.b, d.udot, d.F, d.J.  O(terms).
void check_consistency(const Model& m, Data& d, const Eigen::VectorXd& rho, double tau);

}  // namespace appell
