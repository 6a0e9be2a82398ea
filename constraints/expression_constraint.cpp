#include "appell/expression_constraint.hpp"

namespace appell {

namespace {

std::vector<int> bodies_of(const Expression& e) {
  std::vector<int> list;
  for (const ExprVariable& v : e.variables()) {
    if (v.kind == ExprVariable::Kind::Orientation || v.kind == ExprVariable::Kind::JointQ ||
        v.kind == ExprVariable::Kind::JointU)
      throw ExpressionError(v.column, "'" + v.text +
                                          "' may be used in forces only; constraints need the "
                                          "derivatives of x, v and w variables");
    if (v.kind != ExprVariable::Kind::Time) list.push_back(v.body);
  }
  if (list.empty()) throw ExpressionError(1, "the equation names no body; it constrains nothing");
  return distinct_bodies(list);
}

}  // namespace

ExpressionConstraint::ExpressionConstraint(std::string name, Expression equation, Level level)
    : Constraint(std::move(name), bodies_of(equation)), expr_(std::move(equation)), level_(level) {
  nvars_ = static_cast<int>(expr_.variables().size());
  for (const ExprVariable& v : expr_.variables()) {
    if (level_ == Level::Position &&
        (v.kind == ExprVariable::Kind::Velocity || v.kind == ExprVariable::Kind::AngularVelocity))
      throw ExpressionError(v.column, "velocity variable '" + v.text +
                                          "' in a position-level equation; use level \"velocity\"");
    var_slot_.push_back(v.kind == ExprVariable::Kind::Time ? -1 : slot(v.body));
  }
}

void ExpressionConstraint::evaluate(const StateView& in, const RowSpan& out) const {
  // the gradient's buffer: the head of the caller's workspace (else our own)
  std::vector<double> own;
  StateView rest = in;
  double* grad = in.scratch;
  if (grad && in.scratch_size >= static_cast<size_t>(nvars_)) {
    rest.scratch += nvars_;
    rest.scratch_size -= nvars_;
  } else {
    own.resize(nvars_);
    grad = own.data();
  }
  const bool position = level_ == Level::Position;
  const Expression::Jet j = expr_.evaluate(rest, grad, position);
  double rate = 0.0;  // ∂φ/∂x̄·v̄ + ∂φ/∂t (velocity level)
  for (int k = 0; k < nvars_; ++k) {
    const ExprVariable& v = expr_.variables()[k];
    switch (v.kind) {
      case ExprVariable::Kind::Time:
        rate += grad[k];
        break;
      case ExprVariable::Kind::Position:
        if (position)
          out.term(0, var_slot_[k]).force(v.axis) += grad[k];  // ∂g/∂x̄        (X2)
        else
          rate += grad[k] * in.body(v.body).v(v.axis);
        break;
      case ExprVariable::Kind::Velocity:
        out.term(0, var_slot_[k]).force(v.axis) += grad[k];
        break;
      case ExprVariable::Kind::AngularVelocity:
        out.term(0, var_slot_[k]).moment(v.axis) += grad[k];
        break;
      default:  // rejected by the constructor
        break;
    }
  }
  if (position) {
    out.b[0] = -2.0 * j.d2;  // (X2)
    out.velocity[0] = j.d1;
    out.position[0] = j.value;
  } else {
    out.b[0] = -rate;  // (X1)
    out.velocity[0] = j.value;
    out.position[0] = 0.0;
  }
}

}  // namespace appell
