// `expression` constraints (docs/scene-format.md): one scalar equation written in the scene
// language (constraints/expression.hpp), at the position or the velocity level.
//
// Velocity level, φ(x̄, v̄, ω, t) = 0, possibly nonlinear in the velocities [UK98 eq. 2]:
//     lin = ∂φ/∂v̄,  ang = ∂φ/∂ω  (at the current state),
//     b   = −(∂φ/∂x̄ · v̄ + ∂φ/∂t),                                              (X1)
// since dφ/dt = ∂φ/∂v̄·dv̄/dt + ∂φ/∂ω·dω/dt + ∂φ/∂x̄·v̄ + ∂φ/∂t; φ cannot depend on the
// orientation, so ω enters A only.  π = φ.  [UK98 eq. 30] is this rule for Appell's
// constraint.
//
// Position level, g(x̄, t) = 0 (no velocities allowed):
//     lin = ∂g/∂x̄,   π = ∂g/∂x̄ · v̄ + ∂g/∂t,
//     b   = −(v̄ᵀ ∂²g/∂x̄² v̄ + 2 ∂²g/∂x̄∂t · v̄ + ∂²g/∂t²),                          (X2)
// the velocity-product part of g̈, exactly: 2 f₂ of the Taylor sweep (expression.hpp E3).
// Cost per evaluation: one sweep of the tape, O(nodes · (variables + 3)); no allocation.
#pragma once

#include "appell/constraint.hpp"
#include "appell/expression.hpp"

namespace appell {

class ExpressionConstraint final : public Constraint {
 public:
  enum class Level { Position, Velocity };
  // Throws ExpressionError when a position-level equation reads a velocity, or when the
  // equation names no body.
  ExpressionConstraint(std::string name, Expression equation, Level level);
  std::string type() const override { return "expression"; }
  int rows() const override { return 1; }
  bool holonomic(int) const override { return level_ == Level::Position; }
  void evaluate(const StateView& in, const RowSpan& out) const override;
  // the gradient (one per variable), then the sweep's workspace
  size_t scratch_size() const override { return nvars_ + expr_.scratch_size(true); }

  const Expression& equation() const { return expr_; }
  Level level() const { return level_; }

 private:
  Expression expr_;
  Level level_;
  std::vector<int> var_slot_;  // slot in bodies() of each variable (−1 for t)
  int nvars_ = 0;
};

}  // namespace appell
