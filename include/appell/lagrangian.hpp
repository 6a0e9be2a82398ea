// Lagrangian systems in the quasi-velocities the user chooses (docs/lagrangian.md).
//
// Ref: [L96] A. D. Lewis, "The geometry of the Gibbs-Appell equations and Gauss's
// principle of least constraint", Rep. Math. Phys. 38 (1996) 11-28.  [UK98] F. E. Udwadia,
// R. E. Kalaba, "The explicit Gibbs-Appell equation and generalized inverse forms",
// Quart. Appl. Math. 56 (1998) 277-288.
//
// A system is n named coordinates q, a regular Lagrangian L(q, q̇, t), generalized forces
// Q(q, q̇, t), m constraint rows and n − m quasi-velocities, all expressions of the scene
// language (appell/expression.hpp) in q(c), qd(c) and t:
//   affine rows      r(q, q̇, t) = γ(q, t) q̇ + γ₀(q, t) = 0           [L96 §4.3]
//   holonomic rows   g(q, t) = 0, whose velocity row is ġ = G q̇ + ∂g/∂t
//   nonlinear rows   φ(q, q̇, t) = 0, ∂φ/∂q̇ of full rank           [L96 §4.3 (4.1); UK98 (2)]
//   quasi-velocities ν = C(q, t) q̇ + s(q, t)                             [L96 §5.3]
// The constraint rows and the quasi-velocities together are solved for the rates on the
// constraint set,  q̇ = B ν + r  (L96's B and r; Y and y in docs/lagrangian.md), and the
// state integrated is (q, ν).  With rows nonlinear in the rates the rates are found from ν by
// Newton's method (rates_of) and Y, y are the tangent of the constraint set at the state.
//
// LagrangianSystem is constant (the Model); LagrangianData is the workspace of one
// evaluation, sized once; functions taking a LagrangianData never allocate.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "appell/expression.hpp"

namespace appell {

// One row: an expression affine in the rates (a constraint r = 0 or a quasi-velocity
// ν = r), or a holonomic g(q, t) = 0, whose row is ġ, or a constraint φ(q, q̇, t) = 0
// nonlinear in the rates (not affine in them as written: engine/lagrangian/rate_degree.cpp).
struct LagrangianRow {
  std::string name;
  Expression e;
  bool holonomic = false;
  bool nonlinear = false;  // a constraint not affine in the rates
};

struct LagrangianSystem {
  std::string name;
  std::vector<std::string> coordinates;         // q, n of them
  Expression lagrangian;                        // L(q, q̇, t)
  std::vector<Expression> forces;               // Q_k(q, q̇, t), one per coordinate
  std::vector<bool> has_force;                  // false: Q_k = 0 (forces[k] unused)
  std::vector<LagrangianRow> constraints;       // m rows, independent
  std::vector<LagrangianRow> quasi_velocities;  // n − m, independent on the constraint set
  bool chosen_quasi_velocities = false;         // false: the default rates (docs/lagrangian.md)
  int n() const { return static_cast<int>(coordinates.size()); }
  int m() const { return static_cast<int>(constraints.size()); }
  int dof() const { return static_cast<int>(quasi_velocities.size()); }
  // true when a constraint row is nonlinear in the rates (rates_of() then solves by Newton)
  bool nonlinear() const;
  // the largest tape among the expressions, for LagrangianData's work buffers
  int max_nodes() const;
};

// A state on the constraint set: time, coordinates and rates.
struct LagrangianState {
  double t = 0.0;
  Eigen::VectorXd q, qd;  // n each
};

// How an evaluation ended.  Not Ok: `message` says why (the caller adds when).
enum class LagrangianStatus {
  Ok,
  NotRegular,
  DependentQuasiVelocities,
  NotFinite,
  OffConstraintSet  // rates_of(): Newton found no rates on the constraint set for these ν
};

struct LagrangianData {
  explicit LagrangianData(const LagrangianSystem& s);
  // The buffers of a system of n rates, m constraint rows and k quasi-velocities whose
  // expressions have at most `nodes` tape nodes: what a rigid-body scene in its user's
  // quasi-velocities reduces to (appell/rigid_quasi_velocities.hpp; n = the tree's nu).
  LagrangianData(int n, int m, int k, int nodes);

