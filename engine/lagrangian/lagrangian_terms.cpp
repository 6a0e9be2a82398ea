// The terms of Lagrange's equations for a regular Lagrangian L(q, q̇, t), by nested dual
// numbers.  Ref: [L96] §4.1 (regular Lagrangians, the fundamental tensor g), §5.2.
//
// Lagrange's equations with force Q, in natural coordinates [L96 §5.2, proof of Thm 5.1]:
//   g_ij q̈^j + ∂²L/∂v^i∂q^j q̇^j + ∂²L/∂v^i∂t − ∂L/∂q^i = Q_i                    (5.2*)
// so with  M = g = ∂²L/∂q̇²  and
//   f = Q + ∂L/∂q − ∂²L/∂q̇∂q q̇ − ∂²L/∂q̇∂t                                      (T1)
// the unconstrained motion is M q̈ = f (UK98's "F", a = M⁻¹ f, eq. (5)).
//
// Every second derivative needed has a rate as one of its two variables, so one sweep
// of L in DualNumber<1, DualNumber<K>> per rate q̇_a of L and per K of L's variables
// (K = 4 for a Lagrangian of at most four variables, else 8)
// z_j gives, with the outer direction seeded on q̇_a and the inner ones on z_j:
//   value.value = L,  value.d_j = ∂L/∂z_j,  d.value = ∂L/∂q̇_a,  d.d_j = ∂²L/∂q̇_a∂z_j.
// L is regular when M is nonsingular [L96 §4.1]; Gauss's principle needs it positive
// definite [L96 §7], which is checked here by its Cholesky factorization.
#include <cmath>

#include "appell/lagrangian.hpp"
#include "engine/lagrangian/sweep.hpp"

namespace appell {

using namespace lagrangian_detail;

namespace {

// The value of e at x in doubles (forces), and the column of a non-finite node.
double value_at(const Expression& e, const LagrangianState& x, LagrangianData::Buffers& b) {
  const auto& vars = e.variables();
  for (size_t k = 0; k < vars.size(); ++k) b.x0[k] = variable_at(vars[k], x);
  return e.value_as(b.x0.data(), b.w0.data());
}

std::string not_finite(const Expression& e, const std::string& what, const LagrangianState& x,
                       LagrangianData::Buffers& b) {
  const auto& vars = e.variables();
  for (size_t k = 0; k < vars.size(); ++k) b.x0[k] = variable_at(vars[k], x);
  const int column = e.first_nonfinite_column(b.x0.data(), b.w0.data());
  return what + (column > 0 ? ": column " + std::to_string(column) : std::string()) +
         ": not finite (or not differentiable)";
}

// The sweeps of (T1) with K inner directions; true when L reads a rate.
template <int K>
bool second_derivatives(const Expression& L, const LagrangianState& x,
                        DualNumber<1, DualNumber<K>>* xs, DualNumber<1, DualNumber<K>>* ws,
                        LagrangianData& d) {
  using Inner = DualNumber<K>;
  using Outer = DualNumber<1, Inner>;
  const auto& vars = L.variables();
  const int nv = static_cast<int>(vars.size());
  bool first_rate = true;
  for (int i = 0; i < nv; ++i) {
    if (vars[i].kind != ExprVariable::Kind::Rate) continue;
    const int a = vars[i].axis;
    for (int c0 = 0; c0 < nv; c0 += K) {
      const int c1 = std::min(nv, c0 + K);
      // seed: inner directions on z_c0 .. z_c1−1, the outer one on q̇_a
      for (int k = 0; k < nv; ++k) {
        Inner inner(variable_at(vars[k], x));
        if (k >= c0 && k < c1) inner.d[k - c0] = 1.0;
        Outer outer(inner);
        if (k == i) outer.d[0] = Inner(1.0);
        xs[k] = outer;
      }
      const Outer r = L.value_as(xs, ws);
      d.L = r.v.v;
      d.p(a) = r.d[0].v;
      for (int j = c0; j < c1; ++j) {
        const double h = r.d[0].d[j - c0];  // ∂²L/∂q̇_a∂z_j
        switch (vars[j].kind) {
          case ExprVariable::Kind::Rate:
            d.M(a, vars[j].axis) = h;
            break;
          case ExprVariable::Kind::Coordinate:
            d.f(a) -= h * x.qd(vars[j].axis);  // − ∂²L/∂q̇∂q q̇  (T1)
            break;
          default:
            d.f(a) -= h;  // − ∂²L/∂q̇∂t  (T1)
        }
        // + ∂L/∂q (T1), once
        if (first_rate && vars[j].kind == ExprVariable::Kind::Coordinate)
          d.f(vars[j].axis) += r.v.d[j - c0];
      }
    }
    first_rate = false;
  }
  return !first_rate;
}

}  // namespace

LagrangianStatus lagrangian_terms(const LagrangianSystem& s, const LagrangianState& x,
                                  LagrangianData& d) {
  const Expression& L = s.lagrangian;
  const auto& vars = L.variables();
  const int nv = static_cast<int>(vars.size()), n = s.n();
  LagrangianData::Buffers& b = *d.buffers;
  d.M.setZero();
  d.p.setZero();
  // the generalized forces start f (T1)
  for (int k = 0; k < n; ++k) d.Q(k) = s.has_force[k] ? value_at(s.forces[k], x, b) : 0.0;
  d.f = d.Q;
  // four inner directions when L has at most four variables, else eight at a time
  const bool first_rate =
      !(nv <= 4 ? second_derivatives<4>(L, x, b.x4.data(), b.w4.data(), d)
                : second_derivatives<kChunk>(L, x, b.x2.data(), b.w2.data(), d));
  if (first_rate) {  // L reads no rate: L, ∂L/∂q alone (M = 0 is then reported below)
    d.L = value_at(L, x, b);
    for (int j = 0; j < nv; ++j)
      if (vars[j].kind == ExprVariable::Kind::Coordinate) {
        D1* xs = b.x1.data();
        for (int k = 0; k < nv; ++k) xs[k] = D1(variable_at(vars[k], x));
        xs[j].d[0] = 1.0;
        d.f(vars[j].axis) += L.value_as(xs, b.w1.data()).d[0];
      }
  }
  d.energy = d.p.dot(x.qd) - d.L;

  // finite, then positive definite
  if (!std::isfinite(d.L) || !d.M.allFinite() || !d.f.allFinite() || !std::isfinite(d.energy)) {
    d.message = not_finite(L, "/lagrangian/L", x, b);
    for (int k = 0; k < n; ++k)
      if (s.has_force[k] && !std::isfinite(d.Q(k)))
        d.message = not_finite(s.forces[k], "/lagrangian/forces/" + s.coordinates[k], x, b);
    return LagrangianStatus::NotFinite;
  }
  d.M_llt.compute(d.M);
  const double scale = d.M.diagonal().cwiseAbs().maxCoeff();
  if (d.M_llt.info() != Eigen::Success || !(scale > 0) ||
      d.M_llt.matrixLLT().diagonal().cwiseAbs2().minCoeff() <= 1e-13 * scale) {
    d.message = "the Lagrangian is not regular: ∂²L/∂q̇² is not positive definite";
    return LagrangianStatus::NotRegular;
  }
  return LagrangianStatus::Ok;
}

}  // namespace appell
