// The stages forward() runs, in order (internal to the library).  Each says what it reads
// and writes; a stage is valid only after the ones before it.
#pragma once

#include <vector>

#include "appell/data.hpp"

namespace appell {

// Reads d.q, d.u.  Writes d.body, d.J.  O(n).
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
// Reads d.terms.  Writes d.A (dense, rows × nu).  O(rows · nu).
void dense_rows(const Model& m, Data& d);
// Reads d.lambda, d.terms.  Writes d.reaction.  O(terms).
void constraint_reactions(const Model& m, Data& d);
// The same for the listed constraints only.  O(their terms).
void constraint_reactions(const Model& m, Data& d, const std::vector<int>& constraints);

// Generalized mass matrix action y = M x and its inverse (block diagonal: m I, J).  O(n).
void multiply_mass(const Model& m, const Data& d, const Eigen::VectorXd& x, Eigen::VectorXd& y);
void solve_mass(const Model& m, const Data& d, const Eigen::VectorXd& x, Eigen::VectorXd& y);

}  // namespace appell
