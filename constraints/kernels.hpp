// The row kernels every joint and primitive is built from.
//
// Notation: for an end P of a row (a body, or the world), r_P = Q_P X_P is the offset of
// its material point from the centre of mass, x_P = x̄_P + r_P, v_P = v̄_P + ω_P × r_P and
//     a_P = dv̄_P/dt + dω_P/dt × r_P + ω_P × (ω_P × r_P).                          (K0)
// A direction N fixed in body A is n = Q_A N, with dn/dt = ω_A × n and
//     d²n/dt² = dω_A/dt × n + ω_A × (ω_A × n).
// Each kernel writes lin/ang (C2) and b = −κ, where κ is the part of dπ/dt that holds no
// acceleration (the velocity-product terms), exactly — never by finite differences.
//
//  point_coincident  g_k = E_k · (x_B − x_A)                         3 rows   (K1)
//  plane             g   = (x_B − x_A) · n_A − g0                    1 row    (K2)
//      dg/dt  = (v_B − v_A)·n + d·(ω_A × n),   d = x_B − x_A
//      κ      = n·(ω_B×(ω_B×r_B) − ω_A×(ω_A×r_A)) + 2 (v_B − v_A)·(ω_A × n) + d·(ω_A×(ω_A×n))
//      the term d·(dω_A/dt × n) adds n × d to ang_A.
//  angle             g   = n_A · c_B − c0                            1 row    (K3)
//      dg/dt  = (ω_B − ω_A)·k,  k = c × n;   κ = (ω_B − ω_A)·dk/dt,
//      dk/dt  = (ω_B × c) × n + c × (ω_A × n).
//  rotation_lock     ω_B − ω_A = 0 (world components);  g = log(Q_B R0ᵀ Q_Aᵀ)   3 rows (K4)
//  distance          g   = |d| − L,  e = d/|d|                       1 row    (K5)
//      dg/dt = e·(v_B − v_A);  κ = e·(ω_B×(ω_B×r_B) − ω_A×(ω_A×r_A)) + (|ḋ|² − (e·ḋ)²)/|d|
#pragma once

#include "appell/constraint.hpp"
#include "appell/rotation.hpp"
#include "constraints/row_jet.hpp"

