// The equations of motion at one instant: forward() and what it leaves in Data.
//
// forward() is a flat pipeline of stages (engine/assembly/stages.hpp, internal):
//   kinematics           q, u → body states, world inertias (the recursion: from the
//                        joint coordinates, once)
//   applied_forces       gravity and forces → F (with the gyroscopic −ω×Jω)
//   constraint_rows      rows of A u̇ = b, π, g; Baumgarte if asked (the recursion: the
//                        rows beyond its tree only)
//   solve                u̇ and λ, by the chosen formulation
//   constraint_reactions λ → force and moment per constraint per body
//
// Costs are per call: O(n) for `recursive` on a tree, O(n + rows) for `sparse` on sparse
// rows, O(n³) for the dense `pinv` and `gibbs-appell`.
#pragma once

#include "appell/data.hpp"

namespace appell {

// The full pipeline with formulation f (Auto: the model's choice, resolved by
// resolve_formulation).  Reads d.t, d.q, d.u.  Writes every output field of d.
// Returns d.diagnostics.status.
// On a maximal state.  `recursive` evaluates the joint-space State d.q, d.u were set from
// (d.state, by set_state() or Data(m)) while they are unchanged, and reads the joint
// coordinates off them (O(n)) once the caller has changed them.
// Throws std::invalid_argument when d was not built for m (check()).
SolveStatus forward(const Model& m, Data& d, Formulation f = Formulation::Auto);
SolveStatus forward(const Model& m, Data& d, const SolverOptions& o);
// On a joint-space State (set_state, then the formulation; `recursive` reads s.q, s.u
// and computes the body states once).  Leaves d.state = s.
SolveStatus forward(const Model& m, Data& d, const State& s, const SolverOptions& o = {});
// What initial_conditions() found and made of the state it was given.
struct InitialConditions {
  State state;                       // the state a run starts from: s, velocities projected
  double position_violation = 0.0;   // the largest |g| of the holonomic rows at s
  int violated_constraint = -1;      // its constraint (−1: none)
  double velocity_correction = 0.0;  // ‖Δu‖ in the mass metric, sqrt(Δuᵀ H Δu)
  double velocity_residual = 0.0;    // the largest |π| after the projection
  bool projected = false;            // positions held and the velocities were projected
                                     // (a failure after that is forward()'s)
};

// The state a run starts from (docs/scene-format.md, "Initial conditions"), in the joint
// coordinates of s: the holonomic rows must hold at s to 1e-6 (else Inconsistent, "initial
// positions violate constraint 'NAME' by G (tolerance 1e-6)", and nothing else is done);
// then its velocities are projected onto the constraints in the mass metric (nothing
// changes when they are consistent; engine/formulations/projection.hpp, J-P2), and d is
// evaluated there with forward(m, d, state, o).  Simulation start, `appell eval`, Python's
// evaluate() and scene loading all start from it.  `start` (optional) receives the
// projected state and the numbers above.  Returns d.diagnostics.status (its message says
// what failed).  Throws std::invalid_argument when s does not have the model's sizes.
SolveStatus initial_conditions(const Model& m, Data& d, const State& s, const SolverOptions& o = {},
                               InitialConditions* start = nullptr);

// The recursive formulation on the joint coordinates q (tree.nq), u (tree.nu) of the
// model's spanning tree (engine/model/tree.hpp) at d.t: body states are computed once from q, u
// (no maximal coordinates are read or written; d.q, d.u are left as they are).  Writes
// every other output field of d, and the joint u̇ (joint_accelerations), except the tree
// joints' canonical rows, which are never formed: their multipliers and reactions come in
// closed form from the recursion's joint forces (docs/recursive.md).  O(n) on a tree.
SolveStatus forward_tree(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                         const Eigen::Ref<const Eigen::VectorXd>& u, const Stabilization& st = {});

// The formulation `Auto` stands for on this model: recursive when it has joints and at
// most kAutoSparseExtraRows rows beyond its spanning tree, else sparse.  Per evaluation the
// recursion costs O(n (1 + m) + m³) for m extra rows and sparse about O(n) whatever m; on
// the standard chain with m extra rows (BM_ExtraRows, bench/formulations_bench.cpp) sparse
// is the faster evaluation from m ≈ 4 (n = 10, 100) or m ≈ 7 (n = 1000).  But a simulation
// in maximal coordinates takes more steps than one in joint coordinates (the flyball
// governor, m = 10: 11 s against 0.12 s; the four-bar chain, m = 20: 4.5 s against 0.8 s),
// so `auto` switches only where the recursion is several times slower per evaluation:
// at m = 30, 2.4× (n = 1000) to 95× (n = 10), growing like m³.  O(constraints).
constexpr int kAutoSparseExtraRows = 24;
Formulation resolve_formulation(const Model& m, Formulation f);

// Energy: kinetic + gravitational (V = −Σ m g·x̄) + forces' potentials.  Reads d.body; a
// joint's armature (rotor inertia) reads the joint's u off the body states (allocates).
double kinetic_energy(const Model& m, const Data& d);
double potential_energy(const Model& m, const Data& d);
// The same at the joint-space State s of d's body states (a run's sample): the rotors'
// ½ a u² from s.u, and a joint force's potential (a joint spring's ½ k |q − q0|²) from s.q
// where the tree runs its joint in its own direction (TreeModel::force_joint), with no
// joint coordinates read back.  O(n), no allocation.
double kinetic_energy(const Model& m, const Data& d, const State& s);
double potential_energy(const Model& m, const Data& d, const State& s);

// The Gaussian G(ü) = ½ (ü − a)ᵀ M (ü − a), a = M⁻¹F  [UK96 eq. 9].  Reads d.J, d.F.
double gaussian(const Model& m, const Data& d, const Eigen::VectorXd& udot);

}  // namespace appell
