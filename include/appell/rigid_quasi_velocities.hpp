// A rigid-body scene in the quasi-velocities its user chooses (docs/lagrangian.md,
// "Rigid-body scenes in your quasi-velocities").
//
// Ref: [L96] A. D. Lewis, "The geometry of the Gibbs-Appell equations and Gauss's principle
// of least constraint", Rep. Math. Phys. 38 (1996) 11-28, §5.3 and §7.  [UK98] F. E. Udwadia,
// R. E. Kalaba, Quart. Appl. Math. 56 (1998) 277-288.
//
// A scene of bodies and joints runs in the joint coordinates q and quasi-velocities u of
// its spanning tree (appell/tree.hpp, appell/model.hpp State); the constraints beyond the
// tree (loops, rolling, expressions) are m rows A(q) u̇ = b(q, u, t) in those coordinates.
// Its top-level "quasi_velocities" choose k = nu − m quasi-velocities ν, each an expression
// affine in the velocities (v̄, ω of bodies, joint rates qd(j)) of the scene language:
//   ν = C(q, t) u + s(q, t)
// The scene is then exactly the system the Lagrangian machinery solves
// (appell/lagrangian.hpp), with the tree's u in the place of q̇:
//   M(q)       the joint-space mass matrix (mass_matrix(), the Gibbs function's Hessian in u)
//   f(q, u, t) = −ID(q, u, 0) = Q_applied − C(q, u) u   (inverse_dynamics(), RNEA)
//   A, α       the extra rows in tree coordinates, A u̇ = −α  (α = −b_T)
//   C, β       the quasi-velocities' rows, ν̇ = C u̇ + β
// so that u = Y ν + y and u̇ = Y ν̇ + Z on the constraint set [L96 §5.3], the Gibbs–Appell
// equations in ν read  Yᵀ M Y ν̇ = Yᵀ (f − M Z)  [L96 (5.4)], and Gauss's principle with M
// as the metric gives u̇ and the multipliers by the generalized inverse [L96 Thm 7.1;
// UK98 (26)].  The state integrated is (q, ν) with q̇ = N(q) u (J4).
//
// Rows that repeat others (a planar loop's) are left out: the system keeps an independent
// subset, chosen at t = 0.  Cost of one evaluation: O(nbody · (n + nu²)) for M, O(n) for
// f, O((m + k) · n) for the rows, then O(nu³) for the solves.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "appell/data.hpp"
#include "appell/lagrangian.hpp"
#include "appell/lagrangian_run.hpp"
#include "appell/scene.hpp"

namespace appell {

// One quasi-velocity a scene chooses (its top-level "quasi_velocities"): an expression
// affine in the velocities, in the variables of expression constraints and joint rates.
struct SceneQuasiVelocity {
  std::string name;
  Expression expression;
  std::string pointer;  // "/quasi_velocities/<i>", for errors found after parsing
};

struct RigidNuSystem {
  Model model;
  std::vector<SceneQuasiVelocity> quasi_velocities;  // k
  std::vector<int> rows;  // the extra rows kept (indices among the tree's extra rows), m
  int max_nodes = 1;      // the largest tape among the quasi-velocities
  // names for outputs: the tree's q and u entries ("<joint>.q", "<joint>.u2"; a root's
  // free joint by its body), the kept rows ("<constraint>" or "<constraint>.<row>")
  std::vector<std::string> q_names, u_names, row_names;
  int n() const { return model.state_nu(); }
  int nq() const { return model.state_nq(); }
  int m() const { return static_cast<int>(rows.size()); }
  int dof() const { return static_cast<int>(quasi_velocities.size()); }
};

// The workspace of one evaluation, sized once.
struct RigidNuData {
  explicit RigidNuData(const RigidNuSystem& s);
  Data data;            // the engine's: body states, rows (by rigid_nu_terms)
  LagrangianData r;     // the reduced system and both forms: M, f, A, W, Y, H, F_nu, nudot,
                        // qdd (= u̇), lambda, Qc (appell/lagrangian.hpp)
  double energy = 0.0;  // kinetic + potential, by rigid_nu_terms()
  // work of rigid_nu_terms()
  std::vector<SpatialMotion> a0;
  std::vector<SpatialForce> w;
  std::vector<double> grad, scratch;
  Eigen::MatrixXd A_all;
  Eigen::VectorXd b_all, tau, col, zero;
};

// M, M's factor, f, the kept rows (A, r, alpha, g) and the quasi-velocities' rows (W, nu,
// beta) at the tree state x, into d.r; the energy into d.energy.  NotRegular when M is
// not positive definite, NotFinite (with d.r.message) when a term is not.
LagrangianStatus rigid_nu_terms(const RigidNuSystem& s, const State& x, RigidNuData& d);

// Everything at x: the terms, u = Y ν + y, and both forms.  The one call eval makes.
LagrangianStatus evaluate_rigid_nu(const RigidNuSystem& s, const State& x, RigidNuData& d);

// u on the constraint set for quasi-velocities ν at (t, q): u = Y ν + y.
LagrangianStatus rigid_rates_of(const RigidNuSystem& s, double t, const Eigen::VectorXd& q,
                                const Eigen::VectorXd& nu, RigidNuData& d, Eigen::VectorXd& u);

// The system of a scene's quasi-velocities on its compiled model, checked at
// the initial state `x0` (the tree state a run starts from, velocities on the rows): as many
// as the degrees of freedom, each affine in the velocities, independent on the constraint
// set.  Throws SceneError at /quasi_velocities (or /quasi_velocities/<i>) otherwise.
RigidNuSystem make_rigid_nu_system(const std::vector<SceneQuasiVelocity>& quasi_velocities,
                                   const Model& model, const State& x0, const std::string& file);

// Runs (q, ν) from x0 (rk4 with the holonomic rows' drift projected out after each step
// and quaternions normalised, or dopri5), as integrate_lagrangian() does; the samples'
// q is the tree's q (nq), qd its u (nu).
LagrangianRunResult integrate_rigid_nu(const RigidNuSystem& s, const State& x0,
                                       const LagrangianRun& run,
                                       const std::function<void(const LagrangianSample&)>& sample);

// δẋ = A δx in x = (q, ν) about x0 (q: the tree's nq coordinates, quaternions as their
// four components), by Richardson-extrapolated central differences of exact evaluations
// (error O(h⁶); steps 1e-2 in q, 1e-1 in ν, scaled by max(1, |x_j|)).  A quaternion's norm and the
// holonomic rows' values are conserved by the motion: each adds a zero eigenvalue.
LagrangianStatus linearize_rigid_nu(const RigidNuSystem& s, const State& x0, Eigen::MatrixXd& A,
                                    std::string& message);

// A scene of bodies with "quasi_velocities": the system, the state it starts from (the
// scene's, velocities projected onto the rows as every run does: appell/forward.hpp
// initial_conditions) and its integrator settings (rk4 or dopri5).
struct RigidNuScene {
  RigidNuSystem system;
  State initial;
  double velocity_correction = 0.0;  // what the projection changed, in the mass metric
  LagrangianRun run;
};

// True when the document is a JSON object with the top-level key "quasi_velocities" (and
// no "lagrangian": a Lagrangian system names its own).
bool is_rigid_nu_text(const std::string& text);

// Loads, compiles and checks (make_rigid_nu_system) a scene with "quasi_velocities"; throws
// SceneError (file, JSON Pointer, message).
RigidNuScene load_rigid_nu_scene(const std::string& path);
RigidNuScene load_rigid_nu_scene_from_string(const std::string& text, const std::string& file);

}  // namespace appell
