// The Lagrangian systems' tape sweeps (engine/lagrangian/*.cpp): the scalar types, the
// work buffers LagrangianData holds for them, and the variables' values at a state.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <functional>
#include <vector>

#include "appell/lagrangian.hpp"
#include "bodies/dual_number.hpp"
#include "constraints/expression_scalar.hpp"

namespace appell::lagrangian_detail {

constexpr int kChunk = 8;                 // inner directions per sweep
using D1 = DualNumber<kChunk>;            // first derivatives, 8 directions
using D2 = DualNumber<1, D1>;             // one outer direction over D1: second derivatives
using T2 = DualNumber<1, DualNumber<1>>;  // a second derivative along one direction
using D3 = DualNumber<1, D2>;  // D2 and its derivative along one more direction (linearize)
using T3 = DualNumber<1, T2>;  // T2 and its derivative along one more direction (linearize)

}  // namespace appell::lagrangian_detail

namespace appell {

struct LagrangianData::Buffers {
  std::vector<double> x0, w0, grad;  // a sweep in doubles; a gradient (variables of one expression)
  std::vector<lagrangian_detail::D1> x1, w1;
  std::vector<lagrangian_detail::D2> x2, w2;
  std::vector<DualNumber<1, DualNumber<4>>> x4, w4;  // D2 with four inner directions
  std::vector<lagrangian_detail::T2> xt, wt;
  std::vector<lagrangian_detail::D3> x3, w3;  // third derivatives (lagrangian_linearize.cpp)
  std::vector<lagrangian_detail::T3> xt3, wt3;
  Eigen::MatrixXd S;  // [A; W]  (n × n)
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;
  Eigen::MatrixXd rhs, sol;  // the three right-hand sides [0 | −b | −α ; I | −w | −β]
  Eigen::MatrixXd MY, MinvAt, K;  // M Y; M⁻¹ Aᵀ; A M⁻¹ Aᵀ
  Eigen::LLT<Eigen::MatrixXd> H_llt, K_llt;
  Eigen::VectorXd a, tmp;     // M⁻¹ f; scratch (n)
  Eigen::VectorXd qd0;        // zero rates, for rates_of()
  Eigen::VectorXd nu_target;  // rates_of()'s ν, Newton's iterate   (k)
  LagrangianState newton;     //   and state (quasi_velocity_map.cpp (Q4))
};

namespace lagrangian_detail {

// the value of variable v at the state
inline double variable_at(const ExprVariable& v, const LagrangianState& x) {
  switch (v.kind) {
    case ExprVariable::Kind::Coordinate:
      return x.q(v.axis);
    case ExprVariable::Kind::Rate:
      return x.qd(v.axis);
    default:
      return x.t;  // the parser admits only t besides q(c), qd(c)
  }
}

// d/ds of variable v along the motion  q ↦ q + s q̇,  t ↦ t + s  (rates fixed)
inline double variable_rate(const ExprVariable& v, const LagrangianState& x) {
  switch (v.kind) {
    case ExprVariable::Kind::Coordinate:
      return x.qd(v.axis);
    case ExprVariable::Kind::Rate:
      return 0.0;
    default:
      return 1.0;
  }
}

// The gradient of e at x, one entry per e.variables(), into d.grad; returns the value.
// ⌈v/8⌉ sweeps in DualNumber<8>.
double gradient(const Expression& e, const LagrangianState& x, LagrangianData& d);

// The largest |∂²e/∂z_a∂z_b| over the variables z that `rate` marks, at the variables'
// values x (x[k] for e.variables()[k]): zero for an expression affine in them.  One sweep
// in DualNumber<1, DualNumber<8>> per marked variable and 8 variables.
double curvature(const Expression& e, const double* x,
                 const std::function<bool(const ExprVariable&)>& rate, LagrangianData& d);

}  // namespace lagrangian_detail
}  // namespace appell