  // lagrangian_terms()  [L96 §5.2]
  double L = 0.0;       // the Lagrangian's value
  double energy = 0.0;  // the energy function  E = q̇·∂L/∂q̇ − L
  Eigen::VectorXd p;    // ∂L/∂q̇                                            (n)
  Eigen::MatrixXd M;    // ∂²L/∂q̇², the fundamental tensor g of L96 §4.1      (n × n)
  Eigen::VectorXd Q;    // the generalized forces                            (n)
  Eigen::VectorXd f;  // Q + ∂L/∂q − ∂²L/∂q̇∂q q̇ − ∂²L/∂q̇∂t: M q̈ = f + constraint forces (n)
  // velocity_rows() on the constraints
  Eigen::MatrixXd A;  // γ = ∂r/∂q̇                                          (m × n)
  Eigen::VectorXd r;  // the rows' values at (q, q̇, t)                     (m)
  Eigen::VectorXd alpha;  // ṙ − γ q̈ = ∂r/∂q q̇ + ∂r/∂t (holonomic: q̇ᵀ g_qq q̇ + 2 g_qt q̇ + g_tt) (m)
  Eigen::VectorXd g;  // holonomic rows: g(q, t); affine rows: 0            (m)
  // velocity_rows() on the quasi-velocities
  Eigen::MatrixXd W;     // C = ∂ν/∂q̇                                          (k × n)
  Eigen::VectorXd nu;    // ν at (q, q̇, t)                                     (k)
  Eigen::VectorXd beta;  // ν̇ − C q̈                                             (k)
  // quasi_velocity_map()
  Eigen::MatrixXd Y;  // B: q̇ = Y ν + y on the constraint set               (n × k)
  Eigen::VectorXd y;  //                                                    (n)
  Eigen::VectorXd Z;  // q̈ = Y ν̇ + Z                                         (n)
  // gibbs_appell_nu()  [L96 eq. (5.4)]
  Eigen::MatrixXd H;      // the Gibbs function's Hessian in ν̇: Yᵀ M Y          (k × k)
  Eigen::VectorXd F_nu;   // Yᵀ (f − M Z)                                       (k)
  Eigen::VectorXd nudot;  //                                                    (k)
  Eigen::VectorXd qdd;    // Y ν̇ + Z                                             (n)
  // gauss_udwadia_kalaba()  [L96 §7, UK98 eqs. (24)–(26)]
  Eigen::VectorXd qdd_gauss;    //                                             (n)
  Eigen::VectorXd lambda;       // multipliers: constraint forces Aᵀ λ          (m)
  Eigen::VectorXd Qc;           // constraint forces M q̈ − f                   (n)
  Eigen::VectorXd nudot_gauss;  // C q̈ + β                                      (k)

  Eigen::LLT<Eigen::MatrixXd> M_llt;  // M's Cholesky factor; by lagrangian_terms()
  int newton_iterations = 0;  // rates_of(): Newton's iterations (0 when every row is affine)
  std::string message;        // why an evaluation failed

