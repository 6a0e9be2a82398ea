// Extra rows on the tree: λ from G λ = b − A a⁰ (R12, R13), then the forces Aᵀλ join the
// applied ones and the passes run again (R14).  The essay on the scaling is in
// engine/formulations/recursive.hpp; the rank policy in engine/formulations/rank_policy.hpp.
#include <cmath>

#include "engine/assembly/row_terms.hpp"
#include "engine/formulations/rank_policy.hpp"
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

namespace {

// fn(k, c, i, row) for every extra row k: row i of constraint c, model row `row`
template <typename Fn>
void for_extra_rows(const Model& m, const TreeModel& tree, Fn&& fn) {
  int k = 0;
  for (int c : tree.extra)
    for (int i = 0; i < m.constraints()[c]->rows(); ++i, ++k) fn(k, c, i, m.row_offset(c) + i);
}

// the force of row i of constraint c with multiplier lam, added to the bodies' w.f
void add_row_force(const Model& m, const TreeModel& tree, const Data& d, int c, int i, double lam,
                   RecursiveWorkspace& ws) {
  for_row_terms(m, d, c, i, [&](int b, const SpatialForce& t) {
    SpatialForce& f = ws.w[tree.tree_index[b]].f;
    f.force += lam * t.force;
    f.moment += lam * t.moment;  // [HO21 eq. 15]
  });
}

// A_row a: the row's left side on the tree bodies' accelerations
double row_times_a(const Model& m, const TreeModel& tree, const Data& d,
                   const RecursiveWorkspace& ws, int c, int i) {
  double s = 0.0;
  for_row_terms(m, d, c, i, [&](int b, const SpatialForce& t) {
    const SpatialMotion& a = ws.w[tree.tree_index[b]].a;
    s += t.force.dot(a.linear);
    s += t.moment.dot(a.angular);
  });
  return s;
}

// G column by column: the response a^k of the tree to row k's unit force     (R12);
// with R, also the joint-space response u̇^k = H⁻¹ J_kᵀ into R's column k
void build_G(const Model& m, const TreeModel& tree, const Data& d, RecursiveWorkspace& ws,
             Eigen::MatrixXd* R = nullptr) {
  for (auto& w : ws.w) w.f.setZero();
  for_extra_rows(m, tree, [&](int k, int c, int i, int) {
    add_row_force(m, tree, d, c, i, 1.0, ws);
    bias_TipToBase(tree, ws, false);
    accelerations_BaseToTip(tree, ws, false);
    add_row_force(m, tree, d, c, i, -1.0, ws);
    if (R) R->col(k) = ws.udot;
    for_extra_rows(m, tree, [&](int k2, int c2, int i2, int) {
      ws.G(k2, k) = row_times_a(m, tree, d, ws, c2, i2);
    });
  });
}

// λ = G⁺ e on the rows scaled to unit response ρ_k = ‖A_k‖_{M⁻¹} of the maximal M: the
// scaled G is the Schur complement of the tree rows in the unit-diagonal Ĝ, its
// eigenvalues are the sin² θ of (P2), and dependent directions (below τ², absolute) are
// dropped (R13; rank_policy.hpp).  A row that repeats a tree joint gives a zero column
// here.  Returns the rank.
int solve_G(const Model& m, const TreeModel& tree, Data& d, RecursiveWorkspace& ws) {
  row_responses(m, d, ws.rho, &tree.extra);  // the tree rows are exact: only these
  const double tau = dependence_tolerance(m, d, ws.rho, &tree.extra);
  d.diagnostics.rank_tolerance = tau;
  for_extra_rows(m, tree, [&](int k, int, int, int row) {
    ws.scale(k) = ws.rho(row) > 0 ? 1.0 / ws.rho(row) : 0.0;
  });
  ws.G.array().colwise() *= ws.scale.array();
  ws.G.array().rowwise() *= ws.scale.transpose().array();
  symmetric_eigen_jacobi(ws.G, ws.V);
  const auto ev = ws.G.diagonal();
  ws.e = ws.scale.cwiseProduct(ws.e);
  ws.lambda.setZero();
  int rank = 0;
  for (int k = 0; k < tree.nrows_extra; ++k)
    if (ev(k) >= tau * tau) {
      ++rank;
      ws.lambda += ws.V.col(k) * (ws.V.col(k).dot(ws.e) / ev(k));
    }
  ws.lambda = ws.scale.cwiseProduct(ws.lambda);
  return rank;
}

// residual of the extra rows and a quick consistency filter (tighter than
// check_consistency's test, which recursive.cpp runs to confirm)
void check_extra_rows(const Model& m, const TreeModel& tree, Data& d,
                      const RecursiveWorkspace& ws) {
  const double tau = d.diagnostics.rank_tolerance;
  double r2 = 0.0, b2 = 0.0;
  int last = -1;
  for_extra_rows(m, tree, [&](int, int c, int i, int row) {
    const double Aa = row_times_a(m, tree, d, ws, c, i);
    const double r = Aa - d.b(row);
    r2 += r * r;
    b2 += d.b(row) * d.b(row);
    if (std::abs(r) > kConsistencyFactor * tau * (std::abs(d.b(row)) + std::abs(Aa)) && c != last) {
      d.diagnostics.inconsistent.push_back(c);
      last = c;
    }
  });
  d.diagnostics.residual = std::sqrt(r2) / (1.0 + std::sqrt(b2));
  if (!d.diagnostics.inconsistent.empty()) {
    d.diagnostics.status = SolveStatus::Inconsistent;
    d.diagnostics.message = "inconsistent constraints (no acceleration satisfies A u̇ = b): '" +
                            m.constraints()[d.diagnostics.inconsistent.front()]->name() + "'";
  }
}

}  // namespace

