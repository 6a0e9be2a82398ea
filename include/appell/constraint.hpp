// Constraints as canonical rows.
//
// Every constraint is a set of scalar rows in the canonical form [HO21 eq. 14]
//
//     π = Σ_bodies ( f · v_A + h · ω ) + e = 0,                                  (C1)
//
// where v_A is the velocity of the material point X_A at which the row acts.  Since
// v_A = v̄ + ω × r_A with r_A = x_A − x̄, the row is linear in the body's maximal
// quasi-velocities u = (v̄, ω) with coefficients
//
//     lin = ∂π/∂v̄ = f,      ang = ∂π/∂ω = r_A × f + h.                            (C2)
//
// (lin, ang) is held as a SpatialForce: lin in its `force`, ang in its
// `moment`.
//
// Differentiating once more (twice for a holonomic g(x̄, Q, t) = 0, whose time derivative
// is π) gives the acceleration-level row of A u̇ = b [UK96 eq. 3]:
//
//     Σ_bodies ( lin · dv̄/dt + ang · dω/dt ) = b,   b = −(everything in dπ/dt that does
//                                                       not multiply an acceleration).   (C3)
//
// Lagrange's prescription [HO21 eq. 15] then says that a row with multiplier λ applies
// the force λ f at X_A and the moment λ h, i.e. the force λ·lin at the centre of mass and
// the moment λ·ang about it.  `lin`/`ang` therefore serve three purposes: the rows of A,
// the constraint forces, and (for holonomic rows) the gradient of g for projection.
//
// Rows may also be nonlinear in the velocities (φ(x, v, t) = 0, [UK98 eq. 2]); then
// lin/ang are ∂φ/∂v̄, ∂φ/∂ω at the current velocity and b is formed the same way.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "appell/body.hpp"

namespace appell {

// Where a constraint writes its rows: a window into the model-wide row arrays.
// Row i's term for the constraint's j-th body is term(i, j); terms arrive zeroed.
// (RowSpanT<Jet>: the same rows in jets, for their derivatives, constraints/row_jet.hpp.)
template <class S>
struct RowSpanT {
  SpatialForceT<S>* terms = nullptr;  // rows × nbodies, row-major
  S* b = nullptr;                     // acceleration-level right side (C3)
  S* velocity = nullptr;              // π: velocity-level residual
  S* position = nullptr;              // g: position-level residual (holonomic rows, else 0)
  int nbodies = 0;
  SpatialForceT<S>& term(int i, int j) const { return terms[i * nbodies + j]; }
};
using RowSpan = RowSpanT<double>;

// One end of a two-body row: the body (kWorld for the ground) and its slot in the
// constraint's body list (−1 for the world).
struct End {
  int body = kWorld;
  int slot = -1;
};

// Base of every constraint.  A constraint names its bodies once (distinct, world
// excluded), declares how many rows it has, and evaluates them on a state.
class Constraint {
 public:
  Constraint(std::string name, std::vector<int> bodies);
  virtual ~Constraint() = default;

  const std::string& name() const { return name_; }
  // the distinct non-world bodies whose velocities appear in the rows
  const std::vector<int>& bodies() const { return bodies_; }
  // position in bodies() of body b, or −1 (the world, or a body not involved)
  int slot(int b) const;

  virtual std::string type() const = 0;
  virtual int rows() const = 0;
  // true when row i comes from a position-level g = 0 (then `position` is meaningful)
  virtual bool holonomic(int row) const = 0;
  // Writes lin/ang, b, π and g of every row.  Reads only `in`; never allocates.
  virtual void evaluate(const StateView& in, const RowSpan& out) const = 0;
  // The rows as evaluate() writes them into `out`, and into `dout` their exact derivatives
  // along `tangent`: a view whose bodies hold the derivatives (dx̄, dQ, dv̄, dω) of `in`'s
  // body states along one direction of the state (the world's are zero).  dout gets the
  // derivatives of lin, ang, b and π; dout.position is not written.  The derivatives of
  // constrained dynamics (appell/derivatives.hpp) are built on it.  Returns false when the
  // constraint gives none (the default: callables, expressions, prescribed motion).
  virtual bool evaluate_tangent(const StateView& /*in*/, const StateView& /*tangent*/,
                                const RowSpan& /*out*/, const RowSpan& /*dout*/) const {
    return false;
  }
  // doubles of StateView::scratch that evaluate() uses (0: none)
  virtual size_t scratch_size() const { return 0; }

 private:
  std::string name_;
  std::vector<int> bodies_;
};

using ConstraintPtr = std::shared_ptr<const Constraint>;

// The distinct non-world entries of `bodies`, in order of first appearance.
std::vector<int> distinct_bodies(const std::vector<int>& bodies);

}  // namespace appell
