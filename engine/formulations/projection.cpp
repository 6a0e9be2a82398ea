#include "engine/formulations/projection.hpp"

#include <cmath>
#include <sstream>

#include "engine/assembly/stages.hpp"
#include "engine/formulations/rank_policy.hpp"
#include "engine/model/body_coordinates.hpp"
#include "engine/model/tree.hpp"

namespace appell {

namespace {

constexpr int kMaxIterations = 10;
constexpr double kPositionTolerance = 1e-13;  // a metre-sized model: a few ulps
constexpr double kVelocityTolerance = 1e-13;
constexpr double kFailure = 1e-6;  // the load-time tolerance of docs/scene-format.md

// δ = −M^{-1/2} (G M^{-1/2})⁺ r   (P2, P3), rows scaled to unit response and dependent
// rows dropped as every formulation drops them (rank_policy.hpp).  G has nu columns.
Eigen::VectorXd mass_metric_correction(const Model& m, const Data& d, Eigen::MatrixXd G,
                                       Eigen::VectorXd r) {
  const InverseSqrtMass Mis(m, d);
  Mis.right_multiply(G);
  Eigen::VectorXd rho_all;
  row_responses(m, d, rho_all);
  const double tau = dependence_tolerance(m, d, rho_all);
  for (int k = 0; k < G.rows(); ++k) {
    const double n = G.row(k).norm();  // ρ_k (rank_policy.hpp, P1)
    const double s = n > 0 ? 1.0 / n : 0.0;
    G.row(k) *= s;
    r(k) *= s;
  }
  UnitRowInverse inverse;
  inverse.compute(G, tau);
  Eigen::VectorXd delta;
  Mis.apply(-inverse.solve(r), delta);
  return delta;
}

}  // namespace

double max_position_violation(const Model& m, const Data& d, int* constraint) {
  double worst = 0.0;
  int which = -1;
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const Constraint& con = *m.constraints()[c];
    for (int i = 0; i < con.rows(); ++i) {
      const double g = std::abs(d.position_residual(m.row_offset(c) + i));
      if (con.holonomic(i) && !(g <= worst)) {  // NaN counts as the worst
        worst = g;
        which = c;
      }
    }
  }
  if (constraint) *constraint = which;
  return worst;
}

SolveStatus project_positions(const Model& m, Data& d, ProjectionReport* report) {
  // the holonomic rows, once
  std::vector<int> rows;
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c)
    for (int i = 0; i < m.constraints()[c]->rows(); ++i)
      if (m.constraints()[c]->holonomic(i)) rows.push_back(m.row_offset(c) + i);
  ProjectionReport rep;
  Eigen::MatrixXd G(rows.size(), m.nu());
  Eigen::VectorXd g(rows.size());
  double previous = INFINITY;
  for (;;) {
    kinematics(m, d);
    constraint_rows(m, d);
    fold_rows(m, d, true);
    rep.residual = max_position_violation(m, d);
    // converged, or stalled at round-off; the first step is always taken (see the header)
    if (rows.empty() || !std::isfinite(rep.residual) ||
        (rep.iterations > 0 &&
         (rep.residual <= kPositionTolerance || rep.iterations == kMaxIterations ||
          !(rep.residual < 0.5 * previous))))
      break;
    previous = rep.residual;
    // linearise (P1) and take the minimum-norm step (P2)
    dense_rows(m, d);
    for (size_t k = 0; k < rows.size(); ++k) {
      G.row(k) = d.A.row(rows[k]);
      g(k) = d.position_residual(rows[k]);
    }
    const Eigen::VectorXd delta = mass_metric_correction(m, d, G, g);
    rep.correction = std::max(rep.correction, delta.cwiseAbs().maxCoeff());
    for (int i = 0; i < m.ncomposite(); ++i) {
      integrate_body_q(m.composites()[i], delta.data() + m.u_offset(i), d.q.data() + m.q_offset(i));
    }
    ++rep.iterations;
  }
  if (report) *report = rep;
  if (rep.residual <= kFailure) return SolveStatus::Ok;
  if (!std::isfinite(rep.residual))
    return report_not_finite(d.diagnostics,
                             "position projection failed: its correction is not finite");
  int c = -1;
  max_position_violation(m, d, &c);
  std::ostringstream os;
  os << "position projection failed: constraint '"
     << (c >= 0 ? m.constraints()[c]->name() : std::string("?")) << "' still violated by "
     << rep.residual << " after " << rep.iterations << " Gauss-Newton iterations";
  d.diagnostics.status = SolveStatus::Inconsistent;
  d.diagnostics.message = os.str();
  return d.diagnostics.status;
}

SolveStatus project_velocities(const Model& m, Data& d, ProjectionReport* report) {
  ProjectionReport rep;
  if (m.tree().nrows_extra == 0) {
    // Only the tree's joints: they hold exactly at every joint state (engine/model/tree.hpp), and
    // d's velocities come from joint rates, so there is nothing to project; the dense step,
    // O(rows³), would only move u by round-off (20 s for a chain of 1000 links)
    kinematics(m, d);
    constraint_rows(m, d);
    fold_rows(m, d, true);
    rep.residual = m.nrows() ? d.velocity_residual.cwiseAbs().maxCoeff() : 0.0;
    if (report) *report = rep;
    return SolveStatus::Ok;
  }
  const Eigen::VectorXd u0 = d.u;
  double previous = INFINITY;
  for (;;) {
    kinematics(m, d);
    constraint_rows(m, d);
    fold_rows(m, d, true);
    rep.residual = m.nrows() ? d.velocity_residual.cwiseAbs().maxCoeff() : 0.0;
    if (!std::isfinite(rep.residual)) break;
    const double tol = kVelocityTolerance * (1.0 + d.u.cwiseAbs().maxCoeff());
    if (m.nrows() == 0 ||
        (rep.iterations > 0 && (rep.residual <= tol || rep.iterations == kMaxIterations ||
                                !(rep.residual < 0.5 * previous))))
      break;
    previous = rep.residual;
    dense_rows(m, d);  // (P3); for rows nonlinear in u a Newton step
    d.u += mass_metric_correction(m, d, d.A, d.velocity_residual);
    ++rep.iterations;
  }
  // ‖Δu‖_M
  const Eigen::VectorXd du = d.u - u0;
  Eigen::VectorXd Mdu;
  multiply_mass(m, d, du, Mdu);
  rep.correction = std::sqrt(std::max(0.0, du.dot(Mdu)));
  if (report) *report = rep;
  if (rep.residual <= kFailure * (1.0 + d.u.cwiseAbs().maxCoeff())) return SolveStatus::Ok;
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
