// Whether a row is affine in a Lagrangian system's rates, read off its expression's tape: the
// loader's test that sends a constraint to the affine path or to Newton's
// (quasi_velocity_map.cpp (Q1), (Q4)).
//
// The tape is swept in the algebra of degrees in the rates — 0 free of them, 1 affine in
// them, 2 anything else — where sums take the larger degree, a product is affine when one
// factor is free of rates, a quotient when its denominator is, x^c keeps x's degree for c = 1
// and is free of rates for c = 0, and every other function (abs, min, max and the smooth
// ones) is free of rates when its operands are and of degree 2 otherwise.  The test is
// sufficient, not necessary: qd(x)^2 - qd(x)^2 counts as nonlinear, and is then solved by
// Newton's method (exactly, at a little more cost).  The sweep is Expression::value_as
// specialized to the degrees (the generic sweep takes abs, min and max by their branch at a
// point, which is not what a degree wants); it lives in this file alone.
#include <algorithm>
#include <vector>

#include "engine/lagrangian/sweep.hpp"

namespace appell {

namespace lagrangian_detail {

struct RateDegree {
  int d = 0;
};

}  // namespace lagrangian_detail

using lagrangian_detail::RateDegree;

template <>
RateDegree Expression::value_as<RateDegree>(const RateDegree* x, RateDegree* w) const {
  for (int i = 0; i < size(); ++i) {
    const Node& nd = ops_[static_cast<size_t>(i)];
    const int a = nd.a >= 0 ? w[nd.a].d : 0, b = nd.b >= 0 ? w[nd.b].d : 0;
    int d = 0;
    switch (nd.op) {
      case Op::Const:
        break;
      case Op::Var:
        d = x[nd.var].d;
        break;
      case Op::Add:
      case Op::Sub:
        d = std::max(a, b);
        break;
      case Op::Mul:
        d = a == 0 || b == 0 ? std::max(a, b) : 2;
        break;
      case Op::Div:
        d = b == 0 ? a : 2;
        break;
      case Op::Neg:
        d = a;
        break;
      case Op::PowConst:
        d = nd.c == 0.0 ? 0 : nd.c == 1.0 ? a : std::min(2 * a, 2);
        break;
      default:  // pow, atan2, min, max and the functions of one operand
        d = std::max(a, b) == 0 ? 0 : 2;
    }
    w[i].d = d;
  }
  return w[root_];
}

bool affine_in_rates(const Expression& e) {
  const auto& vars = e.variables();
  std::vector<RateDegree> x(vars.size()), w(static_cast<size_t>(std::max(e.size(), 1)));
  for (size_t k = 0; k < vars.size(); ++k) x[k].d = vars[k].kind == ExprVariable::Kind::Rate;
  return e.size() == 0 || e.value_as(x.data(), w.data()).d <= 1;
}

}  // namespace appell
