// The stages forward() runs, in order (internal to the library).  Each says what it reads
// and writes; a stage is valid only after the ones before it.
#pragma once

#include <vector>

#include "appell/data.hpp"
#include "engine/model/composites.hpp"

namespace appell {

// Welded bodies (engine/model/composites.hpp, W0): a row term (lin, ang) on body b of
// composite k, r = x̄_b − x̄_k, acts on k as (lin, ang + r × lin), and the row's right
// side loses lin · ω_k × (ω_k × r); a wrench (f, τ) on b is (f, τ + r × f) on k.     (W1)
// These folds happen here, in one place: no constraint or force knows of the composites.

// the row terms in composite coordinates: d.cterms when welded (after fold_rows), else
// d.terms
inline const SpatialForce* composite_terms(const Model& m, const Data& d) {
  return m.merged() ? d.cterms.data() : d.terms.data();
}
// Reads d.terms, d.body, d.composite.  Writes d.cterms (W1; zero on internal rows) of the
// listed constraints (all when null) and, when `right_side`, moves d.b onto the composites'
// accelerations (W1; 0 on internal rows).  No-op unwelded.  O(terms).
void fold_rows(const Model& m, Data& d, bool right_side, const std::vector<int>* only = nullptr);

// A particle has no ω (appell/body.hpp): no row has a ∂π/∂ω for it and no moment acts on
// it.  These drop the moments that con's `rows` rows of terms or reactions (rows × bodies,
// row-major) or the applied forces gave one anyway, where they are formed, so that every
// pass after them (A, the reactions, the rank policy, the recursion, the RNEA) takes a
// body's angular parts whole, without asking what the body is: a particle's J, ω and
// moments are zeros.  O(terms), O(n).
void drop_particle_moments(const Model& m, const Constraint& con, SpatialForce* terms, int rows);
void drop_particle_moments(const Model& m, std::vector<SpatialForce>& applied);

// Reads d.q, d.u.  Writes d.body, d.J (and d.composite, d.Jc).  O(n).
void kinematics(const Model& m, Data& d);
// Reads d.body, d.J.  Writes d.applied, d.F (generalized: f, τ − ω×Jω).  O(n).
void applied_forces(const Model& m, Data& d);
// The same without the forces k with skip[k] (the recursion's joint-space forces, which it
// adds into τ instead: recursive_applied_forces).  O(n).
void applied_forces(const Model& m, Data& d, const std::vector<char>& skip);
// Reads d.body, d.t.  Writes d.terms, d.b, d.velocity_residual, d.position_residual,
// then applies `st` (Baumgarte; nothing for the others) to d.b.  O(rows).
void constraint_rows(const Model& m, Data& d, const Stabilization& st = {});
// The same for the listed constraints only (the others' rows are left as they were).
// O(their rows).
void constraint_rows(const Model& m, Data& d, const std::vector<int>& constraints,
                     const Stabilization& st = {});
// Reads d.terms (folded onto the composites here, W1).  Writes d.A (dense, rows × nu).
// O(rows · nu).
void dense_rows(const Model& m, Data& d);
// Reads d.lambda, d.terms.  Writes d.reaction.  O(terms).
void constraint_reactions(const Model& m, Data& d);
// The multipliers and reactions of the internal rows (the merged fixed joints), which the
// maximal formulations leave 0: Newton–Euler of the welded subtree below each such joint,
// tip to base, from the bodies' accelerations, applied forces and the other rows'
// reactions (as the recursion's R15).  Reads d.udot, d.body, d.J, d.applied, d.reaction.
// Writes d.lambda and d.reaction of the internal rows.  No-op unwelded.  O(n + slots).
void weld_reactions(const Model& m, Data& d);
// The same for the listed constraints only.  O(their terms).
void constraint_reactions(const Model& m, Data& d, const std::vector<int>& constraints);

// Generalized mass matrix action y = M x and its inverse (block diagonal: m I, J per
// composite).  O(n).
void multiply_mass(const Model& m, const Data& d, const Eigen::VectorXd& x, Eigen::VectorXd& y);
void solve_mass(const Model& m, const Data& d, const Eigen::VectorXd& x, Eigen::VectorXd& y);

}  // namespace appell
