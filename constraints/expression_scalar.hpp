// Expression::value_as<T>: one sweep of an expression's tape (appell/expression.hpp) in a
// scalar type T, for the Lagrangian systems (engine/lagrangian/), whose Lagrangian needs
// second derivatives.  T is double, DualNumber<N> (first derivatives along N directions)
// or DualNumber<N, DualNumber<K>> (second derivatives, bodies/dual_number.hpp): every
// operation of the tape is T's own, so the derivatives are exact to round-off and never
// finite differences.  Abs, min and max take their branch by the primal value, with the
// tape's conventions (abs has slope 0 at 0; min and max take their first operand on a tie).
#pragma once

#include <cmath>

#include "appell/expression.hpp"
#include "bodies/dual_number.hpp"

namespace appell {
namespace expression_detail {

// A binary node's value (Add … Max of Expression's tape operations; Op is Expression::Op).
template <class T, class Op>
inline T binary_as(Op op, const T& a, const T& b) {
  using std::atan2, std::pow;
  switch (op) {
    case Op::Add:
      return a + b;
    case Op::Sub:
      return a - b;
    case Op::Mul:
      return a * b;
    case Op::Div:
      return a / b;
    case Op::Pow:
      return pow(a, b);
    case Op::Atan2:
      return atan2(a, b);
    case Op::Min:
      return primal(a) <= primal(b) ? a : b;
    case Op::Max:
      return primal(a) >= primal(b) ? a : b;
    default:
      return T(0.0);  // not a binary operation: never asked
  }
}

// A unary node's value (Neg … Abs); c: PowConst's exponent.
template <class T, class Op>
inline T unary_as(Op op, double c, const T& a) {
  using std::acos, std::asin, std::atan, std::cos, std::cosh, std::exp, std::log;
  using std::pow, std::sin, std::sinh, std::sqrt, std::tan, std::tanh;
  switch (op) {
    case Op::Neg:
      return -a;
    case Op::PowConst:
      return c == 2.0 ? T(a * a) : c == 1.0 ? a : T(pow(a, c));
    case Op::Sin:
      return sin(a);
    case Op::Cos:
      return cos(a);
    case Op::Tan:
      return tan(a);
    case Op::Asin:
      return asin(a);
    case Op::Acos:
      return acos(a);
    case Op::Atan:
      return atan(a);
    case Op::Sinh:
      return sinh(a);
    case Op::Cosh:
      return cosh(a);
    case Op::Tanh:
      return tanh(a);
    case Op::Exp:
      return exp(a);
    case Op::Log:
      return log(a);
    case Op::Sqrt:
      return sqrt(a);
    case Op::Abs: {
      const double s = primal(a);
      return s > 0 ? a : (s < 0 ? T(-a) : T(0.0));
    }
    default:
      return T(0.0);  // not a unary operation: never asked
  }
}

}  // namespace expression_detail

template <class T>
T Expression::value_as(const T* x, T* w) const {
  const int n = size();
  for (int i = 0; i < n; ++i) {
    const Node& nd = ops_[i];
    switch (nd.op) {
      case Op::Const:
        w[i] = T(nd.c);
        break;
      case Op::Var:
        w[i] = x[nd.var];
        break;
      default:  // the tape lists the binary operations (Add … Max) before the unary ones
        w[i] = nd.op <= Op::Max ? expression_detail::binary_as(nd.op, w[nd.a], w[nd.b])
                                : expression_detail::unary_as(nd.op, nd.c, w[nd.a]);
    }
  }
  return w[root_];
}

}  // namespace appell
