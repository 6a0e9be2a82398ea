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

template <class T>
T Expression::value_as(const T* x, T* w) const {
  using std::acos, std::asin, std::atan, std::atan2, std::cos, std::cosh, std::exp, std::log;
  using std::pow, std::sin, std::sinh, std::sqrt, std::tan, std::tanh;
  const int n = size();
  for (int i = 0; i < n; ++i) {
    const Node& nd = ops_[i];
    const T* A = nd.a >= 0 ? &w[nd.a] : nullptr;
    const T* B = nd.b >= 0 ? &w[nd.b] : nullptr;
    T& r = w[i];
    switch (nd.op) {
      case Op::Const:
        r = T(nd.c);
        break;
      case Op::Var:
        r = x[nd.var];
        break;
      case Op::Add:
        r = *A + *B;
        break;
      case Op::Sub:
        r = *A - *B;
        break;
      case Op::Mul:
        r = *A * *B;
        break;
      case Op::Div:
        r = *A / *B;
        break;
      case Op::Pow:
        r = pow(*A, *B);
        break;
      case Op::Atan2:
        r = atan2(*A, *B);
        break;
      case Op::Min:
        r = primal(*A) <= primal(*B) ? *A : *B;
        break;
      case Op::Max:
        r = primal(*A) >= primal(*B) ? *A : *B;
        break;
      case Op::Neg:
        r = -*A;
        break;
      case Op::PowConst:
        if (nd.c == 2.0)
          r = *A * *A;
        else if (nd.c == 1.0)
          r = *A;
        else
          r = pow(*A, nd.c);
        break;
      case Op::Sin:
        r = sin(*A);
        break;
      case Op::Cos:
        r = cos(*A);
        break;
      case Op::Tan:
        r = tan(*A);
        break;
      case Op::Asin:
        r = asin(*A);
        break;
      case Op::Acos:
        r = acos(*A);
        break;
      case Op::Atan:
        r = atan(*A);
        break;
      case Op::Sinh:
        r = sinh(*A);
        break;
      case Op::Cosh:
        r = cosh(*A);
        break;
      case Op::Tanh:
        r = tanh(*A);
        break;
      case Op::Exp:
        r = exp(*A);
        break;
      case Op::Log:
        r = log(*A);
        break;
      case Op::Sqrt:
        r = sqrt(*A);
        break;
      case Op::Abs: {
        const double s = primal(*A);
        r = s > 0 ? *A : (s < 0 ? T(-*A) : T(0.0));
        break;
      }
    }
  }
  return w[root_];
}

}  // namespace appell
