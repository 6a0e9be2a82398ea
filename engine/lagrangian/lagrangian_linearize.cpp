// The linear model of a Lagrangian system in (q, ν) about a state (appell/lagrangian_run.hpp),
// by exact derivatives: each column of A = ∂F/∂x is the derivative of
//   x = (q, ν),   ẋ = F(x, t) = (q̇(q, ν, t),  H⁻¹ F_ν)               [L96 §5.3; (Q2), (G1)]
// (q̇ = Y(q, t) ν + y(q, t) for affine rows; the solution of (Q4) for rows nonlinear in q̇)
// along a unit direction (δq, δν), t fixed, differentiating each step of the evaluation:
//   (X1) the rows' tangents along w = (δq, δq̇): δR = ∂R/∂q δq (R = ∂r/∂q̇, or G = ∂g/∂q;
//        + ∂R/∂q̇ δq̇ for a row nonlinear in the rates, R = ∂φ/∂q̇ at the state),
//        δc = δ(R q̇ − r) (the right side −γ₀ of (Q1)), and δα, δβ: one sweep of each row in
//        DualNumber<1, DualNumber<8>> with the outer direction seeded with w; a holonomic
//        row's δα (the derivative of (R2)'s second derivative) one sweep in
//        DualNumber<1, DualNumber<1, DualNumber<1>>>
//   (X2) δM and δf of (T1): the sweeps of lagrangian_terms.cpp with one more outer
//        direction, w: third derivatives ∂³L/∂q̇∂z∂w; δQ = ∇Q · w
//   (X3) the rows hold along the motion, Φ(q, q̇, t) = [0; ν] (quasi_velocity_map.cpp (Q4)),
//        so S δq̇ + ∂Φ/∂q δq = [0; δν]:  δq̇ = Y δν + S⁻¹ (δc − δS q̇),  with δS, δc of (X1)
//        along (δq, 0) (δc − δS q̇ = −∂Φ/∂q δq).  For affine rows this is δY ν + Y δν + δy
//        of  S [Y y] = [0 I; c]: δY = −S⁻¹ δS Y, δy = S⁻¹ (δc − δS y)
//   (X4) δS again along (δq, δq̇) (a row nonlinear in the rates has ∂²φ/∂q̇² δq̇ in it),
//        δY = −S⁻¹ δS Y,  δZ = S⁻¹ (−(δα; δβ) − δS Z)
//   (X5) δH = δYᵀ M Y + Yᵀ (δM Y + M δY),  δF_ν = δYᵀ (f − M Z) + Yᵀ (δf − δM Z − M δZ),
//        δν̇ = H⁻¹ (δF_ν − δH ν̇)
// with the factors of S and H of the evaluation at x.  No differences: the columns are exact
// to round-off.  The Richardson-extrapolated differences (richardson_jacobian below, error
// O(h⁶)) remain for the scenes of bodies in their quasi-velocities (rigid_quasi_velocities.cpp),
// whose terms come from the engine's recursion in doubles.
#include <cmath>

#include "appell/lagrangian_run.hpp"
#include "engine/lagrangian/first_order.hpp"
#include "engine/lagrangian/sweep.hpp"

