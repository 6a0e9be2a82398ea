// Projections onto the extra rows' manifolds in joint coordinates (projection.hpp, J-P1,
// J-P2): the tree joints hold at every (q, u), so only the extra rows can drift, and the
// mass metric of the tree's coordinates is H, applied through the recursion's responses
// to the rows' unit forces (extra_row_responses) without forming H.
#include <Eigen/Eigenvalues>
#include <cmath>
#include <sstream>

#include "appell/forward.hpp"
#include "engine/assembly/energy.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/formulations/projection.hpp"
#include "engine/formulations/rank_policy.hpp"
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

namespace {

constexpr int kMaxIterations = 10;
constexpr double kPositionTolerance = 1e-13;  // as the maximal projections
constexpr double kVelocityTolerance = 1e-13;
constexpr double kFailure = 1e-6;  // the load-time tolerance of docs/scene-format.md

// The extra rows' terms at (q, u) at d.t: body states, rows, residuals, and their folding
// onto the composites (the rank policy's responses read it).
void extra_rows_at(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                   const Eigen::Ref<const Eigen::VectorXd>& u) {
  recursive_kinematics(m, d, q, u);
  constraint_rows(m, d, m.tree().extra);
  fold_rows(m, d, false, &m.tree().extra);
}

// δu = −R G⁺ r on the extra rows `sel` (indices among the extra rows), rows scaled to unit
// response ρ in the maximal metric and dependent directions dropped with the τ every
// formulation uses (rank_policy.hpp), as solve_G does for the accelerations.  Allocates.
Eigen::VectorXd joint_correction(const Model& m, Data& d, const std::vector<int>& sel,
                                 const Eigen::VectorXd& r) {
  const TreeModel& tree = m.tree();
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  Eigen::MatrixXd R;
  extra_row_responses(m, tree, d, ws, R);
  row_responses(m, d, ws.rho, &tree.extra);
  const double tau = dependence_tolerance(m, d, ws.rho, &tree.extra);
  std::vector<int> row;  // extra row → model row
  for (int c : tree.extra)
    for (int i = 0; i < m.constraints()[c]->rows(); ++i) row.push_back(m.row_offset(c) + i);
  const int k = static_cast<int>(sel.size());
  Eigen::VectorXd s(k), e(k);
  Eigen::MatrixXd G(k, k);
  for (int a = 0; a < k; ++a) {
    const double rho = ws.rho(row[sel[a]]);
    s(a) = rho > 0 ? 1.0 / rho : 0.0;
    e(a) = s(a) * r(a);
  }
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b) G(a, b) = s(a) * ws.G(sel[a], sel[b]) * s(b);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(G);
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(k);
  for (int j = 0; j < k; ++j) {
    const double ev = eig.eigenvalues()(j);
    if (ev >= tau * tau)
      lambda += eig.eigenvectors().col(j) * (eig.eigenvectors().col(j).dot(e) / ev);
  }
  Eigen::VectorXd du = Eigen::VectorXd::Zero(tree.nu);
  for (int a = 0; a < k; ++a) du -= R.col(sel[a]) * (s(a) * lambda(a));
  return du;
}

// fn(k, c, i, row) for every extra row k: row i of constraint c, model row `row`
template <typename Fn>
void for_extra_rows(const Model& m, Fn&& fn) {
  int k = 0;
  for (int c : m.tree().extra)
    for (int i = 0; i < m.constraints()[c]->rows(); ++i, ++k) fn(k, c, i, m.row_offset(c) + i);
}

}  // namespace

void joint_velocities_of(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                         const std::vector<BodyState>& bodies, Eigen::Ref<Eigen::VectorXd> u) {
  const TreeModel& tree = m.tree();
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  // the bodies' inertias M_i at q (in w.IA), then their momenta M_i V_i as forces
  kinematics_BaseToTip(m, tree, q, Eigen::VectorXd::Zero(tree.nu), d, ws);
  for (size_t i = 0; i < ws.w.size(); ++i) {
    const BodyState& b = bodies[tree.joints[i].body];
    ws.w[i].f = ws.w[i].IA * SpatialMotion(b.v, b.w);
  }
  // u = H⁻¹ Jᵀ (M V): the tree's response to those forces, without velocity products
  inertia_bias_TipToBase(tree, ws);
  bias_TipToBase(tree, ws, false);
  accelerations_BaseToTip(tree, ws, false);
  u = ws.udot;
}

double max_extra_position_violation(const Model& m, const Data& d, int* constraint) {
  double worst = 0.0;
  int which = -1;
  for_extra_rows(m, [&](int, int c, int i, int row) {
    const double g = std::abs(d.position_residual(row));
    if (m.constraints()[c]->holonomic(i) && !(g <= worst)) {  // NaN counts as the worst
      worst = g;
      which = c;
    }
  });
  if (constraint) *constraint = which;
  return worst;
}

