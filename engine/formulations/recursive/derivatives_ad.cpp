// Forward-mode automatic differentiation of the tree's dynamics (derivatives_ad.hpp): the
// recursive Newton–Euler kernel (engine/assembly/rnea.hpp, N1–N5) in dual numbers, eight
// tangent directions per pass, with the extra rows' forces and residuals taken in the same
// passes.
#include "engine/formulations/recursive/derivatives_ad.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "appell/joint.hpp"
#include "appell/model.hpp"
#include "appell/tree.hpp"
#include "engine/assembly/rnea.hpp"
#include "engine/assembly/stages.hpp"

namespace appell {
namespace derivative_detail {

constexpr int kDir = 8;  // directions carried by one pass
using Dual = Dual8;
using D3 = Eigen::Matrix<Dual, 3, 1>;
using RneaDual = RneaWorkT<Dual>;

namespace {

// Between the passes: adds wrenches to the bodies' F (force, moment about the origin),
// given the bodies' states and accelerations
using BodyWrenches = std::function<void(RneaDual&)>;

// One pass of the kernel (N1–N5) in duals: τ (tree nu) at q, u seeded with up to kDir
// directions; `extra` (optional) subtracts its wrenches from what the bodies need.
void rnea_pass(const Model& m, const std::vector<Dual>& q, const std::vector<Dual>& u,
               const std::vector<Dual>& udot, std::vector<Dual>& tau,
               const BodyWrenches& extra = nullptr) {
  const TreeModel& tree = m.tree();
  RneaDual w(m);
  body_kinematics_BaseToTip(tree, q.data(), u.data(), w);
  rnea_accelerations_BaseToTip(tree, udot.data(), w);
  rnea_wrenches<Dual>(m, nullptr, w);
  if (extra) extra(w);
  tau.assign(tree.nu, Dual(0));
  rnea_forces_TipToBase(tree, w.joint, w.F, tau.data());
}

// The extra rows (loops, constraints: tree.extra) in one pass, at its bodies' states: each
// constraint's rows and their exact derivatives along the pass's first `ndir` directions
// (Constraint::evaluate_tangent).  With the multipliers `lambda`, the rows' forces Aᵀλ are
// taken from what the bodies need (so the pass gives ID − Aᵀλ), r = A a − b (the rows'
// residual at the bodies' accelerations) and π (their velocity residual).
void extra_rows_in_pass(const Model& m, double t, int ndir, RneaDual& w,
                        const Eigen::VectorXd& lambda, std::vector<Dual>& r,
                        std::vector<Dual>& pi) {
  const std::vector<BodyStateT<Dual>>& body = w.body;
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
    std::vector<SpatialForce> terms(nr * ns), dterms(nr * ns);
    std::vector<double> b(nr), vel(nr), pos(nr), db(nr), dvel(nr), dpos(nr);
    const RowSpan out{terms.data(), b.data(), vel.data(), pos.data(), ns};
    const RowSpan dout{dterms.data(), db.data(), dvel.data(), dpos.data(), ns};
    std::vector<SpatialForceT<Dual>> dual_terms(nr * ns, {zero, zero});
    std::vector<Dual> bd(nr), vd(nr);
    for (int k = 0; k < nd; ++k) {
      dir.bodies = tangent[k].data();
      std::fill(terms.begin(), terms.end(), SpatialForce{});
      std::fill(dterms.begin(), dterms.end(), SpatialForce{});
      if (!con.evaluate_tangent(in, dir, out, dout))
        throw std::invalid_argument("derivatives: constraint '" + con.name() + "' (" + con.type() +
                                    ") gives no derivatives of its rows "
                                    "(Constraint::evaluate_tangent)");
      drop_particle_moments(m, con, terms.data(), nr);
      drop_particle_moments(m, con, dterms.data(), nr);
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
        const D3& l = dual_terms[i * ns + j].force;
        const D3& a = dual_terms[i * ns + j].moment;
        // the row's force λ lin at the centre and moment λ ang [HO21 eq. 15]
        w.F[bj].force -= l * lam;
        w.F[bj].moment -= (a + body[bj].x.cross(l)) * lam;
        r[row] += l.dot(w.a[bj].linear) + a.dot(w.a[bj].angular);
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
      extra = [&](RneaDual& w) {
        extra_rows_in_pass(m, s.t, std::min(kDir, j_end - j0), w, rows->lambda, rr, pi);
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