namespace appell {

namespace lagrangian_detail {

bool richardson_jacobian(const std::function<bool(const Eigen::VectorXd&, Eigen::VectorXd&)>& F,
                         const Eigen::VectorXd& X, int nq, Eigen::MatrixXd& A,
                         std::string& message) {
  const int nx = static_cast<int>(X.size());
  A.setZero(nx, nx);
  Eigen::VectorXd fp, fm, Zp, Zm;
  for (int j = 0; j < nx; ++j) {
    const double h = (j < nq ? 1e-2 : 1e-1) * std::max(1.0, std::abs(X(j)));
    Eigen::VectorXd D[3];
    for (int level = 0; level < 3; ++level) {
      const double step = h / (1 << level);
      Zp = X;
      Zm = X;
      Zp(j) += step;
      Zm(j) -= step;
      if (!F(Zp, fp) || !F(Zm, fm)) {
        message +=
            " (at a step of " + std::to_string(step) + " along state " + std::to_string(j) + ")";
        return false;
      }
      D[level] = (fp - fm) / (2 * step);
    }
    const Eigen::VectorXd e0 = (4 * D[1] - D[0]) / 3, e1 = (4 * D[2] - D[1]) / 3;
    A.col(j) = (16 * e1 - e0) / 15;
  }
  return true;
}

}  // namespace lagrangian_detail

namespace {

using namespace lagrangian_detail;

// the change of variable z along w = (δq, δq̇), t fixed
double tangent_of(const ExprVariable& v, const Eigen::VectorXd& dq, const Eigen::VectorXd& dqd) {
  switch (v.kind) {
    case ExprVariable::Kind::Coordinate:
      return dq(v.axis);
    case ExprVariable::Kind::Rate:
      return dqd(v.axis);
    default:
      return 0.0;
  }
}

// (X1): the rows' tangents along w at x: δR, δc = δ(R q̇ − r) (the right side −γ₀ of (Q1)) and
// δbias (δα or δβ).  One sweep in D2 per 8 variables; a holonomic row's δα one in T3.
void row_tangents(const std::vector<LagrangianRow>& rows, const LagrangianState& x,
                  const Eigen::VectorXd& dq, const Eigen::VectorXd& dqd, LagrangianData& d,
                  Eigen::Ref<Eigen::MatrixXd> dR, Eigen::Ref<Eigen::VectorXd> dc,
                  Eigen::Ref<Eigen::VectorXd> dbias) {
  LagrangianData::Buffers& b = *d.buffers;
  dR.setZero();
  dc.setZero();
  dbias.setZero();
  for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
    const Expression& e = rows[i].e;
    const auto& vars = e.variables();
    const int nv = static_cast<int>(vars.size());
    const bool holonomic = rows[i].holonomic;
    double dr = 0.0, Rdqd = 0.0, dRqd = 0.0;
    for (int c0 = 0; c0 < std::max(nv, 1); c0 += kChunk) {
      const int c1 = std::min(nv, c0 + kChunk);
      for (int k = 0; k < nv; ++k) {
        D1 inner(variable_at(vars[k], x));
        if (k >= c0 && k < c1) inner.d[k - c0] = 1.0;
        D2 outer(inner);
        outer.d[0] = D1(tangent_of(vars[k], dq, dqd));
        b.x2[k] = outer;
      }
      const D2 r = e.value_as(b.x2.data(), b.w2.data());
      dr = r.d[0].v;
      for (int j = c0; j < c1; ++j) {
        const double g = r.v.d[j - c0], dg = r.d[0].d[j - c0];
        const int a = vars[j].axis;
        switch (vars[j].kind) {
          case ExprVariable::Kind::Rate:
            dR(i, a) += dg;
            dRqd += dg * x.qd(a);
            Rdqd += g * dqd(a);
            break;
          case ExprVariable::Kind::Coordinate:
            if (holonomic)
              dR(i, a) += dg;
            else
              dbias(i) += dg * x.qd(a) + g * dqd(a);  // δ(∂r/∂q q̇)  (R1)
            break;
          default:
            if (holonomic)
              dc(i) -= dg;  // δ(−∂g/∂t)
            else
              dbias(i) += dg;  // δ(∂r/∂t)  (R1)
        }
      }
    }
    if (!holonomic) {
      dc(i) = dRqd + Rdqd - dr;
      continue;
    }
    // (R2) differentiated: the second derivative along (q̇, 1) at q + ε δq with q̇ + ε δq̇
    for (int k = 0; k < nv; ++k) {
      const double u = variable_rate(vars[k], x);
      T2 z(DualNumber<1>(variable_at(vars[k], x), {u}));
      z.d[0] = DualNumber<1>(u);
      const bool coordinate = vars[k].kind == ExprVariable::Kind::Coordinate;
      const double dv = coordinate ? dq(vars[k].axis) : 0.0;
      const double du = coordinate ? dqd(vars[k].axis) : 0.0;
      T2 dz(DualNumber<1>(dv, {du}));
      dz.d[0] = DualNumber<1>(du);
      T3 w(z);
      w.d[0] = dz;
      b.xt3[k] = w;
    }
    dbias(i) = e.value_as(b.xt3.data(), b.wt3.data()).d[0].d[0].d[0];
  }
}

// (X2): δM and δf of lagrangian_terms.cpp (T1) along w at x, by sweeps of L in D3 (the
// derivative along w of the D2 sweeps of (T1)) and of the forces in D1.
void term_tangents(const LagrangianSystem& s, const LagrangianState& x, const Eigen::VectorXd& dq,
                   const Eigen::VectorXd& dqd, LagrangianData& d, Eigen::MatrixXd& dM,
                   Eigen::VectorXd& df) {
  LagrangianData::Buffers& b = *d.buffers;
  dM.setZero(s.n(), s.n());
  df.setZero(s.n());
  // δQ = ∇Q · w
  for (int k = 0; k < s.n(); ++k) {
    if (!s.has_force[k]) continue;
    gradient(s.forces[k], x, d);
    const auto& vars = s.forces[k].variables();
    for (size_t j = 0; j < vars.size(); ++j) df(k) += b.grad[j] * tangent_of(vars[j], dq, dqd);
  }
  const Expression& L = s.lagrangian;
  const auto& vars = L.variables();
  const int nv = static_cast<int>(vars.size());
  bool first_rate = true;
  for (int i = 0; i < nv; ++i) {
    if (vars[i].kind != ExprVariable::Kind::Rate) continue;
    const int a = vars[i].axis;
    for (int c0 = 0; c0 < nv; c0 += kChunk) {
      const int c1 = std::min(nv, c0 + kChunk);
      for (int k = 0; k < nv; ++k) {
        D1 inner(variable_at(vars[k], x));
        if (k >= c0 && k < c1) inner.d[k - c0] = 1.0;
        D2 mid(inner);
        if (k == i) mid.d[0] = D1(1.0);
        D3 outer(mid);
        outer.d[0] = D2(D1(tangent_of(vars[k], dq, dqd)));
        b.x3[k] = outer;
      }
      const D3 r = L.value_as(b.x3.data(), b.w3.data());
      for (int j = c0; j < c1; ++j) {
        const double H = r.v.d[0].d[j - c0];      // ∂²L/∂q̇_a∂z_j
        const double dH = r.d[0].d[0].d[j - c0];  // its derivative along w
        const int axis = vars[j].axis;
        switch (vars[j].kind) {
          case ExprVariable::Kind::Rate:
            dM(a, axis) = dH;
            break;
          case ExprVariable::Kind::Coordinate:
            df(a) -= dH * x.qd(axis) + H * dqd(axis);  // δ(∂²L/∂q̇∂q q̇)  (T1)
            break;
          default:
            df(a) -= dH;  // δ(∂²L/∂q̇∂t)  (T1)
        }
        if (first_rate && vars[j].kind == ExprVariable::Kind::Coordinate)
          df(axis) += r.d[0].v.d[j - c0];  // δ(∂L/∂q)  (T1)
      }
    }
    first_rate = false;
  }
}

// (X3)–(X5): the column A (δq, δν) at the state d was last evaluated at (x, ν), after
// rates_of, lagrangian_terms, quasi_velocity_map and gibbs_appell_nu there
void exact_column(const LagrangianSystem& s, const LagrangianState& x, const Eigen::VectorXd& dq,
                  const Eigen::VectorXd& dnu, LagrangianData& d, Eigen::Ref<Eigen::VectorXd> out) {
  LagrangianData::Buffers& b = *d.buffers;
  const int n = s.n(), m = s.m(), k = s.dof();
  Eigen::MatrixXd dS(n, n);
  Eigen::VectorXd dc(n), dbias(n), zero = Eigen::VectorXd::Zero(n);
  // (X3) the rows along (δq, 0): δq̇
  row_tangents(s.constraints, x, dq, zero, d, dS.topRows(m), dc.head(m), dbias.head(m));
  row_tangents(s.quasi_velocities, x, dq, zero, d, dS.bottomRows(k), dc.tail(k), dbias.tail(k));
  const Eigen::VectorXd dqd = d.Y * dnu + b.lu.solve(dc - dS * x.qd);
  // (X4) the rows' δS, δα, δβ and the terms' δM, δf along (δq, δq̇); δY, δZ
  row_tangents(s.constraints, x, dq, dqd, d, dS.topRows(m), dc.head(m), dbias.head(m));
  row_tangents(s.quasi_velocities, x, dq, dqd, d, dS.bottomRows(k), dc.tail(k), dbias.tail(k));
  Eigen::MatrixXd dM;
  Eigen::VectorXd df;
  term_tangents(s, x, dq, dqd, d, dM, df);
  const Eigen::MatrixXd dY = -b.lu.solve(dS * d.Y);
  const Eigen::VectorXd dZ = b.lu.solve(-dbias - dS * d.Z);
  // (X5) δH ν̇ + H δν̇ = δF_ν
  const Eigen::MatrixXd dH = dY.transpose() * d.M * d.Y + d.Y.transpose() * (dM * d.Y + d.M * dY);
  const Eigen::VectorXd dF =
      dY.transpose() * (d.f - d.M * d.Z) + d.Y.transpose() * (df - dM * d.Z - d.M * dZ);
  out.head(n) = dqd;
  out.tail(k) = b.H_llt.solve(dF - dH * d.nudot);
}

}  // namespace

