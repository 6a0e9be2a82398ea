#include "constraints/kernels.hpp"

#include <cmath>

namespace appell {

double add_point_term(const RowSpan& out, int row, const End& e, const BodyState& s, const Vec3& r,
                      const Vec3& c) {
  if (e.slot >= 0) {
    RowTerm& t = out.term(row, e.slot);
    t.lin += c;
    t.ang += r.cross(c);
  }
  return c.dot(s.w.cross(s.w.cross(r)));  // (K0)
}

static void add_ang_term(const RowSpan& out, int row, const End& e, const Vec3& k) {
  if (e.slot >= 0) out.term(row, e.slot).ang += k;
}

int point_coincident_rows(const StateView& in, End a, End b, const Vec3& Xa, const Vec3& Xb,
                          const RowSpan& out, int row) {
  const BodyState& sa = in.body(a.body);
  const BodyState& sb = in.body(b.body);
  const Vec3 ra = sa.offset(Xa), rb = sb.offset(Xb);
  const Vec3 d = (sb.x + rb) - (sa.x + ra);
  const Vec3 dv = (sb.v + sb.w.cross(rb)) - (sa.v + sa.w.cross(ra));
  for (int k = 0; k < 3; ++k, ++row) {  // (K1)
    const Vec3 E = Vec3::Unit(k);
    const double kappa =
        add_point_term(out, row, b, sb, rb, E) + add_point_term(out, row, a, sa, ra, -E);
    out.b[row] = -kappa;
    out.velocity[row] = dv(k);
    out.position[row] = d(k);
  }
  return row;
}

int plane_row(const StateView& in, End a, End b, const Vec3& Xa, const Vec3& Xb, const Vec3& Na,
              double g0, const RowSpan& out, int row) {
  const BodyState& sa = in.body(a.body);
  const BodyState& sb = in.body(b.body);
  const Vec3 ra = sa.offset(Xa), rb = sb.offset(Xb);
  const Vec3 n = sa.Q * Na;
  const Vec3 d = (sb.x + rb) - (sa.x + ra);
  const Vec3 dv = (sb.v + sb.w.cross(rb)) - (sa.v + sa.w.cross(ra));
  const Vec3 wn = sa.w.cross(n);
  // (K2)
  double kappa = add_point_term(out, row, b, sb, rb, n) + add_point_term(out, row, a, sa, ra, -n);
  kappa += 2.0 * dv.dot(wn) + d.dot(sa.w.cross(wn));
  add_ang_term(out, row, a, n.cross(d));
  out.b[row] = -kappa;
  out.velocity[row] = dv.dot(n) + d.dot(wn);
  out.position[row] = d.dot(n) - g0;
  return row + 1;
}

int angle_row(const StateView& in, End a, End b, const Vec3& Na, const Vec3& Cb, double c0,
              const RowSpan& out, int row) {
  const BodyState& sa = in.body(a.body);
  const BodyState& sb = in.body(b.body);
  const Vec3 n = sa.Q * Na, c = sb.Q * Cb;
  const Vec3 k = c.cross(n);  // (K3)
  const Vec3 dw = sb.w - sa.w;
  const Vec3 kdot = sb.w.cross(c).cross(n) + c.cross(sa.w.cross(n));
  add_ang_term(out, row, b, k);
  add_ang_term(out, row, a, -k);
  out.b[row] = -dw.dot(kdot);
  out.velocity[row] = dw.dot(k);
  out.position[row] = n.dot(c) - c0;
  return row + 1;
}

int rotation_lock_rows(const StateView& in, End a, End b, const Mat3& R0, const RowSpan& out,
                       int row) {
  const BodyState& sa = in.body(a.body);
  const BodyState& sb = in.body(b.body);
  // (K4): the world-frame rotation error whose rate is ω_B − ω_A near the manifold
  const Mat3 E = sb.Q * R0.transpose() * sa.Q.transpose();
  const Vec3 theta = rotation_vector_from_quat(Quat(E));
  const Vec3 dw = sb.w - sa.w;
  for (int k = 0; k < 3; ++k, ++row) {
    add_ang_term(out, row, b, Vec3::Unit(k));
    add_ang_term(out, row, a, -Vec3::Unit(k));
    out.b[row] = 0.0;
    out.velocity[row] = dw(k);
    out.position[row] = theta(k);
  }
  return row;
}

int distance_row(const StateView& in, End a, End b, const Vec3& Xa, const Vec3& Xb, double length,
                 const RowSpan& out, int row) {
  const BodyState& sa = in.body(a.body);
  const BodyState& sb = in.body(b.body);
  const Vec3 ra = sa.offset(Xa), rb = sb.offset(Xb);
  const Vec3 d = (sb.x + rb) - (sa.x + ra);
  const Vec3 dv = (sb.v + sb.w.cross(rb)) - (sa.v + sa.w.cross(ra));
  const double l = d.norm();
  const Vec3 e = d / l;
  const double ev = e.dot(dv);
  // (K5)
  double kappa = add_point_term(out, row, b, sb, rb, e) + add_point_term(out, row, a, sa, ra, -e);
  kappa += (dv.squaredNorm() - ev * ev) / l;
  out.b[row] = -kappa;
  out.velocity[row] = ev;
  out.position[row] = l - length;
  return row + 1;
}

void perpendicular_basis(const Vec3& n_in, Vec3& t1, Vec3& t2) {
  const Vec3 n = n_in.normalized();
  // the world axis least aligned with n gives a well-conditioned first tangent
  int k = 0;
  n.cwiseAbs().minCoeff(&k);
  t1 = n.cross(Vec3::Unit(k)).normalized();
  t2 = n.cross(t1);
}

}  // namespace appell