void extra_row_responses(const Model& m, const TreeModel& tree, Data& d, RecursiveWorkspace& ws,
                         Eigen::MatrixXd& R) {
  for (auto& w : ws.w) w.f.setZero();
  inertia_bias_TipToBase(tree, ws);  // the articulated inertias; the biases are not used
  R.resize(tree.nu, tree.nrows_extra);
  build_G(m, tree, d, ws, &R);
}

void extra_rows_times_a(const Model& m, const TreeModel& tree, const Data& d,
                        const RecursiveWorkspace& ws, Eigen::Ref<Eigen::VectorXd> out) {
  for_extra_rows(m, tree,
                 [&](int k, int c, int i, int) { out(k) = row_times_a(m, tree, d, ws, c, i); });
}

void add_extra_row_forces(const Model& m, const TreeModel& tree, const Data& d,
                          const Eigen::Ref<const Eigen::VectorXd>& lambda, RecursiveWorkspace& ws) {
  for_extra_rows(m, tree,
                 [&](int k, int c, int i, int) { add_row_force(m, tree, d, c, i, lambda(k), ws); });
}

void solve_extra_pinv(const TreeModel& tree, const Data& d, const RecursiveWorkspace& ws,
                      const Eigen::Ref<const Eigen::VectorXd>& e, Eigen::Ref<Eigen::VectorXd> y) {
  const double tau = d.diagnostics.rank_tolerance;
  const auto ev = ws.G.diagonal();
  y.setZero();
  for (int k = 0; k < tree.nrows_extra; ++k)
    if (ev(k) >= tau * tau) y += ws.V.col(k) * (ws.V.col(k).dot(ws.scale.cwiseProduct(e)) / ev(k));
  y = ws.scale.cwiseProduct(y);
}

void solve_extra_rows(const Model& m, const TreeModel& tree, Data& d, RecursiveWorkspace& ws) {
  // e = b − A a⁰                                                              (R13)
  for_extra_rows(m, tree, [&](int k, int c, int i, int row) {
    ws.e(k) = d.b(row) - row_times_a(m, tree, d, ws, c, i);
  });
  build_G(m, tree, d, ws);
  d.diagnostics.rank += solve_G(m, tree, d, ws);
  // the applied forces plus the rows' forces, and the passes again            (R14)
  body_forces(tree, d, ws);
  for_extra_rows(m, tree, [&](int k, int c, int i, int row) {
    d.lambda(row) = ws.lambda(k);
    add_row_force(m, tree, d, c, i, ws.lambda(k), ws);
  });
  bias_TipToBase(tree, ws, true);
  accelerations_BaseToTip(tree, ws, true);
  check_extra_rows(m, tree, d, ws);
}

}  // namespace appell
