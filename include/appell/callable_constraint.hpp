// A constraint whose rows a function computes: custom constraint rows without a subclass.
//
// The function receives the state (every body's pose and twist, the time) and fills the
// canonical rows (appell/constraint.hpp, C1–C3) for the bodies named, in their order:
// out.term(i, j) = (∂π_i/∂v̄, ∂π_i/∂ω) of body j, out.b[i] the acceleration right side,
// out.velocity[i] = π_i, out.position[i] = g_i (holonomic rows) or 0.  It runs at every
// evaluation of the equations of motion, on whichever thread evaluates: it must be
// thread-safe if the Model is shared, and should not allocate.
//
//   auto rod = std::make_shared<appell::CallableConstraint>(
//       "rod", std::vector<int>{bob}, 1, true,
//       [](const appell::StateView& s, const appell::RowSpan& out) { ... });
#pragma once

#include <functional>

#include "appell/constraint.hpp"

namespace appell {

class CallableConstraint final : public Constraint {
 public:
  using Rows = std::function<void(const StateView&, const RowSpan&)>;
  // `holonomic`: whether every row comes from a position-level g = 0.  Throws
  // std::invalid_argument when rows < 1 or `evaluate` is empty.
  CallableConstraint(std::string name, std::vector<int> bodies, int rows, bool holonomic,
                     Rows evaluate);

  std::string type() const override { return "callable"; }
  int rows() const override { return rows_; }
  bool holonomic(int) const override { return holonomic_; }
  void evaluate(const StateView& in, const RowSpan& out) const override { fn_(in, out); }

 private:
  int rows_;
  bool holonomic_;
  Rows fn_;
};

}  // namespace appell
