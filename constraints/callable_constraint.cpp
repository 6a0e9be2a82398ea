#include "appell/callable_constraint.hpp"

#include <stdexcept>

namespace appell {

CallableConstraint::CallableConstraint(std::string name, std::vector<int> bodies, int rows,
                                       bool holonomic, Rows evaluate)
    : Constraint(std::move(name), std::move(bodies)),
      rows_(rows),
      holonomic_(holonomic),
      fn_(std::move(evaluate)) {
  if (rows < 1)
    throw std::invalid_argument("CallableConstraint(): rows must be >= 1, got " +
                                std::to_string(rows));
  if (!fn_) throw std::invalid_argument("CallableConstraint(): the row function is empty");
}

}  // namespace appell