SolveStatus project_joint_positions(const Model& m, Data& d, Eigen::Ref<Eigen::VectorXd> q,
                                    ProjectionReport* report) {
  const TreeModel& tree = m.tree();
  std::vector<int> sel;  // the holonomic extra rows
  for_extra_rows(m, [&](int k, int c, int i, int) {
    if (m.constraints()[c]->holonomic(i)) sel.push_back(k);
  });
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(tree.nu);
  Eigen::VectorXd g(sel.size()), dq(tree.nq);
  ProjectionReport rep;
  double previous = INFINITY;
  std::vector<int> rows;
  for_extra_rows(m, [&](int, int, int, int row) { rows.push_back(row); });
  for (;;) {
    extra_rows_at(m, d, q, zero);
    rep.residual = max_extra_position_violation(m, d);
    // converged, or stalled at round-off; the first step is always taken (projection.hpp)
    if (sel.empty() || !std::isfinite(rep.residual) ||
        (rep.iterations > 0 &&
         (rep.residual <= kPositionTolerance || rep.iterations == kMaxIterations ||
          !(rep.residual < 0.5 * previous))))
      break;
    previous = rep.residual;
    for (size_t a = 0; a < sel.size(); ++a) g(a) = d.position_residual(rows[sel[a]]);
    // the step δu of least ‖δu‖_H with J δu = −g (J-P1), taken as q ← q + N(q) δu
    const Eigen::VectorXd du = joint_correction(m, d, sel, g);
    rep.correction = std::max(rep.correction, du.lpNorm<Eigen::Infinity>());
    tree_qdot(tree, q, du, dq);
    q += dq;
    tree_normalize(tree, q);
    ++rep.iterations;
  }
  if (report) *report = rep;
  if (rep.residual <= kFailure) return SolveStatus::Ok;
  if (!std::isfinite(rep.residual))
    return report_not_finite(d.diagnostics,
                             "position projection failed: its correction is not finite");
  int c = -1;
  max_extra_position_violation(m, d, &c);
  std::ostringstream os;
  os << "position projection failed: constraint '"
     << (c >= 0 ? m.constraints()[c]->name() : std::string("?")) << "' still violated by "
     << rep.residual << " after " << rep.iterations << " Gauss-Newton iterations";
  d.diagnostics.status = SolveStatus::Inconsistent;
  d.diagnostics.message = os.str();
  return d.diagnostics.status;
}

SolveStatus project_joint_velocities(const Model& m, Data& d,
                                     const Eigen::Ref<const Eigen::VectorXd>& q,
                                     Eigen::Ref<Eigen::VectorXd> u, ProjectionReport* report) {
  ProjectionReport rep;
  std::vector<int> sel, rows;
  for_extra_rows(m, [&](int k, int, int, int row) {
    sel.push_back(k);
    rows.push_back(row);
  });
  const Eigen::VectorXd u0 = u;
  Eigen::VectorXd pi(sel.size());
  double previous = INFINITY;
  for (;;) {
    extra_rows_at(m, d, q, u);
    rep.residual = 0.0;
    for (size_t a = 0; a < rows.size(); ++a) {
      pi(a) = d.velocity_residual(rows[a]);
      rep.residual = std::max(rep.residual, std::abs(pi(a)));
    }
    if (!pi.allFinite()) rep.residual = NAN;
    if (!std::isfinite(rep.residual)) break;
    const double tol = kVelocityTolerance * (1.0 + u.lpNorm<Eigen::Infinity>());
    if (sel.empty() ||
        (rep.iterations > 0 && (rep.residual <= tol || rep.iterations == kMaxIterations ||
                                !(rep.residual < 0.5 * previous))))
      break;
    previous = rep.residual;
    u += joint_correction(m, d, sel, pi);  // (J-P2); for rows nonlinear in u a Newton step
    ++rep.iterations;
  }
  // ‖Δu‖_H = ‖ΔV‖_M: twice the kinetic energy of the change, then d back at (q, u)
  if (rep.iterations > 0) {
    const Eigen::VectorXd du = u - u0;
    recursive_kinematics(m, d, q, du);
    rep.correction = std::sqrt(std::max(0.0, 2.0 * kinetic_energy_at(m, d, du)));
    extra_rows_at(m, d, q, u);
  }
  if (report) *report = rep;
  if (rep.residual <= kFailure * (1.0 + u.lpNorm<Eigen::Infinity>())) return SolveStatus::Ok;
  if (!std::isfinite(rep.residual))
    return report_not_finite(d.diagnostics,
                             "velocity projection failed: its correction is not finite");
  std::ostringstream os;
  os << "velocity projection failed: velocity constraints still violated by " << rep.residual
     << " after " << rep.iterations << " iterations";
  d.diagnostics.status = SolveStatus::Inconsistent;
  d.diagnostics.message = os.str();
  return d.diagnostics.status;
}

}  // namespace appell