  // work buffers of the tape sweeps (engine/lagrangian/*.cpp), sized by the system
  struct Buffers;
  std::shared_ptr<Buffers> buffers;
};

// L, p, M and f at (t, q, q̇) by nested dual numbers (exact).  O(n · ⌈v/8⌉ · nodes) with v
// the variables of L.  Writes L, energy, p, M, Q, f.
LagrangianStatus lagrangian_terms(const LagrangianSystem& s, const LagrangianState& x,
                                  LagrangianData& d);

// Rows R = ∂r/∂q̇, values, and ṙ − R q̈ of `rows` at (t, q, q̇).  `g` gets the holonomic
// rows' g(q, t) (0 for the others) when not null.
void velocity_rows(const std::vector<LagrangianRow>& rows, const LagrangianState& x,
                   LagrangianData& d, Eigen::MatrixXd& R, Eigen::VectorXd& value,
                   Eigen::VectorXd& bias, Eigen::VectorXd* g);

// Y, y, Z from the stacked [A; W] (writes A, r, alpha, g, W, nu, beta first, at x).
// DependentQuasiVelocities when [A; W] is singular (a pivot below 1e-12 of the largest).
LagrangianStatus quasi_velocity_map(const LagrangianSystem& s, const LagrangianState& x,
                                    LagrangianData& d);

// (Q1)–(Q3) of quasi_velocity_map.cpp from rows already in d (A, r, alpha, W, nu, beta at
// the rates qd): Y, y, Z.  What quasi_velocity_map() does after evaluating the rows, for
// systems whose rows come from elsewhere (a rigid-body scene's, in joint space).
LagrangianStatus quasi_velocity_solve(const Eigen::VectorXd& qd, LagrangianData& d);

// The rates on the constraint set for quasi-velocities ν at (t, q): q̇ = Y ν + y when every
// row is affine in the rates (qd's entry values unused).  With rows nonlinear in the rates,
// [φ(q, q̇, t); C q̇ + s] = [0; ν] is solved by Newton's method from the rates qd holds on
// entry (the branch of the constraint set followed: a run passes the rates of its previous
// evaluation); OffConstraintSet when it does not converge, DependentQuasiVelocities when
// [∂φ/∂q̇; C] is singular on the way.  O(iterations · (rows' sweeps + n³)).
LagrangianStatus rates_of(const LagrangianSystem& s, double t, const Eigen::VectorXd& q,
                          const Eigen::VectorXd& nu, LagrangianData& d, Eigen::VectorXd& qd);

// The Gibbs–Appell equations in ν [L96 (5.4)]: H ν̇ = F_ν.  Needs lagrangian_terms() and
// quasi_velocity_map() at the same state.  NotRegular when H is not positive definite.
LagrangianStatus gibbs_appell_nu(const LagrangianSystem& s, LagrangianData& d);
// The same on d's own sizes (M, Y, Z, f written by whoever reduced the system).
LagrangianStatus gibbs_appell_nu(LagrangianData& d);

// Gauss's principle with M as the metric, by the generalized inverse [UK98 (24), (26)]:
// q̈, λ, the constraint forces and ν̇ = C q̈ + β.  Needs the same as gibbs_appell_nu().
LagrangianStatus gauss_udwadia_kalaba(const LagrangianSystem& s, LagrangianData& d);
// The same on d's own sizes; d.M_llt must hold M's factor.
LagrangianStatus gauss_udwadia_kalaba(LagrangianData& d);

// The checks a loader makes of a row (scenes/lagrangian_scene.cpp):
// true when e is affine in the rates as written: its tape's degree in them
// (engine/lagrangian/rate_degree.cpp).  O(nodes); allocates.
bool affine_in_rates(const Expression& e);
// the largest |∂²e/∂q̇_a∂q̇_b| at x, zero for an expression affine in the rates: one sweep in
// DualNumber<1, DualNumber<8>> per rate and 8 variables (engine/lagrangian/velocity_rows.cpp)
double rate_curvature(const Expression& e, const LagrangianState& x, LagrangianData& d);
// the values at x of e's variables (q(c), qd(c), t), one per e.variables().  Allocates.
std::vector<double> variable_values_at(const Expression& e, const LagrangianState& x);

// Everything at a state: terms, map, both forms.  The one call eval makes.
LagrangianStatus evaluate_lagrangian(const LagrangianSystem& s, const LagrangianState& x,
                                     LagrangianData& d);

}  // namespace appell