LagrangianStatus linearize_lagrangian(const LagrangianSystem& s, const LagrangianState& x0,
                                      Eigen::MatrixXd& A, std::string& message) {
  const int n = s.n(), k = s.dof(), nx = n + k;
  LagrangianData d(s);
  // x0's ν
  LagrangianStatus st = quasi_velocity_map(s, x0, d);
  if (st != LagrangianStatus::Ok) {
    message = d.message;
    return st;
  }
  // the evaluation at (q, ν), then one exact column per state
  LagrangianState x = x0;
  const Eigen::VectorXd nu0 = d.nu;
  st = rates_of(s, x0.t, x0.q, nu0, d, x.qd);
  if (st == LagrangianStatus::Ok) st = lagrangian_terms(s, x, d);
  if (st == LagrangianStatus::Ok) st = quasi_velocity_map(s, x, d);
  if (st == LagrangianStatus::Ok) st = gibbs_appell_nu(s, d);
  if (st != LagrangianStatus::Ok) {
    message = d.message;
    return st;
  }
  A.setZero(nx, nx);
  for (int j = 0; j < nx; ++j) {
    const Eigen::VectorXd e = Eigen::VectorXd::Unit(nx, j);
    exact_column(s, x, e.head(n), e.tail(k), d, A.col(j));
  }
  if (!A.allFinite()) {
    message = "the linear model is not finite";
    return LagrangianStatus::NotFinite;
  }
  return LagrangianStatus::Ok;
}

}  // namespace appell
