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

namespace appell {

// Adds the contribution c · a_P of a material point (offset r) to a row: lin += c,
// ang += r × c; returns c · ω × (ω × r), the point's share of κ.
double add_point_term(const RowSpan& out, int row, const End& e, const BodyState& s, const Vec3& r,
                      const Vec3& c);

int point_coincident_rows(const StateView& in, End a, End b, const Vec3& Xa, const Vec3& Xb,
                          const RowSpan& out, int row);
int plane_row(const StateView& in, End a, End b, const Vec3& Xa, const Vec3& Xb, const Vec3& Na,
              double g0, const RowSpan& out, int row);
int angle_row(const StateView& in, End a, End b, const Vec3& Na, const Vec3& Cb, double c0,
              const RowSpan& out, int row);
int rotation_lock_rows(const StateView& in, End a, End b, const Mat3& R0, const RowSpan& out,
                       int row);
int distance_row(const StateView& in, End a, End b, const Vec3& Xa, const Vec3& Xb, double length,
                 const RowSpan& out, int row);

// Two unit vectors perpendicular to n and to each other.
void perpendicular_basis(const Vec3& n, Vec3& t1, Vec3& t2);

}  // namespace appell
