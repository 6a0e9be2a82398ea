// Forward-mode automatic differentiation of the tree's dynamics (derivatives_ad.hpp):
// a templated copy of the recursive Newton–Euler passes of
// engine/assembly/inverse_dynamics.cpp (N1–N5) in dual numbers, eight tangent directions
// per pass, with the extra rows' forces and residuals taken in the same passes.
#include "engine/formulations/recursive/derivatives_ad.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <vector>

#include "appell/joint.hpp"
#include "appell/model.hpp"
#include "appell/tree.hpp"
#include "bodies/dual_number.hpp"

namespace appell {
namespace derivative_detail {

constexpr int kDir = 8;  // directions carried by one pass
using Dual = DualNumber<kDir>;

}  // namespace derivative_detail
}  // namespace appell

namespace appell {
namespace derivative_detail {
namespace {

using D3 = Eigen::Matrix<Dual, 3, 1>;
using DM3 = Eigen::Matrix<Dual, 3, 3>;

D3 cross(const D3& a, const D3& b) {
  return D3(a(1) * b(2) - a(2) * b(1), a(2) * b(0) - a(0) * b(2), a(0) * b(1) - a(1) * b(0));
}
D3 lift(const Vec3& x) {
  return x.cast<Dual>();
}
DM3 lift(const Mat3& x) {
  return x.cast<Dual>();
}

// The joint motions (J1–J3) in duals: each joint type's own motion() at the point and, along
// each direction seeded on its coordinates, its derivative (JointType::motion_tangent)
struct DualMotion {
  DM3 R;
  D3 d;
  std::array<D3, 6> S_lin, S_ang;  // the columns of S (F)
  D3 c_lin, c_ang;                 // Ṡ u (F)
};

void motion(const JointType& type, const Dual* q, const Dual* u, int nq, int nu, DualMotion& m) {
  double qv[8], uv[8], dq[8], du[8];
  for (int k = 0; k < nq; ++k) qv[k] = q[k].v;
  for (int k = 0; k < nu; ++k) uv[k] = u[k].v;
  JointMotion jm, djm;
  type.motion(qv, uv, jm);
  auto set = [&](const JointMotion& x, int dir) {  // dir < 0: the values
    auto put = [&](Dual& to, double v) { dir < 0 ? void(to = Dual(v)) : void(to.d[dir] = v); };
    for (int r = 0; r < 3; ++r) {
      put(m.d(r), x.d(r));
      put(m.c_lin(r), x.c(r));
      put(m.c_ang(r), x.c(3 + r));
      for (int c = 0; c < 3; ++c) put(m.R(r, c), x.R(r, c));
      for (int k = 0; k < nu; ++k) put(m.S_lin[k](r), x.S(r, k)), put(m.S_ang[k](r), x.S(3 + r, k));
    }
  };
  set(jm, -1);
  for (int dir = 0; dir < kDir; ++dir) {
    bool moves = false;
    for (int k = 0; k < nq; ++k) moves |= (dq[k] = q[k].d[dir]) != 0.0;
    for (int k = 0; k < nu; ++k) moves |= (du[k] = u[k].d[dir]) != 0.0;
    if (!moves) continue;
    if (!type.motion_tangent(qv, uv, dq, du, jm, djm))
      throw std::invalid_argument(std::string("derivatives: joint type '") + type.name() +
                                  "' gives no derivatives of its motion "
                                  "(JointType::motion_tangent)");
    set(djm, dir);
  }
}

D3 mul(const DM3& A, const D3& x) {
  D3 r;
  for (int i = 0; i < 3; ++i) r(i) = A(i, 0) * x(0) + A(i, 1) * x(1) + A(i, 2) * x(2);
  return r;
}
D3 mul_t(const DM3& A, const D3& x) {
  D3 r;
  for (int i = 0; i < 3; ++i) r(i) = A(0, i) * x(0) + A(1, i) * x(1) + A(2, i) * x(2);
  return r;
}
DM3 mul(const DM3& A, const DM3& B) {
  DM3 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r(i, j) = A(i, 0) * B(0, j) + A(i, 1) * B(1, j) + A(i, 2) * B(2, j);
  return r;
}
// products with constant matrices and vectors
D3 mul(const DM3& A, const Vec3& x) {
  D3 r;
  for (int i = 0; i < 3; ++i) r(i) = A(i, 0) * x(0) + A(i, 1) * x(1) + A(i, 2) * x(2);
  return r;
}
DM3 mul(const DM3& A, const Mat3& B) {
  DM3 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r(i, j) = A(i, 0) * B(0, j) + A(i, 1) * B(1, j) + A(i, 2) * B(2, j);
  return r;
}
Dual dot(const D3& a, const D3& b) {
  return a(0) * b(0) + a(1) * b(1) + a(2) * b(2);
}

// the body states and joint frames of one pass
struct DualBody {
  DM3 Q;
  D3 x, v, w, a, alpha;
};

// Between the passes: adds wrenches to the bodies' f (force) and nO (moment about the
// origin), given the bodies' states
using BodyWrenches =
    std::function<void(const std::vector<DualBody>&, std::vector<D3>&, std::vector<D3>&)>;

// One pass of (N1–N5) in duals: τ (tree nu) at q, u seeded with up to kDir directions;
// `extra` (optional) subtracts its wrenches from what the bodies need.
void rnea_pass(const Model& m, const std::vector<Dual>& q, const std::vector<Dual>& u,
               const std::vector<Dual>& udot, std::vector<Dual>& tau,
               const BodyWrenches& extra = nullptr) {
  const TreeModel& tree = m.tree();
  const int n = static_cast<int>(tree.joints.size());
  const D3 zero = D3::Constant(Dual(0));
  DualBody rest{lift(Mat3(Mat3::Identity())), zero, zero, zero, zero, zero};
  std::vector<DualBody> body(m.nbody(), rest);
  std::vector<DM3> QE(n);
  std::vector<D3> x_A(n), f(m.nbody(), zero), nO(m.nbody(), zero);
  std::vector<DualMotion> jm(n);
  const D3 g = lift(m.gravity());
  for (int i = 0; i < n; ++i) {
    const TreeJoint& t = tree.joints[i];
    const DualBody& P = t.parent_body == kWorld ? rest : body[t.parent_body];
    DualBody& C = body[t.body];
    DualMotion& mo = jm[i];
    motion(*t.type, q.data() + t.q_offset, u.data() + t.u_offset, t.nq, t.nu, mo);
    const JointFrames& fr = t.frames;
    QE[i] = mul(P.Q, fr.E_P);
    C.Q = mul(mul(QE[i], mo.R), Mat3(fr.E_C.transpose()));  //              (J1)
    x_A[i] = P.x + mul(P.Q, fr.X_P) + mul(QE[i], mo.d);
    C.x = x_A[i] - mul(C.Q, fr.X_C);
    D3 vl = zero, va = zero, al = mo.c_lin, aa = mo.c_ang;  // S u and S u̇ + c, in F
    for (int k = 0; k < t.nu; ++k) {
      const Dual& uk = u[t.u_offset + k];
      const Dual& ak = udot[t.u_offset + k];
      vl += mo.S_lin[k] * uk;
      va += mo.S_ang[k] * uk;
      al += mo.S_lin[k] * ak;
      aa += mo.S_ang[k] * ak;
    }
    const D3 w_rel = mul(QE[i], va), d_dot = mul(QE[i], vl);  //                    (J2)
    const D3 r_P = x_A[i] - P.x, r_C = C.x - x_A[i];
    C.w = P.w + w_rel;
    C.v = P.v + cross(P.w, C.x - P.x) + cross(w_rel, r_C) + d_dot;
    const D3 v_A = C.v - cross(C.w, r_C);
    C.alpha = P.alpha + cross(P.w, w_rel) + mul(QE[i], aa);  //                      (N1)
    const D3 a_A = P.a + cross(P.alpha, r_P) + cross(P.w, v_A - P.v) + cross(P.w, d_dot) +
                   mul(QE[i], al);                                  // (N2)
    C.a = a_A + cross(C.alpha, r_C) + cross(C.w, cross(C.w, r_C));  //               (N3)
    // the net wrench the body needs beyond gravity                                 (N4)
    const Body& b = m.bodies()[t.body];
    const Dual mass(b.mass);
    f[t.body] = (C.a - g) * mass;
    D3 nb = zero;
    if (b.rigid()) {
      const DM3 J = mul(mul(C.Q, b.inertia), DM3(C.Q.transpose()));
      nb = mul(J, C.alpha) + cross(C.w, mul(J, C.w));
    }
    nO[t.body] = nb + cross(C.x, f[t.body]);
  }
  if (extra) extra(body, f, nO);
  // tip to base: the subtree's wrench at the anchor, in F, projected on S            (N5)
  tau.assign(tree.nu, Dual(0));
  for (int i = n - 1; i >= 0; --i) {
    const TreeJoint& t = tree.joints[i];
    const D3 fF = mul_t(QE[i], f[t.body]);
    const D3 nF = mul_t(QE[i], nO[t.body] - cross(x_A[i], f[t.body]));
    for (int k = 0; k < t.nu; ++k)
      tau[t.u_offset + k] = dot(jm[i].S_lin[k], fF) + dot(jm[i].S_ang[k], nF);
    if (t.parent_body != kWorld) {
      f[t.parent_body] += f[t.body];
      nO[t.parent_body] += nO[t.body];
    }
  }
}

// The extra rows (loops, constraints: tree.extra) in one pass, at its bodies' states: each
// constraint's rows and their exact derivatives along the pass's first `ndir` directions
// (Constraint::evaluate_tangent).  With the multipliers `lambda`, the rows' forces Aᵀλ are
// taken from what the bodies need (so the pass gives ID − Aᵀλ), r = A a − b (the rows'
// residual at the bodies' accelerations) and π (their velocity residual).
void extra_rows_in_pass(const Model& m, double t, int ndir, const std::vector<DualBody>& body,
                        const Eigen::VectorXd& lambda, std::vector<D3>& f, std::vector<D3>& nO,
                        std::vector<Dual>& r, std::vector<Dual>& pi) {
  const TreeModel& tree = m.tree();
  const int nb = m.nbody();
  // the bodies' values and, once per direction for every constraint, their tangents
  const int nd = std::max(ndir, 1);
  std::vector<BodyState> value(nb);
  std::vector<std::vector<BodyState>> tangent(nd, std::vector<BodyState>(nb));
  for (int b = 0; b < nb; ++b)
    for (int i = 0; i < 3; ++i) {
      value[b].x(i) = body[b].x(i).v;
      value[b].v(i) = body[b].v(i).v;
      value[b].w(i) = body[b].w(i).v;
      for (int j = 0; j < 3; ++j) value[b].Q(i, j) = body[b].Q(i, j).v;
      for (int k = 0; k < nd; ++k) {
        tangent[k][b].x(i) = body[b].x(i).d[k];
        tangent[k][b].v(i) = body[b].v(i).d[k];
        tangent[k][b].w(i) = body[b].w(i).d[k];
        for (int j = 0; j < 3; ++j) tangent[k][b].Q(i, j) = body[b].Q(i, j).d[k];
      }
    }
  StateView in, dir;
  in.bodies = value.data();
  in.t = dir.t = t;
  r.assign(tree.nrows_extra, Dual(0));
  pi.assign(tree.nrows_extra, Dual(0));
  const D3 zero = D3::Constant(Dual(0));
  int row0 = 0;
  for (int c : tree.extra) {
    const Constraint& con = *m.constraints()[c];
    const int nr = con.rows(), ns = static_cast<int>(con.bodies().size());
    std::vector<RowTerm> terms(nr * ns), dterms(nr * ns);
    std::vector<double> b(nr), vel(nr), pos(nr), db(nr), dvel(nr), dpos(nr);
    const RowSpan out{terms.data(), b.data(), vel.data(), pos.data(), ns};
    const RowSpan dout{dterms.data(), db.data(), dvel.data(), dpos.data(), ns};
    std::vector<SpatialForceT<Dual>> dual_terms(nr * ns, {zero, zero});
    std::vector<Dual> bd(nr), vd(nr);
    for (int k = 0; k < nd; ++k) {
      dir.bodies = tangent[k].data();
      std::fill(terms.begin(), terms.end(), RowTerm{});
      std::fill(dterms.begin(), dterms.end(), RowTerm{});
      if (!con.evaluate_tangent(in, dir, out, dout))
        throw std::invalid_argument("derivatives: constraint '" + con.name() + "' (" + con.type() +
                                    ") gives no derivatives of its rows "
                                    "(Constraint::evaluate_tangent)");
      for (int e = 0; e < nr * ns; ++e)
        for (int i = 0; i < 3; ++i) {
          SpatialForceT<Dual>& t = dual_terms[e];
          t.force(i).v = terms[e].force(i), t.force(i).d[k] = dterms[e].force(i);
          t.moment(i).v = terms[e].moment(i), t.moment(i).d[k] = dterms[e].moment(i);
        }
      for (int i = 0; i < nr; ++i) {
        bd[i].v = b[i], bd[i].d[k] = db[i];
        vd[i].v = vel[i], vd[i].d[k] = dvel[i];
      }
    }
    for (int i = 0; i < nr; ++i) {
      const int row = row0 + i;
      const Dual lam(lambda.size() ? lambda(row) : 0.0);
      for (int j = 0; j < ns; ++j) {
        const int bj = con.bodies()[j];
        const bool rigid = m.bodies()[bj].rigid();
        const D3& l = dual_terms[i * ns + j].force;
        const D3 a = rigid ? dual_terms[i * ns + j].moment : zero;
        // the row's force λ lin at the centre and moment λ ang [HO21 eq. 15]
        f[bj] -= l * lam;
        nO[bj] -= (a + cross(body[bj].x, l)) * lam;
        r[row] += dot(l, body[bj].a) + dot(a, body[bj].alpha);
      }
      r[row] -= bd[i];
      pi[row] = vd[i];
    }
    row0 += nr;
  }
}

}  // namespace

void ad_columns(const Model& m, const State& s, const Eigen::VectorXd& udot, int j_begin, int j_end,
                Eigen::VectorXd& tau_out, Eigen::MatrixXd& cols, RowColumns* rows) {
  const TreeModel& tree = m.tree();
  const int nu = tree.nu;
  tau_out.resize(nu);
  if (rows) {
    const int mr = tree.nrows_extra;
    rows->r.resize(mr), rows->pi.resize(mr);
    rows->dr.resize(mr, cols.cols()), rows->dpi.resize(mr, cols.cols());
  }
  std::vector<Dual> q(tree.nq), u(nu), a(nu), tau;
  Eigen::Matrix<double, 8, 1> e, qd;
  bool first = true;
  for (int j0 = j_begin; first || j0 < j_end; j0 += kDir) {
    for (int k = 0; k < tree.nq; ++k) q[k] = Dual(s.q(k));
    for (int k = 0; k < nu; ++k) u[k] = Dual(s.u(k)), a[k] = Dual(udot(k));
    // seed: direction j < nu moves q by N(q) e_j (J4), nu + j moves u_j, 2 nu + j u̇_j
    for (const TreeJoint& t : tree.joints) {
      for (int k = 0; k < t.nu; ++k) {
        const int o = t.u_offset + k;
        const int jq = o - j0, ju = nu + o - j0, ja = 2 * nu + o - j0;
        const int end = std::min(kDir, j_end - j0);
        if (jq >= 0 && jq < end) {
          e.setZero();
          e(k) = 1.0;
          t.type->qdot(s.q.data() + t.q_offset, e.data(), qd.data());
          for (int r = 0; r < t.nq; ++r) q[t.q_offset + r].d[jq] = qd(r);
        }
        if (ju >= 0 && ju < end) u[o].d[ju] = 1.0;
        if (ja >= 0 && ja < end) a[o].d[ja] = 1.0;
      }
    }
    std::vector<Dual> rr, pi;
    BodyWrenches extra;
    if (rows)
      extra = [&](const std::vector<DualBody>& body, std::vector<D3>& f, std::vector<D3>& nO) {
        extra_rows_in_pass(m, s.t, std::min(kDir, j_end - j0), body, rows->lambda, f, nO, rr, pi);
      };
    rnea_pass(m, q, u, a, tau, extra);
    for (int r = 0; r < nu; ++r) {
      if (first) tau_out(r) = tau[r].v;
      for (int k = 0; k < kDir && j0 + k < j_end; ++k) cols(r, j0 + k) = tau[r].d[k];
    }
    for (int r = 0; rows && r < static_cast<int>(rr.size()); ++r) {
      if (first) rows->r(r) = rr[r].v, rows->pi(r) = pi[r].v;
      for (int k = 0; k < kDir && j0 + k < j_end; ++k)
        rows->dr(r, j0 + k) = rr[r].d[k], rows->dpi(r, j0 + k) = pi[r].d[k];
    }
    first = false;
  }
  // the rotors' torque armature · u̇ (JointProperties::armature): on τ and M's diagonal
  for (const TreeJoint& t : tree.joints)
    for (int k = 0; k < t.nu; ++k) {
      const int o = t.u_offset + k;
      tau_out(o) += t.armature * udot(o);
      if (2 * nu + o >= j_begin && 2 * nu + o < j_end) cols(o, 2 * nu + o) += t.armature;
    }
}

}  // namespace derivative_detail
}  // namespace appell
