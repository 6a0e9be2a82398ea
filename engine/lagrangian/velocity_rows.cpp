// Rows affine in the rates — constraints γ q̇ + γ₀ = 0 and quasi-velocities ν = C q̇ + s —
// and holonomic rows g(q, t) = 0, at a state.  Ref: [L96] §4.3 (constraints), §5.3.
//
// An affine row r(q, q̇, t) = R(q, t) q̇ + r₀(q, t) has  R = ∂r/∂q̇  and
//   ṙ = R q̈ + ∂r/∂q q̇ + ∂r/∂t                                                   (R1)
// its gradient is one DualNumber<8> sweep per 8 variables.  A holonomic row g(q, t) has the
// velocity row  ġ = G q̇ + ∂g/∂t,  G = ∂g/∂q,  and
//   g̈ = G q̈ + q̇ᵀ g_qq q̇ + 2 g_qt q̇ + g_tt = G q̈ + d²/ds² g(q + s q̇, t + s)|₀          (R2)
// whose last term is one sweep in DualNumber<1, DualNumber<1>>, both directions seeded
// with (q̇, 1): its ε δ part is that second derivative.
// A row nonlinear in the rates, φ(q, q̇, t) = 0 [UK98 (2)], takes the same first sweep: its
// R = ∂φ/∂q̇ at the state's rates, and (R1) is UK98's (3),  A q̈ = b  with A = ∂φ/∂q̇ and
// b = −(∂φ/∂q q̇ + ∂φ/∂t) = −α  [L96 (4.1), (4.3)].
#include <algorithm>
#include <cmath>

#include "appell/lagrangian.hpp"
#include "engine/lagrangian/sweep.hpp"

namespace appell {

namespace lagrangian_detail {

double gradient(const Expression& e, const LagrangianState& x, LagrangianData& d) {
  LagrangianData::Buffers& b = *d.buffers;
  const auto& vars = e.variables();
  const int nv = static_cast<int>(vars.size());
  if (nv == 0) return e.value_as(b.x0.data(), b.w0.data());
  double value = 0.0;
  for (int c0 = 0; c0 < nv; c0 += kChunk) {
    const int c1 = std::min(nv, c0 + kChunk);
    for (int k = 0; k < nv; ++k) {
      b.x1[k] = D1(variable_at(vars[k], x));
      if (k >= c0 && k < c1) b.x1[k].d[k - c0] = 1.0;
    }
    const D1 r = e.value_as(b.x1.data(), b.w1.data());
    for (int j = c0; j < c1; ++j) b.grad[j] = r.d[j - c0];
    value = r.v;
  }
  return value;
}

double curvature(const Expression& e, const double* x,
                 const std::function<bool(const ExprVariable&)>& rate, LagrangianData& d) {
  LagrangianData::Buffers& b = *d.buffers;
  const auto& vars = e.variables();
  const int nv = static_cast<int>(vars.size());
  double most = 0.0;
  for (int i = 0; i < nv; ++i) {
    if (!rate(vars[i])) continue;
    for (int c0 = 0; c0 < nv; c0 += kChunk) {
      // inner directions on z_c0 .. z_c0+7, the outer one on z_i
      for (int k = 0; k < nv; ++k) {
        D1 inner(x[k]);
        if (k >= c0 && k < c0 + kChunk) inner.d[k - c0] = 1.0;
        D2 outer(inner);
        if (k == i) outer.d[0] = D1(1.0);
        b.x2[k] = outer;
      }
      const D2 r = e.value_as(b.x2.data(), b.w2.data());
      for (int j = c0; j < std::min(nv, c0 + kChunk); ++j)
        if (rate(vars[j])) most = std::max(most, std::abs(r.d[0].d[j - c0]));
    }
  }
  return most;
}

}  // namespace lagrangian_detail

using namespace lagrangian_detail;

std::vector<double> variable_values_at(const Expression& e, const LagrangianState& x) {
  std::vector<double> values;
  for (const ExprVariable& v : e.variables()) values.push_back(variable_at(v, x));
  return values;
}

double rate_curvature(const Expression& e, const LagrangianState& x, LagrangianData& d) {
  const std::vector<double> values = variable_values_at(e, x);
  return curvature(
      e, values.data(), [](const ExprVariable& v) { return v.kind == ExprVariable::Kind::Rate; },
      d);
}

void velocity_rows(const std::vector<LagrangianRow>& rows, const LagrangianState& x,
                   LagrangianData& d, Eigen::MatrixXd& R, Eigen::VectorXd& value,
                   Eigen::VectorXd& bias, Eigen::VectorXd* g) {
  LagrangianData::Buffers& b = *d.buffers;
  R.setZero();
  for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
    const Expression& e = rows[i].e;
    const auto& vars = e.variables();
    const int nv = static_cast<int>(vars.size());
    const double v = gradient(e, x, d);
    double rate = 0.0, drift = 0.0;  // ∂r/∂q q̇ + ∂r/∂t, or G q̇ + ∂g/∂t
    for (int j = 0; j < nv; ++j) {
      const double gj = b.grad[j];
      switch (vars[j].kind) {
        case ExprVariable::Kind::Rate:
          R(i, vars[j].axis) += gj;
          break;
        case ExprVariable::Kind::Coordinate:
          if (rows[i].holonomic) R(i, vars[j].axis) += gj;
          drift += gj * x.qd(vars[j].axis);
          break;
        default:
          drift += gj;
      }
    }
    if (!rows[i].holonomic) {
      value(i) = v;
      bias(i) = drift;  // (R1)
      if (g) (*g)(i) = 0.0;
      continue;
    }
    rate = drift;  // ġ
    // (R2): the second derivative along (q̇, 1)
    for (int k = 0; k < nv; ++k) {
      const double u = variable_rate(vars[k], x);
      T2 z(DualNumber<1>(variable_at(vars[k], x), {u}));
      z.d[0] = DualNumber<1>(u);
      b.xt[k] = z;
    }
    const T2 r = e.value_as(b.xt.data(), b.wt.data());
    value(i) = rate;
    bias(i) = r.d[0].d[0];
    if (g) (*g)(i) = v;
  }
}

}  // namespace appell