namespace appell {

// Every kernel is a template over the state view it reads (StateView, or JetStateView for
// the rows' derivatives, constraints/row_jet.hpp) and the span it writes (RowSpan,
// JetRowSpan); S is their scalar.

// Adds the contribution c · a_P of a material point (offset r) to a row: lin += c,
// ang += r × c; returns c · ω × (ω × r), the point's share of κ.
template <class Span, class Body, class V>
auto add_point_term(const Span& out, int row, const End& e, const Body& s, const V& r, const V& c) {
  if (e.slot >= 0) {
    auto& t = out.term(row, e.slot);
    t.force += c;
    t.moment += r.cross(c);
  }
  return c.dot(s.w.cross(s.w.cross(r)));  // (K0)
}

template <class Span, class V>
void add_ang_term(const Span& out, int row, const End& e, const V& k) {
  if (e.slot >= 0) out.term(row, e.slot).moment += k;
}

template <class View, class Span>
int point_coincident_rows(const View& in, End a, End b, const Vec3& Xa, const Vec3& Xb,
                          const Span& out, int row) {
  using V = Eigen::Matrix<ScalarOf<View>, 3, 1>;
  const auto& sa = in.body(a.body);
  const auto& sb = in.body(b.body);
  const V ra = sa.offset(Xa), rb = sb.offset(Xb);
  const V d = (sb.x + rb) - (sa.x + ra);
  const V dv = (sb.v + sb.w.cross(rb)) - (sa.v + sa.w.cross(ra));
  for (int k = 0; k < 3; ++k, ++row) {  // (K1)
    const V E = V::Unit(k);
    const auto kappa =
        add_point_term(out, row, b, sb, rb, E) + add_point_term(out, row, a, sa, ra, V(-E));
    out.b[row] = -kappa;
    out.velocity[row] = dv(k);
    out.position[row] = d(k);
  }
  return row;
}

template <class View, class Span>
int plane_row(const View& in, End a, End b, const Vec3& Xa, const Vec3& Xb, const Vec3& Na,
              double g0, const Span& out, int row) {
  using V = Eigen::Matrix<ScalarOf<View>, 3, 1>;
  const auto& sa = in.body(a.body);
  const auto& sb = in.body(b.body);
  const V ra = sa.offset(Xa), rb = sb.offset(Xb);
  const V n = sa.Q * Na;
  const V d = (sb.x + rb) - (sa.x + ra);
  const V dv = (sb.v + sb.w.cross(rb)) - (sa.v + sa.w.cross(ra));
  const V wn = sa.w.cross(n);
  // (K2)
  auto kappa = add_point_term(out, row, b, sb, rb, n) + add_point_term(out, row, a, sa, ra, V(-n));
  kappa += 2.0 * dv.dot(wn) + d.dot(sa.w.cross(wn));
  add_ang_term(out, row, a, V(n.cross(d)));
  out.b[row] = -kappa;
  out.velocity[row] = dv.dot(n) + d.dot(wn);
  out.position[row] = d.dot(n) - g0;
  return row + 1;
}

template <class View, class Span>
int angle_row(const View& in, End a, End b, const Vec3& Na, const Vec3& Cb, double c0,
              const Span& out, int row) {
  using V = Eigen::Matrix<ScalarOf<View>, 3, 1>;
  const auto& sa = in.body(a.body);
  const auto& sb = in.body(b.body);
  const V n = sa.Q * Na, c = sb.Q * Cb;
  const V k = c.cross(n);  // (K3)
  const V dw = sb.w - sa.w;
  const V kdot = sb.w.cross(c).cross(n) + c.cross(sa.w.cross(n));
  add_ang_term(out, row, b, k);
  add_ang_term(out, row, a, V(-k));
  out.b[row] = -dw.dot(kdot);
  out.velocity[row] = dw.dot(k);
  out.position[row] = n.dot(c) - c0;
  return row + 1;
}

template <class View, class Span>
int rotation_lock_rows(const View& in, End a, End b, const Mat3& R0, const Span& out, int row) {
  using V = Eigen::Matrix<ScalarOf<View>, 3, 1>;
  const auto& sa = in.body(a.body);
  const auto& sb = in.body(b.body);
  // (K4): the world-frame rotation error whose rate is ω_B − ω_A near the manifold (its
  // value only: positions are not differentiated)
  const Mat3 E = value(sb.Q) * R0.transpose() * value(sa.Q).transpose();
  const Vec3 theta = rotation_vector_from_quat(Quat(E));
  const V dw = sb.w - sa.w;
  for (int k = 0; k < 3; ++k, ++row) {
    add_ang_term(out, row, b, V(V::Unit(k)));
    add_ang_term(out, row, a, V(-V::Unit(k)));
    out.b[row] = 0.0;
    out.velocity[row] = dw(k);
    out.position[row] = theta(k);
  }
  return row;
}

template <class View, class Span>
int distance_row(const View& in, End a, End b, const Vec3& Xa, const Vec3& Xb, double length,
                 const Span& out, int row) {
  using V = Eigen::Matrix<ScalarOf<View>, 3, 1>;
  const auto& sa = in.body(a.body);
  const auto& sb = in.body(b.body);
  const V ra = sa.offset(Xa), rb = sb.offset(Xb);
  const V d = (sb.x + rb) - (sa.x + ra);
  const V dv = (sb.v + sb.w.cross(rb)) - (sa.v + sa.w.cross(ra));
  const auto l = d.norm();
  const V e = d / l;
  const auto ev = e.dot(dv);
  // (K5)
  auto kappa = add_point_term(out, row, b, sb, rb, e) + add_point_term(out, row, a, sa, ra, V(-e));
  kappa += (dv.squaredNorm() - ev * ev) / l;
  out.b[row] = -kappa;
  out.velocity[row] = ev;
  out.position[row] = l - length;
  return row + 1;
}

// Two unit vectors perpendicular to n and to each other.
void perpendicular_basis(const Vec3& n, Vec3& t1, Vec3& t2);

}  // namespace appell
